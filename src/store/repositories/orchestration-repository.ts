import { type Kysely, type Selectable, type Transaction } from 'kysely';
import { z } from 'zod';
import { StoredOrchestrationProposalSchema, type StoredOrchestrationProposal } from '../../core/orchestrations/orchestration-proposal.js';
import type { OrchestrationStatus } from '../../core/orchestrations/orchestration-status.js';
import type { OrchestrationTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';

const parseApprovedKeys = jsonColumn('orchestrations', 'approved_keys', z.array(z.string()));
const parseProposal = jsonColumn<StoredOrchestrationProposal>('orchestration_revisions', 'proposal', StoredOrchestrationProposalSchema);
const parseStepResult = jsonColumn('orchestration_steps', 'result', z.unknown());

type Db = Kysely<WorkspaceSchema> | Transaction<WorkspaceSchema>;

/** One orchestration row as the services use it. */
export interface OrchestrationRecord {
  id: string;
  conversationId: string | null;
  spaceId: string | null;
  orchestratorAgentId: string;
  runId: string | null;
  goal: string;
  status: OrchestrationStatus;
  latestRevision: number;
  approvedRevision: number | null;
  approvedKeys: string[] | null;
  decidedBy: string | null;
  reason: string | null;
  teamId: string | null;
  projectId: string | null;
  pipelineRunId: string | null;
  maxUsd: number | null;
  spentUsd: number;
  budgetPaused: boolean;
  error: string | null;
  createdAt: string;
  decidedAt: string | null;
  updatedAt: string;
  /** PLAN-7: the plan this orchestration records; null for an agent's proposal. */
  planId: string | null;
  /** ORC-4: the pending Inbox approval of a budget pause. */
  budgetApprovalId: string | null;
  /** ORC-4: the held node an approved budget pause lets run over the cap (once). */
  budgetGrantNode: string | null;
}

export interface OrchestrationRevisionRecord {
  orchestrationId: string;
  revision: number;
  /** An agent's proposal, or (PLAN-7) a plan's steps, which have no synthesis step. */
  proposal: StoredOrchestrationProposal;
  runId: string | null;
  createdAt: string;
}

export function toOrchestration(row: Selectable<OrchestrationTable>): OrchestrationRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    spaceId: row.space_id,
    orchestratorAgentId: row.agent_id,
    runId: row.run_id,
    goal: row.goal,
    status: row.status as OrchestrationStatus,
    latestRevision: row.latest_revision,
    approvedRevision: row.approved_revision,
    approvedKeys: row.approved_keys === null ? null : parseApprovedKeys(row.approved_keys, row.id),
    decidedBy: row.decided_by,
    reason: row.reason,
    teamId: row.team_id,
    projectId: row.project_id,
    pipelineRunId: row.pipeline_run_id,
    maxUsd: row.max_usd,
    spentUsd: row.spent_usd,
    budgetPaused: row.budget_paused === 1,
    error: row.error,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    updatedAt: row.updated_at,
    planId: row.plan_id ?? null,
    budgetApprovalId: row.budget_approval_id ?? null,
    budgetGrantNode: row.budget_grant_node ?? null,
  };
}

export async function findOrchestration(db: Db, id: string): Promise<OrchestrationRecord | null> {
  const row = await db.selectFrom('orchestrations').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toOrchestration(row) : null;
}

export async function listOrchestrations(db: Db, filter: { conversationId?: string; statuses?: readonly OrchestrationStatus[] } = {}): Promise<OrchestrationRecord[]> {
  let query = db.selectFrom('orchestrations').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(200);
  if (filter.conversationId) query = query.where('conversation_id', '=', filter.conversationId);
  if (filter.statuses) query = query.where('status', 'in', [...filter.statuses]);
  return (await query.execute()).map(toOrchestration);
}

/** PLAN-7: the orchestration that records an approved plan, if any. */
export async function findOrchestrationOfPlan(db: Db, planId: string): Promise<OrchestrationRecord | null> {
  const row = await db.selectFrom('orchestrations').selectAll().where('plan_id', '=', planId).executeTakeFirst();
  return row ? toOrchestration(row) : null;
}

