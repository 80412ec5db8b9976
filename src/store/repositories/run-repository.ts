import { CompiledQuery, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { RunLiveness, RunState, type Run } from '../../schemas/run.js';
import type { RunTable, WorkspaceSchema } from '../workspace-schema.js';
import { InheritedRules } from '../../core/policy/inherited-rules.js';
import { enumColumn, jsonColumn } from './column-parsers.js';
import { queryPerShape, reusableQuery } from '../reusable-query.js';

const parseState = enumColumn('runs', 'state', RunState.options);
const parseLiveness = enumColumn('runs', 'liveness', RunLiveness.options);
// A damaged ceiling fails loudly rather than reading as "no ceiling" (SEC-9 fails closed).
const parseInheritedRules = jsonColumn('runs', 'inherited_rules', InheritedRules);

/** The one mapper from a `runs` row (HAR-6). Counters absent on old rows read as zero. */
export function toRun(row: Selectable<RunTable>): Run {
  return {
    id: row.id,
    agentId: row.agent_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    parentRunId: row.parent_run_id,
    state: parseState(row.state, row.id),
    liveness: parseLiveness(row.liveness, row.id),
    deliverableFailed: row.deliverable_failed === 1,
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    mode: row.mode,
    autonomy: row.autonomy,
    model: row.model,
    depth: row.depth ?? 0,
    usage: {
      inputTokens: row.input_tokens ?? 0,
      outputTokens: row.output_tokens ?? 0,
      cacheReadTokens: row.cache_read_tokens ?? 0,
      cacheWriteTokens: row.cache_write_tokens ?? 0,
    },
    costUsd: row.cost_usd ?? 0,
    sandbox: row.sandbox,
    inheritedRules: row.inherited_rules === null ? [] : parseInheritedRules(row.inherited_rules, row.id),
  };
}

/** The row of a run, for writing it back (the inverse of {@link toRun}). */
export function toRunRow(run: Run): Insertable<RunTable> {
  return {
    id: run.id,
    agent_id: run.agentId,
    space_id: run.spaceId,
    conversation_id: run.conversationId,
    parent_run_id: run.parentRunId,
    state: run.state,
    liveness: run.liveness,
    deliverable_failed: run.deliverableFailed ? 1 : 0,
    error: run.error,
    created_at: run.createdAt,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    mode: run.mode,
    autonomy: run.autonomy,
    model: run.model,
    depth: run.depth,
    input_tokens: run.usage.inputTokens,
    output_tokens: run.usage.outputTokens,
    cache_read_tokens: run.usage.cacheReadTokens,
    cache_write_tokens: run.usage.cacheWriteTokens,
    cost_usd: run.costUsd,
    sandbox: run.sandbox,
    inherited_rules: run.inheritedRules.length === 0 ? null : JSON.stringify(run.inheritedRules),
  };
}

/** The columns of a run a change may touch (everything but id, owner and creation time). */
export type RunChange = Partial<Omit<Run, 'id' | 'agentId' | 'spaceId' | 'conversationId' | 'parentRunId' | 'createdAt' | 'depth' | 'inheritedRules'>>;

/** The columns a change writes (only those it sets), for {@link updateRun}, {@link endRun} and the run end written with its rows. */
export function toRunPatch(change: RunChange): Updateable<RunTable> {
  const patch: Updateable<RunTable> = {};
  if (change.state !== undefined) patch.state = change.state;
  if (change.liveness !== undefined) patch.liveness = change.liveness;
  if (change.deliverableFailed !== undefined) patch.deliverable_failed = change.deliverableFailed ? 1 : 0;
  if (change.error !== undefined) patch.error = change.error;
  if (change.startedAt !== undefined) patch.started_at = change.startedAt;
  if (change.endedAt !== undefined) patch.ended_at = change.endedAt;
  if (change.mode !== undefined) patch.mode = change.mode;
  if (change.autonomy !== undefined) patch.autonomy = change.autonomy;
  if (change.model !== undefined) patch.model = change.model;
  if (change.usage !== undefined) {
    patch.input_tokens = change.usage.inputTokens;
    patch.output_tokens = change.usage.outputTokens;
    patch.cache_read_tokens = change.usage.cacheReadTokens;
    patch.cache_write_tokens = change.usage.cacheWriteTokens;
  }
  if (change.costUsd !== undefined) patch.cost_usd = change.costUsd;
  if (change.sandbox !== undefined) patch.sandbox = change.sandbox;
  return patch;
}

/** One run row per turn (more with subagents): compiled once per database. */
const runInsert = queryPerShape();

/** A run's insert as a query, to be folded into a statement with other rows (`insertRunWithDispatch`). */
export function runInsertQuery(db: Kysely<WorkspaceSchema>, run: Run) {
  return db.insertInto('runs').values(toRunRow(run));
}

export async function insertRun(db: Kysely<WorkspaceSchema>, run: Run): Promise<void> {
  const row = toRunRow(run);
  await runInsert(db, 'row', Object.values(row), () => db.insertInto('runs').values(row));
}

/** A run's row is written three times per turn, always with one of a few column sets: compiled once per set. */
const runUpdate = queryPerShape();

/** Writes the changed columns only (a concurrent change to another column is kept). */
export async function updateRun(db: Kysely<WorkspaceSchema>, runId: string, change: RunChange): Promise<void> {
  const patch = toRunPatch(change);
  const columns = Object.keys(patch) as Array<keyof typeof patch>;
  if (columns.length === 0) return;
  await runUpdate(db, columns.join(','), [...columns.map((column) => patch[column]), runId], () => db.updateTable('runs').set(patch).where('id', '=', runId));
}

/**
 * Writes a change that ends the run, and says whether a message waits for that end (HAR-5): one
 * statement, so the processes that hear the end claim held messages only when there are some. Row
 * locking orders it against {@link markMessagesHeld} on the same row: either this returns the flag
 * that hold set, or the hold's statement returns this end's state and the hold starts its message.
 */
export async function endRun(db: Kysely<WorkspaceSchema>, runId: string, change: RunChange): Promise<{ messagesHeld: boolean }> {
  const row = await db.updateTable('runs').set(toRunPatch(change)).where('id', '=', runId).returning('messages_held').executeTakeFirst();
  return { messagesHeld: row?.messages_held === 1 };
}

/** A message now waits for the run's end (HAR-5): marks the run so and returns its state (null: no such run). */
export async function markMessagesHeld(db: Kysely<WorkspaceSchema>, runId: string): Promise<RunState | null> {
  const row = await db.updateTable('runs').set({ messages_held: 1 }).where('id', '=', runId).returning('state').executeTakeFirst();
  return row ? parseState(row.state, runId) : null;
}

/** A run by id: read on every turn, compiled once per database. */
const runById = reusableQuery((db, runId: string) => db.selectFrom('runs').selectAll().where('id', '=', runId));

export async function findRun(db: Kysely<WorkspaceSchema>, runId: string): Promise<Run | null> {
  const [row] = await runById(db, runId);
  return row ? toRun(row) : null;
}

/**
 * A run by id and the configuration's version beside it, in one statement: a worker starting a
 * queued run reads both, and on PostgreSQL each statement is a round trip and a wake-up (NF-SCALE).
 */
const runAndConfigVersionById = reusableQuery((db, runId: string) =>
  db
    .selectFrom('runs')
    .selectAll('runs')
    .select((eb) => eb.selectFrom('config_version').select('version').where('id', '=', 1).as('config_version_now'))
    .where('runs.id', '=', runId),
);

/** The run (null: no such run) and the configuration's version read in the same statement (`pinConfigVersionAt`). */
export async function findRunWithConfigVersion(db: Kysely<WorkspaceSchema>, runId: string): Promise<{ run: Run; configVersion: number } | null> {
  const [row] = await runAndConfigVersionById(db, runId);
  if (!row) return null;
  const { config_version_now: configVersion, ...runRow } = row;
  return { run: toRun(runRow), configVersion: Number(configVersion) };
}

/** Who runs a queued run, where and how, as its job says: a row that disagrees is not the job's run. */
export interface QueuedRunPlace {
  agentId: string;
  conversationId: string | null;
  spaceId: string | null;
  mode: string;
  autonomy: string;
}

/**
 * PostgreSQL: {@link findRunWithConfigVersion} that also starts the run — `running`, `startedAt`
 * and `model` — in the same statement, when the run is still `queued`, agrees with its job (`place`)
 * and the configuration's version is still `version` (the one `model` was worked out under). The
 * row returned is the run as it was before that start (the statement's snapshot); `started` says
 * whether it was written. NF-SCALE: a worker's run start is one round trip instead of two.
 */
export async function startQueuedRunAt(
  db: Kysely<WorkspaceSchema>,
  runId: string,
  place: QueuedRunPlace,
  version: number,
  start: { startedAt: string; model: string | null },
): Promise<{ run: Run; configVersion: number; started: boolean } | null> {
  const { rows } = await db.executeQuery<Selectable<RunTable> & { config_version_now: number | string; started_now: boolean }>(
    CompiledQuery.raw(START_QUEUED_RUN, [runId, start.startedAt, start.model, place.agentId, place.conversationId, place.spaceId, place.mode, place.autonomy, version]),
  );
  const row = rows[0];
  if (!row) return null;
  const { config_version_now: configVersion, started_now: started, ...runRow } = row;
  return { run: toRun(runRow), configVersion: Number(configVersion), started: Boolean(started) };
}

/**
 * {@link startQueuedRunAt}'s statement (PostgreSQL), written out: it is on every queued run's path, and
 * building and compiling it with Kysely cost a worker a third of a millisecond per run, more than the
 * round trip it saves. The outer select reads the statement's snapshot: the run before its start.
 */
const START_QUEUED_RUN = `with started as (
    update runs set state = 'running', started_at = $2, model = $3
     where id = $1 and state = 'queued' and agent_id = $4
       and conversation_id is not distinct from $5::text and space_id is not distinct from $6::text
       and mode is not distinct from $7::text and autonomy is not distinct from $8::text
       and (select version from config_version where id = 1) = $9::integer
    returning id
  )
  select runs.*, (select version from config_version where id = 1) as config_version_now, exists (select 1 from started) as started_now
    from runs where runs.id = $1`;

export interface RunFilter {
  conversationId?: string | undefined;
  agentId?: string | undefined;
  spaceId?: string | undefined;
  state?: RunState | undefined;
  /** Only turns: runs without a parent. */
  topLevel?: boolean | undefined;
  limit: number;
}

/** Runs, newest first. */
export async function listRuns(db: Kysely<WorkspaceSchema>, filter: RunFilter): Promise<Run[]> {
  let query = db.selectFrom('runs').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit);
  if (filter.conversationId) query = query.where('conversation_id', '=', filter.conversationId);
  if (filter.agentId) query = query.where('agent_id', '=', filter.agentId);
  if (filter.spaceId) query = query.where('space_id', '=', filter.spaceId);
  if (filter.state) query = query.where('state', '=', filter.state);
  if (filter.topLevel) query = query.where('parent_run_id', 'is', null);
  return (await query.execute()).map(toRun);
}

