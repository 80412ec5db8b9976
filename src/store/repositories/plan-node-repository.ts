import type { Kysely, Selectable, Updateable } from 'kysely';
import { PLAN_NODE_STATES, type PlanNodeState } from '../../core/plan/plan-progress.js';
import type { PlanNodeTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';

const parseState = enumColumn('plan_nodes', 'state', PLAN_NODE_STATES);

/** One step of an executing plan (PLAN-8): its state is durable, so a restart resumes it. */
export interface PlanNodeRecord {
  planId: string;
  key: string;
  ticketId: string;
  state: PlanNodeState;
  runId: string | null;
  assigneeAgentId: string | null;
  attempts: number;
  error: string | null;
  startedAt: string | null;
  endedAt: string | null;
}

/** The one mapper from a `plan_nodes` row. */
export function toPlanNodeRecord(row: Selectable<PlanNodeTable>): PlanNodeRecord {
  return {
    planId: row.plan_id,
    key: row.key,
    ticketId: row.ticket_id,
    state: parseState(row.state, `${row.plan_id}/${row.key}`),
    runId: row.run_id,
    assigneeAgentId: row.assignee_agent_id,
    attempts: row.attempts,
    error: row.error,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

/** Every node of a plan (all of them, or those in one state). */
export async function listPlanNodes(db: Kysely<WorkspaceSchema>, planId: string, state?: PlanNodeState): Promise<PlanNodeRecord[]> {
  let query = db.selectFrom('plan_nodes').selectAll().where('plan_id', '=', planId);
  if (state !== undefined) query = query.where('state', '=', state);
  return (await query.execute()).map(toPlanNodeRecord);
}

export async function findPlanNode(db: Kysely<WorkspaceSchema>, planId: string, key: string): Promise<PlanNodeRecord | null> {
  const row = await db.selectFrom('plan_nodes').selectAll().where('plan_id', '=', planId).where('key', '=', key).executeTakeFirst();
  return row ? toPlanNodeRecord(row) : null;
}

export async function insertPlanNode(db: Kysely<WorkspaceSchema>, node: PlanNodeRecord): Promise<void> {
  await db
    .insertInto('plan_nodes')
    .values({
      plan_id: node.planId,
      key: node.key,
      ticket_id: node.ticketId,
      state: node.state,
      run_id: node.runId,
      assignee_agent_id: node.assigneeAgentId,
      attempts: node.attempts,
      error: node.error,
      started_at: node.startedAt,
      ended_at: node.endedAt,
    })
    .execute();
}

/** What a step's progress may change. */
export type PlanNodeChange = Partial<Pick<PlanNodeRecord, 'state' | 'runId' | 'attempts' | 'error' | 'startedAt' | 'endedAt'>>;

export async function updatePlanNode(db: Kysely<WorkspaceSchema>, planId: string, key: string, change: PlanNodeChange): Promise<void> {
  const patch: Updateable<PlanNodeTable> = {};
  if (change.state !== undefined) patch.state = change.state;
  if (change.runId !== undefined) patch.run_id = change.runId;
  if (change.attempts !== undefined) patch.attempts = change.attempts;
  if (change.error !== undefined) patch.error = change.error;
  if (change.startedAt !== undefined) patch.started_at = change.startedAt;
  if (change.endedAt !== undefined) patch.ended_at = change.endedAt;
  if (Object.keys(patch).length === 0) return;
  await db.updateTable('plan_nodes').set(patch).where('plan_id', '=', planId).where('key', '=', key).execute();
}

/** PLAN-8 resume: the given steps go back to pending, with no run, error or times of the attempt that stopped. */
export async function resetPlanNodes(db: Kysely<WorkspaceSchema>, planId: string, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.updateTable('plan_nodes').set({ state: 'pending', run_id: null, error: null, started_at: null, ended_at: null }).where('plan_id', '=', planId).where('key', 'in', [...keys]).execute();
}
