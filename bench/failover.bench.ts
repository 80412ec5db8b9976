/**
 * SPEC §15 failover in seconds: one `serve --role api` and two `worker`s (real child processes, the
 * default lease unless FAILOVER_BENCH_LEASE_SECONDS is set — 30 gives the figure before) on the
 * tests' throw-away PostgreSQL server. A three-step pipeline (each step `sleep 1`, so ~3 s of work)
 * runs once to warm up, once undisturbed, again with the worker executing its middle step killed
 * (`kill -9`), and — with a fresh worker in the dead one's place — with that worker sent SIGTERM
 * instead (workers run with `--grace-seconds 0`: the drain hands the step back at once).
 * Figures: both end-to-end times, and the detection time as the survivor recorded it
 * (`noticed_dead_at − heartbeat_at`, database clock). The host's load average is printed: on a
 * shared 2-core machine wall-clock figures are inflated by contention.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pollUntil } from '../test/support/plan-server-fixtures.js';
import { startServeProcess, startWorkerProcess } from '../test/support/serve-process.js';
import { freshTestDatabase } from '../test/support/test-database.js';
import { makeDataRoot } from '../test/support/test-server.js';
import type { BenchFigure } from './figure.js';

const STEPS = ['one', 'two', 'three'];

export default async function failoverBench(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [{ metric: 'load_average_1m_at_start', value: loadavg()[0]!, unit: '' }];
  const leaseArgs = process.env.FAILOVER_BENCH_LEASE_SECONDS ? ['--lease-seconds', process.env.FAILOVER_BENCH_LEASE_SECONDS] : [];
  const database = await freshTestDatabase();
  const children: ChildProcess[] = [];
  const roots: string[] = [];
  try {
    const apiProcess = await startServeProcess({ CONTROL_CENTER_DATABASE_URL: database.url }, ['--role', 'api', '--no-default-workspace']);
    children.push(apiProcess.child);
    roots.push(apiProcess.dataRoot);
    const workerRoots = [await makeDataRoot(), await makeDataRoot()];
    roots.push(...workerRoots);
    const startWorker = (root: string) => startWorkerProcess(['--data-dir', root, '--grace-seconds', '0', ...leaseArgs], { CONTROL_CENTER_DATABASE_URL: database.url });
    const workers = await Promise.all(workerRoots.map(startWorker));
    children.push(...workers);
    const api = (method: string, path: string, body?: unknown) => apiProcess.api(method, path, body);
    const ws = (await api('POST', '/api/workspaces', { name: 'Failover bench' })).body.id as string;
    const pipeline = (
      await api('POST', `/api/workspaces/${ws}/pipelines`, {
        name: 'three seconds',
        nodes: STEPS.map((key, index) => ({
          key,
          type: 'bashScript',
          idempotent: true,
          ...(index > 0 ? { dependsOn: [STEPS[index - 1]] } : {}),
          script: 'echo started >> step.log; sleep 1',
        })),
      })
    ).body.pipeline.id as string;
    const runOnce = async (signal: NodeJS.Signals | null): Promise<number> => {
      const started = performance.now();
      const runId = (await api('POST', `/api/workspaces/${ws}/pipelines/${pipeline}/runs`, {})).body.id as string;
      if (signal) {
        const stepLog = (root: string) => readFile(join(root, 'workspaces', ws, 'pipeline-scratch', runId, 'two', 'step.log'), 'utf8').catch(() => '');
        const holder = await pollUntil(async () => (await Promise.all(workerRoots.map(stepLog))).findIndex((text) => text !== ''), (index) => index >= 0, 120_000);
        workers[holder]!.kill(signal);
        stopped.push(holder);
      }
      const finished = await pollUntil(() => api('GET', `/api/workspaces/${ws}/pipeline-runs/${runId}`), (response) => response.body.status !== 'running', 180_000);
      if (finished.body.status !== 'completed') throw new Error(`pipeline ended ${finished.body.status}`);
      return performance.now() - started;
    };
    const stopped: number[] = [];
    // A first run warms each worker (sandbox, executors' modules) so the timed runs compare alike.
    await runOnce(null);
    figures.push({ metric: 'plan_3_steps_undisturbed', value: await runOnce(null), unit: 'ms' });
    figures.push({ metric: 'plan_3_steps_worker_killed', value: await runOnce('SIGKILL'), unit: 'ms' });
    // The killed worker's place is taken by a fresh one (on a fresh data root), warmed by one run.
    const replaced = stopped.pop()!;
    workerRoots[replaced] = await makeDataRoot();
    roots.push(workerRoots[replaced]!);
    workers[replaced] = await startWorker(workerRoots[replaced]!);
    children.push(workers[replaced]!);
    await runOnce(null);
    figures.push({ metric: 'plan_3_steps_worker_sigterm', value: await runOnce('SIGTERM'), unit: 'ms' });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const dead = await pollUntil(
        async () => (await client.query<{ ms: number | null }>('select extract(epoch from (noticed_dead_at - heartbeat_at)) * 1000 as ms from cc_pgboss.cc_processes where noticed_dead_at is not null')).rows,
        (rows) => rows.length > 0,
        120_000,
      );
      figures.push({ metric: 'death_detection', value: Number(dead[0]!.ms), unit: 'ms' });
    } finally {
      await client.end();
    }
    figures.push({ metric: 'load_average_1m_at_end', value: loadavg()[0]!, unit: '' });
    return figures;
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const root of roots) await rm(root, { recursive: true, force: true });
    await database.drop();
  }
}
