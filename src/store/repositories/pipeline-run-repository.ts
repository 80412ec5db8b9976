import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { PipelineDefinition } from '../../core/pipelines/pipeline-definition.js';
import { PipelineNodeView, PipelineRunSummary } from '../../schemas/pipeline.js';
import type { PipelineNodeTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn, jsonColumn } from './column-parsers.js';

/**
 * What the durable pipeline engine reads and writes about runs, their nodes and node attempts
 * (PIPE-1). Every statement of the engine lives here, so a second dialect (PostgreSQL) is added in
 * one place; everything is portable Kysely (no SQLite-only SQL).
 */

export type PipelineNodeState = z.infer<typeof PipelineNodeView>['state'];
export type PipelineRunStatus = PipelineRunSummary['status'];

/** States after which a node never changes again (within one run attempt). */
export const TERMINAL_NODE_STATES: readonly PipelineNodeState[] = ['done', 'failed', 'skipped', 'cancelled', 'blocked'];

const parseRunStatus = enumColumn('pipeline_runs', 'status', PipelineRunSummary.shape.status.options);
const parseNodeState = enumColumn('pipeline_nodes', 'state', PipelineNodeView.shape.state.options);
/** A stored run definition was validated (or compiled) before it was written: only its structure is checked on read. */
const parseRunDefinition = jsonColumn(
  'pipeline_runs',
  'definition',
  z.custom<PipelineDefinition>((value) => typeof value === 'object' && value !== null && Array.isArray((value as { nodes?: unknown }).nodes)),
);
const parseRunTrigger = jsonColumn('pipeline_runs', 'trigger', z.object({ type: z.string(), payload: z.unknown().optional() }).passthrough());
const parseRunSource = jsonColumn('pipeline_runs', 'source', z.object({ kind: z.string(), id: z.string().optional() }).passthrough().nullable());

/** One node of one run, as the engine sees it (`output` stays the stored JSON text). */
export interface PipelineNodeRecord {
  runId: string;
  key: string;
  type: string;
  state: PipelineNodeState;
  attempts: number;
  output: string | null;
  error: string | null;
  agentRunId: string | null;
  approvalId: string | null;
  startedAt: string | null;
  endedAt: string | null;
}

export function toPipelineNodeRecord(row: Selectable<PipelineNodeTable>): PipelineNodeRecord {
  return {
    runId: row.run_id,
    key: row.key,
    type: row.type,
    state: parseNodeState(row.state, `${row.run_id}/${row.key}`),
    attempts: row.attempts,
    output: row.output,
    error: row.error,
    agentRunId: row.agent_run_id,
    approvalId: row.approval_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

/** What the engine keeps in memory per run: the definition snapshot, its trigger payload and who started it. */
export interface PipelineRunPlan {
  id: string;
  /** How many times the run was re-opened after it stopped; part of its node jobs' dedupe keys. */
  generation: number;
  definition: PipelineDefinition;
  triggerPayload: unknown;
  source: { kind: string; id?: string } | null;
}

export interface NewPipelineRun {
  id: string;
  pipelineId: string | null;
  definition: PipelineDefinition;
  trigger: { type: string; payload?: unknown };
  source: { kind: string; id?: string };
  idempotencyKey: string | null;
  at: string;
}

// ---- runs ----------------------------------------------------------------------------------------

export async function findPipelineRunIdByKey(db: Kysely<WorkspaceSchema>, idempotencyKey: string): Promise<string | null> {
  const row = await db.selectFrom('pipeline_runs').select('id').where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
  return row?.id ?? null;
}

/** A run's status (the hot path reads only this column, never the definition). */
export async function findPipelineRunStatus(db: Kysely<WorkspaceSchema>, runId: string): Promise<{ id: string; status: PipelineRunStatus } | null> {
  const row = await db.selectFrom('pipeline_runs').select(['id', 'status']).where('id', '=', runId).executeTakeFirst();
  return row ? { id: row.id, status: parseRunStatus(row.status, row.id) } : null;
}

/** Who started a run (only the small `source` column is read: plans look up their own runs per event). */
export async function findPipelineRunSource(db: Kysely<WorkspaceSchema>, runId: string): Promise<{ kind: string; id?: string } | null> {
  const row = await db.selectFrom('pipeline_runs').select(['id', 'source']).where('id', '=', runId).executeTakeFirst();
  return row ? (parseRunSource(row.source, row.id) as { kind: string; id?: string } | null) : null;
}

export async function loadPipelineRunPlan(db: Kysely<WorkspaceSchema>, runId: string): Promise<PipelineRunPlan> {
  const row = await db.selectFrom('pipeline_runs').select(['id', 'definition', 'trigger', 'source', 'generation']).where('id', '=', runId).executeTakeFirstOrThrow();
  return {
    id: row.id,
    generation: row.generation,
    definition: parseRunDefinition(row.definition, row.id),
    triggerPayload: parseRunTrigger(row.trigger, row.id).payload ?? null,
    source: parseRunSource(row.source, row.id) as PipelineRunPlan['source'],
  };
}

export async function listRunIdsWithStatus(db: Kysely<WorkspaceSchema>, status: PipelineRunStatus): Promise<string[]> {
  const rows = await db.selectFrom('pipeline_runs').select('id').where('status', '=', status).execute();
  return rows.map((row) => row.id);
}

/** Inserts a run and one row per node (roots `queued`, the rest `pending`) in one transaction. */
export async function insertPipelineRun(db: Kysely<WorkspaceSchema>, run: NewPipelineRun): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('pipeline_runs')
      .values({
        id: run.id,
        pipeline_id: run.pipelineId,
        name: run.definition.name,
        definition: JSON.stringify(run.definition),
        status: 'running',
        trigger: JSON.stringify(run.trigger),
        source: JSON.stringify(run.source),
        idempotency_key: run.idempotencyKey,
        error: null,
        created_at: run.at,
        ended_at: null,
        updated_at: run.at,
        generation: 0,
      })
      .execute();
    const rows = run.definition.nodes.map((node) => ({
      run_id: run.id,
      key: node.key,
      type: node.type,
      state: node.dependsOn.length === 0 ? 'queued' : 'pending',
      attempts: 0,
      output: null,
      error: null,
      agent_run_id: null,
      approval_id: null,
      started_at: null,
      ended_at: null,
    }));
    // Chunked inserts: a 10,000-node run is a handful of statements, not ten thousand.
    for (let index = 0; index < rows.length; index += 500) await trx.insertInto('pipeline_nodes').values(rows.slice(index, index + 500)).execute();
  });
}

