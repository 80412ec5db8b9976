import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { freshTestDatabase } from '../support/test-database.js';

/**
 * Issue 16: every process creates pg-boss queues lazily (a workspace's `pipeline-nodes`, `runs`,
 * `approval-timeouts`, its own `runs-<process id>`), and a new workspace makes every process create
 * them at about the same moment. pg-boss's `create_queue` inserts the queue row and then adds a
 * foreign key to the queue table, so two processes creating *different* queues at once can deadlock
 * in PostgreSQL; the loser's enqueue failed (a 500 seen in test/scale-out/worker-kill.test.ts).
 * Queue creation is serialized across processes by an advisory lock: no enqueue may fail for it.
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

describe.skipIf(!enabled)('pg-boss queue creation from several processes (issue 16)', () => {
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
});
