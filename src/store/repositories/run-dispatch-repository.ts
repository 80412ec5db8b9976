import { PostgresAdapter, type Compilable, type Kysely } from 'kysely';
import { oneStatement } from '../one-statement.js';
import type { Run } from '../../schemas/run.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { insertRun, runInsertQuery } from './run-repository.js';

/** Rows written with a run (a turn's message): as statements to run in its transaction, or as inserts to fold into one statement. */
export interface RowsWithRun {
  write(db: Kysely<WorkspaceSchema>): Promise<void>;
  /** The same rows as insert queries without `returning` (PostgreSQL writes them with the run in one statement). */
  inserts?(db: Kysely<WorkspaceSchema>): Array<Compilable<unknown>>;
}

/**
 * A run an API process queues for the workers, and the job payload that goes with it,
 * are committed together — so a process that dies before its enqueue leaves a row a sweep can
 * re-enqueue, never a `queued` run nobody will ever claim.
 * On PostgreSQL the rows are written by one statement (data-modifying `with` clauses, atomic as any
 * statement): a transaction of three inserts was five round trips on every POSTed turn, and on a
 * loaded machine each round trip is a wake-up of the database and of this process (NF-SCALE,
 * bursts). SQLite answers in-process, so its transaction stays.
 */
export async function insertRunWithDispatch(db: Kysely<WorkspaceSchema>, run: Run, payload: unknown, recordedAtMs: number, alongside?: RowsWithRun): Promise<void> {
  const dispatch = { run_id: run.id, payload: JSON.stringify(payload), recorded_at_ms: recordedAtMs };
  if (db.getExecutor().adapter instanceof PostgresAdapter && (!alongside || alongside.inserts)) {
    const inserts = [...(alongside?.inserts?.(db) ?? []), runInsertQuery(db, run), db.insertInto('run_dispatches').values(dispatch)];
    await db.executeQuery(oneStatement(inserts.map((insert) => insert.compile())));
    return;
  }
  await db.transaction().execute(async (trx) => {
    await alongside?.write(trx);
    await insertRun(trx, run);
    await trx.insertInto('run_dispatches').values(dispatch).execute();
  });
}

/** The enqueue is confirmed (or the run left `queued`): nothing is left to dispatch. */
export async function deleteRunDispatch(db: Kysely<WorkspaceSchema>, runId: string): Promise<void> {
  await db.deleteFrom('run_dispatches').where('run_id', '=', runId).execute();
}

/** Dispatch rows recorded before `beforeMs`, oldest first, with their run's state (null: the run is gone). */
export async function staleRunDispatches(
  db: Kysely<WorkspaceSchema>,
  beforeMs: number,
  limit: number,
): Promise<Array<{ runId: string; payload: unknown; runState: string | null }>> {
  const rows = await db
    .selectFrom('run_dispatches as d')
    .leftJoin('runs as r', 'r.id', 'd.run_id')
    .select(['d.run_id', 'd.payload', 'r.state'])
    .where('d.recorded_at_ms', '<', beforeMs)
    .orderBy('d.recorded_at_ms')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ runId: row.run_id, payload: parsePayload(row.payload), runState: row.state ?? null }));
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
