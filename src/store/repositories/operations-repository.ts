import { sql, type Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** Whether the store answers a trivial query (readiness). */
export async function pingStore(db: Kysely<never>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** How many runs are in each state (states with none are absent). */
export async function countRunsByState(db: Kysely<WorkspaceSchema>): Promise<Array<{ state: string; count: number }>> {
  const rows = await db.selectFrom('runs').select(['state', (eb) => eb.fn.countAll().as('count')]).groupBy('state').execute();
  return rows.map((row) => ({ state: row.state, count: Number(row.count) }));
}

/** How many pipeline jobs each queue holds, per status (queue depth, PIPE-1). */
export async function countJobsByStatus(db: Kysely<WorkspaceSchema>): Promise<Array<{ queue: string; status: string; count: number }>> {
  const rows = await db.selectFrom('pipeline_jobs').select(['queue', 'status', (eb) => eb.fn.countAll().as('count')]).groupBy(['queue', 'status']).execute();
  return rows.map((row) => ({ queue: row.queue, status: row.status, count: Number(row.count) }));
}
