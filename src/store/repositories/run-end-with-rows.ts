import { CompiledQuery, PostgresAdapter, type Compilable, type Kysely } from 'kysely';
import { oneStatement } from '../one-statement.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { toRunPatch, type RunChange } from './run-repository.js';

/** Whether {@link endRunWithRows} can write on this handle (PostgreSQL; SQLite answers in-process, so two statements cost it nothing). */
export function writesRunEndWithRows(db: Kysely<WorkspaceSchema>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Writes of another owner sent in the run's end statement: data-modifying `with` clauses
 * (`name as (…)`, comma-separated) whose parameters are numbered from `first`, on tables the
 * workspace's connection reaches by qualified names (a queued run's job completion, in pg-boss's schema).
 */
export interface EndStatementPart {
  ctes(first: number): string;
  values: unknown[];
}

/**
 * PostgreSQL: writes a change that ends a run together with rows that go with its end (the run's
 * answer message) and `part` (a queued run's job completion), in one statement — each insert a
 * data-modifying `with` clause before the run's update, which returns whether messages wait for the
 * end, as `endRun` does (HAR-5). One statement is atomic: the end, its rows and the part land
 * together or not at all. NF-SCALE: a round trip less at every run's end on a worker, and another
 * for the part.
 */
export async function endRunWithRows(db: Kysely<WorkspaceSchema>, runId: string, change: RunChange, rows: ReadonlyArray<Compilable<unknown>>, part?: EndStatementPart): Promise<{ messagesHeld: boolean }> {
  const inserts = rows.map((row) => row.compile());
  const end = db.updateTable('runs').set(toRunPatch(change)).where('id', '=', runId).returning('messages_held').compile();
  let statement = oneStatement([...inserts, end]);
  if (part) statement = withPartBeforeLast(statement, end, inserts.length, part);
  const result = await db.executeQuery<{ messages_held: number }>(statement);
  return { messagesHeld: result.rows[0]?.messages_held === 1 };
}

/**
 * `statement` (made by `oneStatement` of `clauses` queries, then `end`) with `part`'s clauses after
 * its own, before `end`; the part's parameters are numbered after the statement's. The part's
 * clauses read none of the others, nor the others them.
 */
function withPartBeforeLast(statement: CompiledQuery<unknown>, end: CompiledQuery<unknown>, clauses: number, part: EndStatementPart): CompiledQuery<unknown> {
  const own = statement.parameters.length;
  // `end`'s text as `oneStatement` renumbered it: its parameters come last.
  const offset = own - end.parameters.length;
  const last = end.sql.replace(/\$(\d+)/g, (_, index: string) => `$${Number(index) + offset}`);
  if (!statement.sql.endsWith(last)) throw new Error('the run end statement is not shaped as expected');
  const head = statement.sql.slice(0, statement.sql.length - last.length).trimEnd();
  const partClauses = part.ctes(own + 1);
  return CompiledQuery.raw(clauses > 0 ? `${head}, ${partClauses} ${last}` : `with ${partClauses} ${last}`, [...statement.parameters, ...part.values]);
}