/** ORC-4: the orchestration whose budget pause an Inbox approval asks about, if any. */
export async function findOrchestrationByBudgetApproval(db: Db, approvalId: string): Promise<OrchestrationRecord | null> {
  const row = await db.selectFrom('orchestrations').selectAll().where('budget_approval_id', '=', approvalId).executeTakeFirst();
  return row ? toOrchestration(row) : null;
}

/** The conversation's orchestration still waiting for a decision, if any (re-proposals become its revisions). */
export async function findOpenProposal(db: Db, conversationId: string | null, agentId: string): Promise<OrchestrationRecord | null> {
  let query = db.selectFrom('orchestrations').selectAll().where('status', '=', 'proposed').where('agent_id', '=', agentId);
  query = conversationId === null ? query.where('conversation_id', 'is', null) : query.where('conversation_id', '=', conversationId);
  const row = await query.orderBy('created_at', 'desc').executeTakeFirst();
  return row ? toOrchestration(row) : null;
}

export async function insertOrchestration(db: Db, record: OrchestrationRecord): Promise<void> {
  await db
    .insertInto('orchestrations')
    .values({
      id: record.id,
      conversation_id: record.conversationId,
      space_id: record.spaceId,
      agent_id: record.orchestratorAgentId,
      run_id: record.runId,
      goal: record.goal,
      status: record.status,
      latest_revision: record.latestRevision,
      approved_revision: record.approvedRevision,
      approved_keys: record.approvedKeys === null ? null : JSON.stringify(record.approvedKeys),
      decided_by: record.decidedBy,
      reason: record.reason,
      team_id: record.teamId,
      project_id: record.projectId,
      pipeline_run_id: record.pipelineRunId,
      max_usd: record.maxUsd,
      spent_usd: record.spentUsd,
      budget_paused: record.budgetPaused ? 1 : 0,
      error: record.error,
      created_at: record.createdAt,
      decided_at: record.decidedAt,
      updated_at: record.updatedAt,
      plan_id: record.planId,
      budget_approval_id: record.budgetApprovalId,
      budget_grant_node: record.budgetGrantNode,
    })
    .execute();
}

/** Column changes an update may make; the status guard makes concurrent decisions lose cleanly. */
export interface OrchestrationChange {
  goal?: string;
  status?: OrchestrationStatus;
  runId?: string | null;
  latestRevision?: number;
  approvedRevision?: number | null;
  approvedKeys?: string[] | null;
  decidedBy?: string | null;
  reason?: string | null;
  teamId?: string | null;
  projectId?: string | null;
  pipelineRunId?: string | null;
  maxUsd?: number | null;
  spentUsd?: number;
  budgetPaused?: boolean;
  error?: string | null;
  decidedAt?: string | null;
  budgetApprovalId?: string | null;
  budgetGrantNode?: string | null;
  updatedAt: string;
}