/** Every run recorded in a conversation, in no particular order. */
export async function runsInConversation(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<Run[]> {
  return (await db.selectFrom('runs').selectAll().where('conversation_id', '=', conversationId).execute()).map(toRun);
}

/** The runs whose parent is one of `parentIds` (one level of a run tree). */
export async function childRuns(db: Kysely<WorkspaceSchema>, parentIds: readonly string[]): Promise<Run[]> {
  if (parentIds.length === 0) return [];
  return (await db.selectFrom('runs').selectAll().where('parent_run_id', 'in', [...parentIds]).execute()).map(toRun);
}

/** Ids of runs still queued or running (all of them, or one agent's). */
export async function unfinishedRunIds(db: Kysely<WorkspaceSchema>, agentId?: string): Promise<string[]> {
  let query = db.selectFrom('runs').select('id').where('state', 'in', ['queued', 'running']);
  if (agentId !== undefined) query = query.where('agent_id', '=', agentId);
  return (await query.execute()).map((row) => row.id);
}

/**
 * Where runs are queued or running now: each conversation once, with its space (the sidebar's
 * "running" mark). Sub-runs count for the conversation they work in.
 */
export async function conversationsWithUnfinishedRuns(db: Kysely<WorkspaceSchema>): Promise<Array<{ spaceId: string | null; conversationId: string }>> {
  const rows = await db
    .selectFrom('runs')
    .select(['space_id', 'conversation_id'])
    .distinct()
    .where('state', 'in', ['queued', 'running'])
    .where('conversation_id', 'is not', null)
    .execute();
  return rows.map((row) => ({ spaceId: row.space_id, conversationId: row.conversation_id! }));
}

/** The space and conversation each of these runs belongs to (runs outside a conversation are left out). */
export async function placesOfRuns(db: Kysely<WorkspaceSchema>, runIds: readonly string[]): Promise<Map<string, { spaceId: string | null; conversationId: string }>> {
  if (runIds.length === 0) return new Map();
  const rows = await db.selectFrom('runs').select(['id', 'space_id', 'conversation_id']).where('id', 'in', [...runIds]).where('conversation_id', 'is not', null).execute();
  return new Map(rows.map((row) => [row.id, { spaceId: row.space_id, conversationId: row.conversation_id! }]));
}

/** Unfinished runs with their state (a `running` run with no owner is an orphan, a `queued` one waits in the queue). */
export async function unfinishedRunStates(db: Kysely<WorkspaceSchema>): Promise<Array<{ id: string; state: 'queued' | 'running' }>> {
  const rows = await db.selectFrom('runs').select(['id', 'state']).where('state', 'in', ['queued', 'running']).execute();
  return rows.map((row) => ({ id: row.id, state: row.state as 'queued' | 'running' }));
}

/**
 * AG-3 input for many agents at once, in one indexed query whatever their number: each agent's
 * newest run (state and liveness) and whether any of its runs is in progress. An agent without a
 * run has neither, so reading "in progress" beside the newest run misses nothing (one statement
 * instead of two on every agent lookup).
 */
/** Each agent's newest run and whether any of its runs is running, for several agents. */
function newestRunsQuery(db: Kysely<WorkspaceSchema>, agents: string[]) {
  return db
    .selectFrom('runs as r')
    .select(['r.id', 'r.agent_id', 'r.state', 'r.liveness'])
    .select(({ exists, selectFrom }) =>
      exists(selectFrom('runs as busy').select('busy.id').whereRef('busy.agent_id', '=', 'r.agent_id').where('busy.state', '=', 'running')).as('any_running'),
    )
    .where('r.agent_id', 'in', agents)
    .where(({ eb, selectFrom }) =>
      eb(
        'r.id',
        '=',
        selectFrom('runs as newest')
          .select('newest.id')
          .whereRef('newest.agent_id', '=', 'r.agent_id')
          .orderBy('newest.created_at', 'desc')
          .orderBy('newest.id', 'desc')
          .limit(1),
      ),
    );
}

/**
 * {@link newestRunStates} for one agent (an agent looked up for a message, every turn), compiled once
 * per database. Its newest run by an index walk from the top (`runs_by_agent`), one row read — not
 * {@link newestRunsQuery}'s form, whose newest-run subquery is correlated to each of the agent's runs:
 * PostgreSQL ran it once per run of the agent, so every POST cost time in proportion to the agent's
 * runs and a burst of 1,000 turns to one agent grew quadratically (measured: 27 ms a POST at 2,000
 * runs against 0.15 ms; 10 backends busy with it for most of an 18–28 s acceptance).
 */
const newestRunOfAgent = reusableQuery((db, agentId: string) =>
  db
    .selectFrom('runs as r')
    .select(['r.id', 'r.agent_id', 'r.state', 'r.liveness'])
    .select(({ exists, selectFrom }) => exists(selectFrom('runs as busy').select('busy.id').where('busy.agent_id', '=', agentId).where('busy.state', '=', 'running')).as('any_running'))
    .where('r.agent_id', '=', agentId)
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(1),
);

export async function newestRunStates(
  db: Kysely<WorkspaceSchema>,
  agentIds: readonly string[],
): Promise<{ newest: Map<string, Pick<Run, 'state' | 'liveness'>>; running: Set<string> }> {
  if (agentIds.length === 0) return { newest: new Map(), running: new Set() };
  const rows = agentIds.length === 1 ? await newestRunOfAgent(db, agentIds[0]!) : await newestRunsQuery(db, [...agentIds]).execute();
  return {
    newest: new Map(rows.map((row) => [row.agent_id, { state: parseState(row.state, row.id), liveness: parseLiveness(row.liveness, row.id) }])),
    // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
    running: new Set(rows.filter((row) => Boolean(row.any_running)).map((row) => row.agent_id)),
  };
}

/** How many runs are queued or running (a workspace is not deleted under them). */
export async function countUnfinishedRuns(db: Kysely<WorkspaceSchema>): Promise<number> {
  const row = await db
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** An agent's latest completed runs that used tokens, newest first (PLAN-3's cost history). */
export async function completedRunUsage(db: Kysely<WorkspaceSchema>, agentId: string, limit: number): Promise<Array<{ inputTokens: number; outputTokens: number }>> {
  const rows = await db
    .selectFrom('runs')
    .select(['input_tokens', 'output_tokens'])
    .where('agent_id', '=', agentId)
    .where('state', '=', 'completed')
    .where('input_tokens', '>', 0)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ inputTokens: row.input_tokens ?? 0, outputTokens: row.output_tokens ?? 0 }));
}

/** Who ran a run and the run that started it (one step up a delegation chain, POL-8). */
export async function runParentLink(db: Kysely<WorkspaceSchema>, runId: string): Promise<{ agentId: string; parentRunId: string | null } | null> {
  const row = await db.selectFrom('runs').select(['agent_id', 'parent_run_id']).where('id', '=', runId).executeTakeFirst();
  return row ? { agentId: row.agent_id, parentRunId: row.parent_run_id } : null;
}
