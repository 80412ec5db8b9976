import { PostgresAdapter, type Compilable, type Kysely } from 'kysely';
import { oneStatement, type StatementPart } from '../one-statement.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { toRunPatch, type RunChange } from './run-repository.js';

/** Whether {@link endRunWithRows} can write on this handle (PostgreSQL; SQLite answers in-process, so two statements cost it nothing). */
export function writesRunEndWithRows(db: Kysely<WorkspaceSchema>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * PostgreSQL: writes a change that ends a run together with rows that go with its end (the run's
 * answer message) and `part` (a queued run's job completion), in one statement — each insert a
 * data-modifying `with` clause before the run's update, which returns whether messages wait for the
 * end, as `endRun` does (HAR-5). One statement is atomic: the end, its rows and the part land
 * together or not at all. NF-SCALE: a round trip less at every run's end on a worker, and another
 * for the part.
 */
export async function endRunWithRows(db: Kysely<WorkspaceSchema>, runId: string, change: RunChange, rows: ReadonlyArray<Compilable<unknown>>, part?: StatementPart): Promise<{ messagesHeld: boolean }> {
  const queries = [...rows.map((row) => row.compile()), db.updateTable('runs').set(toRunPatch(change)).where('id', '=', runId).returning('messages_held').compile()];
  const result = await db.executeQuery<{ messages_held: number }>(oneStatement(queries, part));
  return { messagesHeld: result.rows[0]?.messages_held === 1 };
}

