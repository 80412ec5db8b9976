/**
 * NF-SCALE: the SQLite side of `bench/runs-queue.bench.ts` — the same real agent runs
 * (one tool turn on the built-in harness against the scripted model: a `todo` call, then the
 * answer) through one embedded `control-center serve` child process on SQLite, the default
 * deployment. W + N conversations are created first (not timed); W warm-up turns
 * (BENCH_WARMUP_RUNS, default 30, as in the PostgreSQL bench) are posted and completed, their CPU
 * printed on its own (`…_warmup_…`); then the clock starts, the N turns are posted over HTTP
 * (BENCH_POST_CONCURRENCY at a time, default 8) and it stops when the last run is recorded `completed`. An embedded `serve` has no queue: a posted turn starts at once, so the
 * posting is part of the drain (also reported on its own).
 * Figures: drain time, runs/s, and the `serve` process's CPU per run (user + system from /proc over
 * the drain: the API's and the executing side's work together — compare with the API + worker CPU
 * of the PostgreSQL bench). N: BENCH_RUNS (default 40). The host's load average is printed.
 */
import Database from 'better-sqlite3';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { startServeProcess } from '../test/support/serve-process.js';
import type { BenchFigure } from './figure.js';
import { cpuMs, oneToolTurn } from './one-tool-turn-load.js';

async function ok<T>(answer: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: HTTP ${status} ${JSON.stringify(body)}`);
  return body;
}

export default async function runsEmbeddedBench(): Promise<BenchFigure[]> {
  const runs = Number(process.env.BENCH_RUNS ?? 40);
  const concurrency = Number(process.env.BENCH_POST_CONCURRENCY ?? 8);
  const model = await startScriptedModelServer();
  const figures: BenchFigure[] = [{ metric: 'load_average_1m_at_start', value: loadavg()[0]!, unit: '' }];
  // An empty database URL: the embedded SQLite store even when the environment names a PostgreSQL one.
  const serve = await startServeProcess({ ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: '' }, ['--no-default-workspace']);
  let store: Database.Database | null = null;
  try {
    const workspaceId = (await ok(serve.api<{ id: string }>('POST', '/api/workspaces', { name: 'Bench' }), 'create workspace')).id;
    await ok(serve.api('POST', `/api/workspaces/${workspaceId}/seed`), 'seed');
    const spaceId = (await ok(serve.api<{ id: string }>('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Work' }), 'create space')).id;
    const warmup = Number(process.env.BENCH_WARMUP_RUNS ?? 30);
    const conversationIds: string[] = [];
    for (let index = 0; index < warmup + runs; index += 1) {
      conversationIds.push((await ok(serve.api<{ id: string }>('POST', `/api/workspaces/${workspaceId}/spaces/${spaceId}/conversations`, { title: `Run ${index}` }), 'create conversation')).id);
    }
    model.script(...Array.from({ length: (warmup + runs) * 2 }, oneToolTurn));
    // Read-only beside the server (WAL): how many runs are finished, without an API request's cost in the server.
    store = new Database(join(serve.dataRoot, 'workspaces', workspaceId, 'workspace.sqlite'), { readonly: true, fileMustExist: true });
    const unfinished = store.prepare("select count(*) as n from runs where state in ('queued', 'running')");
    const notCompleted = store.prepare("select count(*) as n from runs where state != 'completed'");
    const recorded = store.prepare('select count(*) as n from runs');
    /** Posts turns [from, to), BENCH_POST_CONCURRENCY at a time; resolves once all are accepted. */
    const post = async (from: number, to: number) => {
      let next = from;
      const poster = async () => {
        while (next < to) {
          const index = next++;
          await ok(serve.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversationIds[index]}/messages`, { text: `bench run ${index}` }), 'post turn');
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, concurrency) }, poster));
    };
    const completed = async (total: number) => {
      while ((recorded.get() as { n: number }).n < total || (unfinished.get() as { n: number }).n > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    if (warmup > 0) {
      const cpuAtWarmup = await cpuMs(serve.child.pid!);
      await post(0, warmup);
      await completed(warmup);
      figures.push({ metric: 'serve_cpu_per_tool_turn_warmup_embedded_sqlite', value: ((await cpuMs(serve.child.pid!)) - cpuAtWarmup) / warmup, unit: 'ms' });
    }

    const cpuAtStart = await cpuMs(serve.child.pid!);
    const started = performance.now();
    const startedMonotonicUs = process.hrtime.bigint() / 1000n;
    await post(warmup, warmup + runs);
    const postedMs = performance.now() - started;
    await completed(warmup + runs);
    const ms = performance.now() - started;
    const cpu = (await cpuMs(serve.child.pid!)) - cpuAtStart;
    // With CC_PROF_DIR, the window on a V8 CPU profile's own clock, so the profile can be cut to it.
    if (process.env.CC_PROF_DIR) console.error(`drain window (monotonic µs, as in a V8 CPU profile): ${startedMonotonicUs} → ${process.hrtime.bigint() / 1000n}`);
    const failed = (notCompleted.get() as { n: number }).n;
    if (failed > 0) throw new Error(`${failed} runs did not complete`);
    figures.push(
      { metric: `drain_${runs}_runs_embedded_sqlite`, value: ms, unit: 'ms' },
      { metric: `posting_${runs}_turns_embedded_sqlite`, value: postedMs, unit: 'ms' },
      { metric: 'runs_per_s_embedded_sqlite', value: (runs / ms) * 1_000, unit: 'runs/s' },
      { metric: 'serve_cpu_per_tool_turn_embedded_sqlite', value: cpu / runs, unit: 'ms' },
      { metric: 'load_average_1m_at_end', value: loadavg()[0]!, unit: '' },
    );
  } finally {
    store?.close();
    await serve.stop();
    await model.close();
  }
  return figures;
}
