import type { Kysely } from 'kysely';
import type { Run } from '../../schemas/run.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { insertRun } from './run-repository.js';

/**
 * A run an API process queues for the workers, and the job payload that goes with it,
 * are committed together — so a process that dies before its enqueue leaves a row a sweep can
 * re-enqueue, never a `queued` run nobody will ever claim.
 */
export async function insertRunWithDispatch(db: Kysely<WorkspaceSchema>, run: Run, payload: unknown, recordedAtMs: number, alongside?: (trx: Kysely<WorkspaceSchema>) => Promise<void>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await alongside?.(trx);
    await insertRun(trx, run);
    await trx.insertInto('run_dispatches').values({ run_id: run.id, payload: JSON.stringify(payload), recorded_at_ms: recordedAtMs }).execute();
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