/** Cancels a run and every node that has not started, in one transaction. */
export async function cancelPipelineRunRows(db: Kysely<WorkspaceSchema>, runId: string, at: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('pipeline_runs').set({ status: 'cancelled', ended_at: at, updated_at: at, error: 'cancelled by the operator' }).where('id', '=', runId).execute();
    await trx.updateTable('pipeline_nodes').set({ state: 'cancelled', ended_at: at, error: 'run cancelled' }).where('run_id', '=', runId).where('state', 'in', ['pending', 'queued']).execute();
  });
}

/** Ends a running run (compare-and-set on `running`). */
export async function finishPipelineRunRow(db: Kysely<WorkspaceSchema>, runId: string, status: PipelineRunStatus, error: string | null, at: string): Promise<void> {
  await db.updateTable('pipeline_runs').set({ status, ended_at: at, updated_at: at, error }).where('id', '=', runId).where('status', '=', 'running').execute();
}

/**
 * Puts a stopped run back to `running` and the given nodes back to `pending` with their outcome
 * cleared, in one transaction; false when the run was not in `from` any more (a concurrent restart).
 */
export async function reopenPipelineRunRows(db: Kysely<WorkspaceSchema>, runId: string, from: PipelineRunStatus, keys: readonly string[], at: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const reopened = await trx
      .updateTable('pipeline_runs')
      .set((eb) => ({ status: 'running', ended_at: null, updated_at: at, error: null, generation: eb('generation', '+', 1) }))
      .where('id', '=', runId)
      .where('status', '=', from)
      .executeTakeFirst();
    if (Number(reopened.numUpdatedRows) === 0) return false;
    for (let index = 0; index < keys.length; index += 500) {
      await trx
        .updateTable('pipeline_nodes')
        .set({ state: 'pending', output: null, error: null, agent_run_id: null, approval_id: null, ended_at: null })
        .where('run_id', '=', runId)
        .where('key', 'in', keys.slice(index, index + 500))
        .execute();
    }
    return true;
  });
}

// ---- nodes ---------------------------------------------------------------------------------------

export async function findPipelineNode(db: Kysely<WorkspaceSchema>, runId: string, key: string): Promise<PipelineNodeRecord | null> {
  const row = await db.selectFrom('pipeline_nodes').selectAll().where('run_id', '=', runId).where('key', '=', key).executeTakeFirst();
  return row ? toPipelineNodeRecord(row) : null;
}

/** Nodes of a run, optionally only those in `states` and/or with these keys. */
export async function listPipelineNodes(db: Kysely<WorkspaceSchema>, runId: string, filter: { states?: readonly PipelineNodeState[]; keys?: readonly string[] } = {}): Promise<PipelineNodeRecord[]> {
  if (filter.keys?.length === 0 || filter.states?.length === 0) return [];
  let query = db.selectFrom('pipeline_nodes').selectAll().where('run_id', '=', runId);
  if (filter.states) query = query.where('state', 'in', [...filter.states]);
  if (filter.keys) query = query.where('key', 'in', [...filter.keys]);
  return (await query.execute()).map(toPipelineNodeRecord);
}

