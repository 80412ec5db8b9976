import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { RunAffinity } from '../../src/services/runs/run-affinity.js';
import { freshTestDatabase } from '../support/test-database.js';

/**
 * Issue 16: every process that executes runs creates the run-affinity tables on start
 * (`cc_processes`, `cc_run_owners`, `cc_conversation_affinity`). PostgreSQL's `create table if not
 * exists` is not safe against another session doing the same at the same moment: the loser fails
 * with `type "cc_run_owners" already exists` (a unique violation in the catalog), which ended a
 * `worker` started beside another in test/scale-out/run-queue.test.ts. The tables are created under
 * the same advisory lock as pg-boss's schema changes: no process may fail for it.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
const connections: PgBossConnection[] = [];

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
});
afterAll(async () => {
  for (const connection of connections) await connection.stop();
  if (enabled) await database.drop();
});

describe.skipIf(!enabled)('run-affinity tables created by several processes at once (issue 16)', () => {
  it('six processes starting together on a fresh database all start, and each sees the others’ heartbeats', async () => {
    for (let index = 0; index < 6; index++) connections.push(new PgBossConnection(database.url));
    // pg-boss's own start is serialized by pg-boss; the affinity tables are created right after it, all at once.
    await Promise.all(connections.map((connection) => connection.start()));
    const affinities = connections.map((connection) => new RunAffinity(connection.sql, 10_000));
    const results = await Promise.allSettled(affinities.map((affinity, index) => affinity.heartbeat(`process-${index}`)));
    expect(results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
    const rows = await connections[0]!.sql.query<{ process_id: string }>('select process_id from cc_pgboss.cc_processes order by process_id');
    expect(rows.rows.map((row) => row.process_id)).toEqual(affinities.map((_, index) => `process-${index}`));
  }, 120_000);
});
