/**
 * NF-SCALE: time to drain 1,000 queued no-op jobs, and jobs per second, with 1, 2 and 4
 * workers claiming from the queue — pg-boss on PostgreSQL (each worker its own pg-boss instance and
 * connection pool, as separate worker processes have) against the embedded SQLite queue (one
 * process, so its "workers" are concurrent claimers on one file). A job is claimed with a lease and
 * completed: the queue's own cost per unit of work, with no agent run behind it. PostgreSQL: the
 * tests' throw-away server (CC_TEST_POSTGRES_URL, or scripts/start-test-postgres.sh). The host's load
 * average is printed: on a shared 2-core machine wall-clock figures are inflated by contention.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobQueue } from '../src/services/pipelines/job-queue.js';
import { PgBossConnection } from '../src/services/pipelines/pg-boss-job-queue.js';
import { SqliteJobQueue } from '../src/services/pipelines/sqlite-job-queue.js';
import { WorkspaceDatabase } from '../src/store/workspace-database.js';
import { EMBEDDED_STORE } from '../src/store/store-location.js';
import { freshTestDatabase } from '../test/support/test-database.js';
import type { BenchFigure } from './figure.js';

const JOBS = 1_000;
const WORKER_COUNTS = [1, 2, 4];

/** Each worker claims and completes until the queue is empty; resolves with the drain time in ms. */
async function drain(queues: JobQueue[]): Promise<number> {
  const started = performance.now();
  await Promise.all(
    queues.map(async (queue, index) => {
      for (;;) {
        const job = await queue.claim('runs', `worker-${index}`, 60_000);
        if (!job) return;
        if (!(await queue.complete(job.id, `worker-${index}`))) throw new Error(`job ${job.id} lost its lease`);
      }
    }),
  );
  return performance.now() - started;
}

async function fill(queue: JobQueue): Promise<void> {
  for (let index = 0; index < JOBS; index += 1) await queue.enqueue({ queue: 'runs', payload: { run: index } });
}

async function sqliteDrain(workers: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-bench-scale-'));
  const database = await WorkspaceDatabase.open('ws_bench', dir, EMBEDDED_STORE);
  try {
    const queue = new SqliteJobQueue(database.db);
    await fill(queue);
    return await drain(Array.from({ length: workers }, () => queue));
  } finally {
    await database.closeAndDrop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function pgBossDrain(workers: number): Promise<number> {
  const database = await freshTestDatabase();
  const connections = Array.from({ length: workers }, () => new PgBossConnection(database.url));
  try {
    for (const connection of connections) await connection.start();
    await fill(connections[0]!.queueFor('ws_bench'));
    return await drain(connections.map((connection) => connection.queueFor('ws_bench')));
  } finally {
    for (const connection of connections) await connection.stop();
    await database.drop();
  }
}

export default async function scaleOutBench(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [{ metric: 'load_average_1m_at_start', value: loadavg()[0]!, unit: '' }];
  for (const [name, run] of [
    ['sqlite', sqliteDrain],
    ['pgboss', pgBossDrain],
  ] as const) {
    for (const workers of WORKER_COUNTS) {
      const ms = await run(workers);
      figures.push({ metric: `${name}_drain_${JOBS}_jobs_${workers}_workers`, value: ms, unit: 'ms' });
      figures.push({ metric: `${name}_jobs_per_s_${workers}_workers`, value: (JOBS / ms) * 1_000, unit: 'jobs/s' });
    }
  }
  return figures;
}