/** Applies `change` when the row is in one of `fromStatuses` (any status when omitted); true when it did. */
export async function updateOrchestration(db: Db, id: string, change: OrchestrationChange, fromStatuses?: readonly OrchestrationStatus[]): Promise<boolean> {
  const set: Partial<Record<keyof OrchestrationTable, unknown>> = { updated_at: change.updatedAt };
  if (change.goal !== undefined) set.goal = change.goal;
  if (change.status !== undefined) set.status = change.status;
  if (change.runId !== undefined) set.run_id = change.runId;
  if (change.latestRevision !== undefined) set.latest_revision = change.latestRevision;
  if (change.approvedRevision !== undefined) set.approved_revision = change.approvedRevision;
  if (change.approvedKeys !== undefined) set.approved_keys = change.approvedKeys === null ? null : JSON.stringify(change.approvedKeys);
  if (change.decidedBy !== undefined) set.decided_by = change.decidedBy;
  if (change.reason !== undefined) set.reason = change.reason;
  if (change.teamId !== undefined) set.team_id = change.teamId;
  if (change.projectId !== undefined) set.project_id = change.projectId;
  if (change.pipelineRunId !== undefined) set.pipeline_run_id = change.pipelineRunId;
  if (change.maxUsd !== undefined) set.max_usd = change.maxUsd;
  if (change.spentUsd !== undefined) set.spent_usd = change.spentUsd;
  if (change.budgetPaused !== undefined) set.budget_paused = change.budgetPaused ? 1 : 0;
  if (change.error !== undefined) set.error = change.error;
  if (change.decidedAt !== undefined) set.decided_at = change.decidedAt;
  if (change.budgetApprovalId !== undefined) set.budget_approval_id = change.budgetApprovalId;
  if (change.budgetGrantNode !== undefined) set.budget_grant_node = change.budgetGrantNode;
  let query = db.updateTable('orchestrations').set(set as never).where('id', '=', id);
  if (fromStatuses) query = query.where('status', 'in', [...fromStatuses]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertRevision(db: Db, revision: OrchestrationRevisionRecord): Promise<void> {
  await db
    .insertInto('orchestration_revisions')
    .values({
      orchestration_id: revision.orchestrationId,
      revision: revision.revision,
      proposal: JSON.stringify(revision.proposal),
      run_id: revision.runId,
      created_at: revision.createdAt,
    })
    .execute();
}

export async function listRevisions(db: Db, orchestrationId: string): Promise<OrchestrationRevisionRecord[]> {
  const rows = await db.selectFrom('orchestration_revisions').selectAll().where('orchestration_id', '=', orchestrationId).orderBy('revision', 'asc').execute();
  return rows.map((row) => ({
    orchestrationId: row.orchestration_id,
    revision: row.revision,
    proposal: parseProposal(row.proposal, `${row.orchestration_id}#${row.revision}`),
    runId: row.run_id,
    createdAt: row.created_at,
  }));
}

/**
 * The materializer's completed steps (ORC-4), by the time they were recorded. Steps recorded in the
 * same millisecond come back by name: portable SQL has no insertion order (SQLite's rowid has no
 * PostgreSQL counterpart), so a caller that needs the run order orders by the proposal it follows.
 */
export async function listSteps(db: Db, orchestrationId: string): Promise<Map<string, unknown>> {
  const rows = await db.selectFrom('orchestration_steps').selectAll().where('orchestration_id', '=', orchestrationId).orderBy('created_at').orderBy('step').execute();
  return new Map(rows.map((row) => [row.step, parseStepResult(row.result, `${orchestrationId}/${row.step}`)]));
}

export async function recordStep(db: Db, orchestrationId: string, step: string, result: unknown, now: string): Promise<void> {
  await db.insertInto('orchestration_steps').values({ orchestration_id: orchestrationId, step, result: JSON.stringify(result), created_at: now }).execute();
}

export interface TeamMemberRecord {
  agentId: string;
  roleKey: string | null;
  roleTitle: string | null;
  hired: boolean;
}

export async function insertTeam(db: Db, team: { id: string; name: string; leadAgentId: string; orchestrationId: string; createdAt: string; members: TeamMemberRecord[] }): Promise<void> {
  await db.insertInto('teams').values({ id: team.id, name: team.name, lead_agent_id: team.leadAgentId, orchestration_id: team.orchestrationId, created_at: team.createdAt }).execute();
  // An agent may fill several roles: one membership row each, the first role named.
  const seen = new Set<string>();
  for (const member of team.members) {
    if (seen.has(member.agentId)) continue;
    seen.add(member.agentId);
    await db
      .insertInto('team_members')
      .values({ team_id: team.id, agent_id: member.agentId, role_key: member.roleKey, role_title: member.roleTitle, hired: member.hired ? 1 : 0 })
      .execute();
  }
}

export async function insertProject(db: Db, project: { id: string; name: string; goal: string; teamId: string; orchestrationId: string; createdAt: string }): Promise<void> {
  await db
    .insertInto('projects')
    .values({ id: project.id, name: project.name, goal: project.goal, team_id: project.teamId, orchestration_id: project.orchestrationId, created_at: project.createdAt })
    .execute();
}

/** Priced costs of an agent's recent finished runs (ORC-2's estimate basis), newest first. */
export async function recentRunCosts(db: Db, agentId: string, limit = 50): Promise<number[]> {
  const rows = await db
    .selectFrom('runs')
    .select('cost_usd')
    .where('agent_id', '=', agentId)
    .where('state', '=', 'completed')
    .where('cost_usd', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => Number(row.cost_usd));
}
