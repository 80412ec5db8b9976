import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { RunAffinity } from '../../src/services/runs/run-affinity.js';
import { freshTestDatabase } from '../support/test-database.js';

/**
 * Schema changes in pg-boss's schema made by several processes at once.
 *
 * Every process creates pg-boss queues lazily (a workspace's `pipeline-nodes`, `runs`,
 * `approval-timeouts`, its own `runs-<process id>`), and a new workspace makes every process create
 * them at about the same moment. pg-boss's `create_queue` inserts the queue row and then adds a
 * foreign key to the queue table, so two processes creating *different* queues at once can deadlock
 * in PostgreSQL; the loser's enqueue failed (a 500 seen in test/scale-out/worker-kill.test.ts).
 * Queue creation is serialized across processes by an advisory lock: no enqueue may fail for it.
 *
 * Every process that executes runs also creates the run-affinity tables on start (`cc_processes`,
 * `cc_run_owners`, `cc_conversation_affinity`). `create table if not exists` is not safe against
 * another session doing the same at the same moment: the loser failed with `type "cc_run_owners"
 * already exists` (a unique violation in the catalog), which ended a `worker` started beside another
 * in test/scale-out/run-queue.test.ts. They are created under the same lock.
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

describe.skipIf(!enabled)('pg-boss schema changes from several processes', () => {
  it('three connections creating 12 workspaces’ queues at once all enqueue, each job stored once', async () => {
    for (let i = 0; i < 3; i++) connections.push(new PgBossConnection(database.url));
    await Promise.all(connections.map((connection) => connection.start()));
    const workspaces = Array.from({ length: 12 }, (_, index) => `ws${index}`);
    const queues = ['pipeline-nodes', 'runs', 'approval-timeouts'];
    const results = await Promise.allSettled(
      workspaces.flatMap((workspace, index) =>
        queues.flatMap((queue) =>
          connections.map((connection, which) => connection.queueFor(workspace).enqueue({ queue, payload: { from: which }, dedupeKey: `${workspace}-${queue}-${which}-${index}` })),
        ),
      ),
    );
    const failures = results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
    expect(failures).toEqual([]);
    const counts = await connections[0]!.countJobs('ws0');
    expect(counts.reduce((sum, row) => sum + row.count, 0)).toBe(queues.length * connections.length);
  }, 180_000);

  it('six processes creating the run-affinity tables at once on a fresh database all start, and each heartbeat is stored', async () => {
    const starting: PgBossConnection[] = [];
    for (let i = 0; i < 6; i++) starting.push(new PgBossConnection(database.url));
    connections.push(...starting);
    await Promise.all(starting.map((connection) => connection.start()));
    // No process has created the affinity tables yet: all six do it at once.
    const affinities = starting.map((connection) => new RunAffinity(connection.sql, 10_000));
    const results = await Promise.allSettled(affinities.map((affinity, index) => affinity.heartbeat(`process-${index}`)));
    expect(results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
    const rows = await starting[0]!.sql.query<{ process_id: string }>('select process_id from cc_pgboss.cc_processes order by process_id');
    expect(rows.rows.map((row) => row.process_id)).toEqual(affinities.map((_, index) => `process-${index}`));
  }, 120_000);
});
