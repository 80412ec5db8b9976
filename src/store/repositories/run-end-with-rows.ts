import { PostgresAdapter, type Compilable, type Kysely, type Updateable } from 'kysely';
import { oneStatement } from '../one-statement.js';
import type { RunTable, WorkspaceSchema } from '../workspace-schema.js';
import type { RunChange } from './run-repository.js';

/** Whether {@link endRunWithRows} can write on this handle (PostgreSQL; SQLite answers in-process, so two statements cost it nothing). */
export function writesRunEndWithRows(db: Kysely<WorkspaceSchema>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * How each column a change may touch is written. A field added to `RunChange` fails to compile here
 * until it is mapped, so an end written through this file never drops a column `updateRun` writes.
 */
const COLUMNS: { [K in keyof Required<RunChange>]: (patch: Updateable<RunTable>, value: Required<RunChange>[K]) => void } = {
  state: (patch, value) => (patch.state = value),
  liveness: (patch, value) => (patch.liveness = value),
  deliverableFailed: (patch, value) => (patch.deliverable_failed = value ? 1 : 0),
  error: (patch, value) => (patch.error = value),
  startedAt: (patch, value) => (patch.started_at = value),
  endedAt: (patch, value) => (patch.ended_at = value),
  mode: (patch, value) => (patch.mode = value),
  autonomy: (patch, value) => (patch.autonomy = value),
  model: (patch, value) => (patch.model = value),
  usage: (patch, value) => {
    patch.input_tokens = value.inputTokens;
    patch.output_tokens = value.outputTokens;
    patch.cache_read_tokens = value.cacheReadTokens;
    patch.cache_write_tokens = value.cacheWriteTokens;
  },
  costUsd: (patch, value) => (patch.cost_usd = value),
  sandbox: (patch, value) => (patch.sandbox = value),
  // Only the event of a run's end carries it; the column is set by a hold (`markMessagesHeld`), never by a change.
  messagesHeld: () => undefined,
};

function toPatch(change: RunChange): Updateable<RunTable> {
  const patch: Updateable<RunTable> = {};
  for (const key of Object.keys(change) as Array<keyof RunChange>) {
    const value = change[key];
    if (value !== undefined) (COLUMNS[key] as (patch: Updateable<RunTable>, value: unknown) => void)(patch, value);
  }
  return patch;
}

/**
 * PostgreSQL: writes a change that ends a run together with rows that go with its end (the run's
 * answer message), in one statement — each insert a data-modifying `with` clause before the run's
 * update, which returns whether messages wait for the end, as `endRun` does (HAR-5). One statement
 * is atomic: the end and its rows land together or not at all. NF-SCALE: a round trip less at every
 * run's end on a worker.
 */
export async function endRunWithRows(db: Kysely<WorkspaceSchema>, runId: string, change: RunChange, rows: ReadonlyArray<Compilable<unknown>>): Promise<{ messagesHeld: boolean }> {
  const queries = [...rows.map((row) => row.compile()), db.updateTable('runs').set(toPatch(change)).where('id', '=', runId).returning('messages_held').compile()];
  const result = await db.executeQuery<{ messages_held: number }>(oneStatement(queries));
  return { messagesHeld: result.rows[0]?.messages_held === 1 };
}
