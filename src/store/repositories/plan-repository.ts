import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { PlanBlueprint } from '../../core/plan/plan-blueprint.js';
import type { PlanSubmission } from '../../core/plan/plan-graph.js';
import { PLAN_VIOLATION_CODES, type PlanViolation } from '../../core/plan/plan-violation.js';
import { PlanCostEstimate, PlanStatus } from '../../schemas/plan.js';
import type { PlanTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn, jsonColumn } from './column-parsers.js';

const PlanSubmissionSchema: z.ZodType<PlanSubmission> = z.object({
  goal: z.string(),
  nodes: z.array(z.object({ key: z.string(), title: z.string(), description: z.string(), dependsOn: z.array(z.string()) })),
});

const PlanBlueprintSchema: z.ZodType<PlanBlueprint> = z.object({
  goal: z.string(),
  tickets: z.array(
    z.object({ key: z.string(), title: z.string(), description: z.string(), dependsOn: z.array(z.string()), order: z.number(), level: z.number() }),
  ),
  edges: z.array(z.object({ from: z.string(), to: z.string() })),
  levels: z.array(z.array(z.string())),
  roots: z.array(z.string()),
  leaves: z.array(z.string()),
});

const PlanViolationSchema: z.ZodType<PlanViolation> = z.object({
  code: z.enum(PLAN_VIOLATION_CODES),
  message: z.string(),
  nodeKey: z.string().optional(),
  field: z.string(),
  path: z.array(z.string()).optional(),
});

const parseStatus = enumColumn('plans', 'status', PlanStatus.options);
const parseSubmission = jsonColumn('plans', 'submission', PlanSubmissionSchema);
const parseErrors = jsonColumn('plans', 'errors', z.array(PlanViolationSchema));
const parseBlueprint = jsonColumn('plans', 'blueprint', PlanBlueprintSchema);
const parseApprovedEstimate = jsonColumn('plans', 'approved_estimate', PlanCostEstimate);

/** A stored plan version (PLAN-2, PLAN-7): the submission as sent, and the blueprint once approved. */
export interface PlanRecord {
  id: string;
  conversationId: string;
  spaceId: string | null;
  agentId: string;
  runId: string | null;
  version: number;
  goal: string;
  status: PlanStatus;
  submission: PlanSubmission;
  errors: PlanViolation[];
  blueprint: PlanBlueprint | null;
  /** The estimate frozen with the approval (TRUTH-3); null before approval and for plans approved before it was kept. */
  approvedEstimate: PlanCostEstimate | null;
  decidedBy: string | null;
  reason: string | null;
  createdAt: string;
  decidedAt: string | null;
  updatedAt: string;
}

/** The one mapper from a `plans` row: its three JSON columns are parsed and checked here only. */
export function toPlanRecord(row: Selectable<PlanTable>): PlanRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    spaceId: row.space_id,
    agentId: row.agent_id,
    runId: row.run_id,
    version: row.version,
    goal: row.goal,
    status: parseStatus(row.status, row.id),
    submission: parseSubmission(row.submission, row.id),
    errors: parseErrors(row.errors, row.id),
    blueprint: row.blueprint === null ? null : parseBlueprint(row.blueprint, row.id),
    approvedEstimate: row.approved_estimate === null ? null : parseApprovedEstimate(row.approved_estimate, row.id),
    decidedBy: row.decided_by,
    reason: row.reason,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    updatedAt: row.updated_at,
  };
}

export async function findPlan(db: Kysely<WorkspaceSchema>, planId: string): Promise<PlanRecord | null> {
  const row = await db.selectFrom('plans').selectAll().where('id', '=', planId).executeTakeFirst();
  return row ? toPlanRecord(row) : null;
}

/** Plans of the whole workspace in one status (the Inbox's plans awaiting approval), newest first. */
export async function listPlansInStatus(db: Kysely<WorkspaceSchema>, status: PlanStatus, limit: number): Promise<PlanRecord[]> {
  const rows = await db.selectFrom('plans').selectAll().where('status', '=', status).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toPlanRecord);
}

/** Plans, newest first, of one conversation or all. */
export async function listPlans(db: Kysely<WorkspaceSchema>, conversationId: string | undefined, limit: number): Promise<PlanRecord[]> {
  let query = db.selectFrom('plans').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  if (conversationId) query = query.where('conversation_id', '=', conversationId);
  return (await query.execute()).map(toPlanRecord);
}

/** The highest version number a conversation's plans reached (0 when it has none). */
export async function latestPlanVersion(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<number> {
  const latest = await db
    .selectFrom('plans')
    .select((eb) => eb.fn.max('version').as('version'))
    .where('conversation_id', '=', conversationId)
    .executeTakeFirst();
  return Number(latest?.version ?? 0);
}

/** A new submission supersedes the conversation's proposed plans (PLAN-2). */
export async function supersedeProposedPlans(db: Kysely<WorkspaceSchema>, conversationId: string, updatedAt: string): Promise<void> {
  await db
    .updateTable('plans')
    .set({ status: 'superseded', updated_at: updatedAt })
    .where('conversation_id', '=', conversationId)
    .where('status', '=', 'proposed')
    .execute();
}

export async function insertPlan(db: Kysely<WorkspaceSchema>, plan: PlanRecord): Promise<void> {
  await db
    .insertInto('plans')
    .values({
      id: plan.id,
      conversation_id: plan.conversationId,
      space_id: plan.spaceId,
      agent_id: plan.agentId,
      run_id: plan.runId,
      version: plan.version,
      goal: plan.goal,
      status: plan.status,
      submission: JSON.stringify(plan.submission),
      errors: JSON.stringify(plan.errors),
      blueprint: plan.blueprint === null ? null : JSON.stringify(plan.blueprint),
      approved_estimate: plan.approvedEstimate === null ? null : JSON.stringify(plan.approvedEstimate),
      decided_by: plan.decidedBy,
      reason: plan.reason,
      created_at: plan.createdAt,
      decided_at: plan.decidedAt,
      updated_at: plan.updatedAt,
    })
    .execute();
}

/**
 * PLAN-7: a proposed plan starts executing with its blueprint and the estimate it was approved at
 * (TRUTH-3); false when it was no longer proposed.
 */
export async function startPlanExecution(
  db: Kysely<WorkspaceSchema>,
  planId: string,
  change: { blueprint: PlanBlueprint; estimate: PlanCostEstimate; decidedBy: string; at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('plans')
    .set({ status: 'executing', blueprint: JSON.stringify(change.blueprint), approved_estimate: JSON.stringify(change.estimate), decided_by: change.decidedBy, decided_at: change.at, updated_at: change.at })
    .where('id', '=', planId)
    .where('status', '=', 'proposed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function rejectPlan(db: Kysely<WorkspaceSchema>, planId: string, change: { decidedBy: string; reason: string | null; at: string }): Promise<void> {
  await db
    .updateTable('plans')
    .set({ status: 'rejected', decided_by: change.decidedBy, decided_at: change.at, reason: change.reason, updated_at: change.at })
    .where('id', '=', planId)
    .execute();
}

export async function setPlanStatus(db: Kysely<WorkspaceSchema>, planId: string, status: PlanStatus, updatedAt: string): Promise<void> {
  await db.updateTable('plans').set({ status, updated_at: updatedAt }).where('id', '=', planId).execute();
}

export async function executingPlanIds(db: Kysely<WorkspaceSchema>): Promise<string[]> {
  return (await db.selectFrom('plans').select('id').where('status', '=', 'executing').execute()).map((row) => row.id);
}
