import type { Kysely, Selectable, Updateable } from 'kysely';
import { z } from 'zod';
import { ApprovalStatus, type Approval } from '../../schemas/approval.js';
import type { ApprovalTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn, jsonColumn } from './column-parsers.js';

const parseStatus = enumColumn('approvals', 'status', ApprovalStatus.options);
const parseRequest = jsonColumn('approvals', 'request', z.record(z.string(), z.unknown()));

/** The one mapper from an `approvals` row (POL-7): `request` is a JSON object. */
export function toApproval(row: Selectable<ApprovalTable>): Approval {
  return {
    id: row.id,
    kind: row.kind,
    status: parseStatus(row.status, row.id),
    durable: row.durable === 1,
    runId: row.run_id,
    agentId: row.agent_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    title: row.title,
    request: parseRequest(row.request, row.id),
    decidedBy: row.decided_by,
    reason: row.reason,
    remember: row.remember === 1,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}

/** Stores a new approval and returns it as a later read will (its request as stored JSON). */
export async function insertApproval(db: Kysely<WorkspaceSchema>, approval: Approval): Promise<Approval> {
  const row: ApprovalTable = {
    id: approval.id,
    kind: approval.kind,
    status: approval.status,
    durable: approval.durable ? 1 : 0,
    run_id: approval.runId,
    agent_id: approval.agentId,
    space_id: approval.spaceId,
    conversation_id: approval.conversationId,
    title: approval.title,
    request: JSON.stringify(approval.request),
    decided_by: approval.decidedBy,
    reason: approval.reason,
    remember: approval.remember ? 1 : 0,
    created_at: approval.createdAt,
    decided_at: approval.decidedAt,
  };
  await db.insertInto('approvals').values(row).execute();
  return toApproval(row);
}

export async function findApproval(db: Kysely<WorkspaceSchema>, approvalId: string): Promise<Approval | null> {
  const row = await db.selectFrom('approvals').selectAll().where('id', '=', approvalId).executeTakeFirst();
  return row ? toApproval(row) : null;
}

export interface ApprovalFilter {
  status?: ApprovalStatus | undefined;
  conversationId?: string | undefined;
  kind?: string | undefined;
  spaceId?: string | undefined;
}

/** Approvals, newest first, at most `limit`. */
export async function listApprovals(db: Kysely<WorkspaceSchema>, filter: ApprovalFilter, limit: number): Promise<Approval[]> {
  let query = db.selectFrom('approvals').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.conversationId) query = query.where('conversation_id', '=', filter.conversationId);
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  if (filter.spaceId) query = query.where('space_id', '=', filter.spaceId);
  return (await query.execute()).map(toApproval);
}

/** How a pending approval ends: decided by an operator, or expired. */
export interface ApprovalSettlement {
  status: Exclude<ApprovalStatus, 'pending'>;
  reason: string | null;
  decidedAt: string;
  decidedBy?: string;
  remember?: boolean;
}

/**
 * Settles an approval only while it is still pending (the guard makes concurrent decisions safe);
 * returns whether this call settled it.
 */
export async function settlePendingApproval(db: Kysely<WorkspaceSchema>, approvalId: string, settlement: ApprovalSettlement): Promise<boolean> {
  const patch: Updateable<ApprovalTable> = { status: settlement.status, reason: settlement.reason, decided_at: settlement.decidedAt };
  if (settlement.decidedBy !== undefined) patch.decided_by = settlement.decidedBy;
  if (settlement.remember !== undefined) patch.remember = settlement.remember ? 1 : 0;
  const result = await db.updateTable('approvals').set(patch).where('id', '=', approvalId).where('status', '=', 'pending').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** On start: every pending approval that does not survive restarts expires (POL-7). */
export async function expirePendingNonDurableApprovals(db: Kysely<WorkspaceSchema>, reason: string, decidedAt: string): Promise<void> {
  await db.updateTable('approvals').set({ status: 'expired', reason, decided_at: decidedAt }).where('status', '=', 'pending').where('durable', '=', 0).execute();
}

export async function setApprovalRequest(db: Kysely<WorkspaceSchema>, approvalId: string, request: Record<string, unknown>): Promise<void> {
  await db.updateTable('approvals').set({ request: JSON.stringify(request) }).where('id', '=', approvalId).execute();
}