export async function countOpenPipelineNodes(db: Kysely<WorkspaceSchema>, runId: string): Promise<number> {
  const open = await db
    .selectFrom('pipeline_nodes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('run_id', '=', runId)
    .where('state', 'not in', [...TERMINAL_NODE_STATES])
    .executeTakeFirst();
  return Number(open?.count ?? 0);
}

export type PipelineNodeChange = Partial<Pick<PipelineNodeRecord, 'state' | 'attempts' | 'output' | 'error' | 'agentRunId' | 'approvalId' | 'startedAt' | 'endedAt'>>;

/** Which rows an update may touch: a compare-and-set on the node's current state (and its hold marker). */
export interface PipelineNodeGuard {
  inStates?: readonly PipelineNodeState[];
  notInStates?: readonly PipelineNodeState[];
  /** Only when the node's error starts with this text (a budget hold, ORC-4). */
  errorPrefix?: string;
}

/** Updates one node; returns how many rows changed (0 when the guard did not match). */
export async function updatePipelineNode(db: Kysely<WorkspaceSchema>, runId: string, key: string, change: PipelineNodeChange, guard: PipelineNodeGuard = {}): Promise<number> {
  let query = db
    .updateTable('pipeline_nodes')
    .set({
      ...(change.state !== undefined ? { state: change.state } : {}),
      ...(change.attempts !== undefined ? { attempts: change.attempts } : {}),
      ...(change.output !== undefined ? { output: change.output } : {}),
      ...(change.error !== undefined ? { error: change.error } : {}),
      ...(change.agentRunId !== undefined ? { agent_run_id: change.agentRunId } : {}),
      ...(change.approvalId !== undefined ? { approval_id: change.approvalId } : {}),
      ...(change.startedAt !== undefined ? { started_at: change.startedAt } : {}),
      ...(change.endedAt !== undefined ? { ended_at: change.endedAt } : {}),
    })
    .where('run_id', '=', runId)
    .where('key', '=', key);
  if (guard.inStates) query = query.where('state', 'in', [...guard.inStates]);
  if (guard.notInStates) query = query.where('state', 'not in', [...guard.notInStates]);
  if (guard.errorPrefix !== undefined) query = query.where('error', 'like', `${guard.errorPrefix}%`);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Queued nodes held by a budget gate (their error starts with `prefix`). */
export async function listHeldPipelineNodes(db: Kysely<WorkspaceSchema>, runId: string, prefix: string): Promise<string[]> {
  const rows = await db.selectFrom('pipeline_nodes').select('key').where('run_id', '=', runId).where('state', '=', 'queued').where('error', 'like', `${prefix}%`).execute();
  return rows.map((row) => row.key);
}

/** What the agent run a node started cost, when it started one and it was priced (ORC-4's spend). */
export async function pipelineNodeAgentCost(db: Kysely<WorkspaceSchema>, runId: string, key: string): Promise<number | null> {
  const node = await db.selectFrom('pipeline_nodes').select('agent_run_id').where('run_id', '=', runId).where('key', '=', key).executeTakeFirst();
  if (!node?.agent_run_id) return null;
  const agentRun = await db.selectFrom('runs').select('cost_usd').where('id', '=', node.agent_run_id).executeTakeFirst();
  return agentRun?.cost_usd ?? null;
}

// ---- attempts ------------------------------------------------------------------------------------

/**
 * Marks the node's attempts still `running` as `interrupted` (the process that ran them is gone);
 * returns how many there were.
 */
export async function interruptRunningAttempts(db: Kysely<WorkspaceSchema>, runId: string, key: string, at: string): Promise<number> {
  const result = await db
    .updateTable('pipeline_node_attempts')
    .set({ state: 'interrupted', ended_at: at, error: 'the server stopped during this attempt' })
    .where('run_id', '=', runId)
    .where('node_key', '=', key)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function countInterruptedAttempts(db: Kysely<WorkspaceSchema>, runId: string, key: string): Promise<number> {
  const row = await db
    .selectFrom('pipeline_node_attempts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('run_id', '=', runId)
    .where('node_key', '=', key)
    .where('state', '=', 'interrupted')
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Opens attempt `attempt` (its row keyed by the idempotency key) and marks the node running, in one transaction. */
export async function beginPipelineNodeAttempt(
  db: Kysely<WorkspaceSchema>,
  attempt: { idempotencyKey: string; runId: string; key: string; attempt: number; startedAt: string; nodeStartedAt: string },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('pipeline_node_attempts')
      .values({ idempotency_key: attempt.idempotencyKey, run_id: attempt.runId, node_key: attempt.key, attempt: attempt.attempt, state: 'running', output: null, error: null, started_at: attempt.startedAt, ended_at: null })
      .execute();
    await trx
      .updateTable('pipeline_nodes')
      .set({ state: 'running', attempts: attempt.attempt, started_at: attempt.nodeStartedAt, error: null })
      .where('run_id', '=', attempt.runId)
      .where('key', '=', attempt.key)
      .execute();
  });
}

export async function finishPipelineNodeAttempt(db: Kysely<WorkspaceSchema>, idempotencyKey: string, outcome: { state: 'succeeded' | 'failed'; output?: string; error?: string; at: string }): Promise<void> {
  await db
    .updateTable('pipeline_node_attempts')
    .set({ state: outcome.state, output: outcome.output ?? null, error: outcome.error ?? null, ended_at: outcome.at })
    .where('idempotency_key', '=', idempotencyKey)
    .execute();
}
