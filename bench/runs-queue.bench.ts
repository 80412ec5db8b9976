/**
 * NF-SCALE: real agent runs through the runs queue on PostgreSQL, executed by 1, 2 and 4
 * `control-center worker` child processes (own data roots). Each run is one tool turn on the
 * built-in harness against the scripted model (a `todo` call, then an answer: two model calls).
 * Per worker count: first W warm-up runs (BENCH_WARMUP_RUNS, default 30) are posted to an API-role
 * control center (in this process) and drained by freshly started workers, so the measured runs find
 * warm processes (a worker's first runs load and compile the run path: that one-time cost is printed
 * on its own, `…_warmup_…`, and would otherwise be spread over the N runs). The workers are then
 * stopped (SIGSTOP) while N runs are posted, so the API side's CPU is measured with nothing else
 * running here and the runs wait `queued` on pg-boss's `runs` queue; the workers go on (SIGCONT) and
 * the clock runs to the last run recorded `completed` (the drain time). BENCH_WARMUP_RUNS=0 gives the
 * earlier measure: N runs posted before any worker starts, the clock from the first worker ready.
 * Figures: drain time, runs/s, and worker CPU per run (user + system time of the worker processes
 * from /proc, divided by the runs: the executing side's cost of a tool turn with its recording);
 * the API side's CPU per posted turn (recording it `queued`, enqueueing it), so that API + worker
 * compares with one embedded `serve` doing both (`bench/runs-embedded.bench.ts`, SQLite).
 * N: BENCH_RUNS (default 40, so that a run stays near 3 minutes on the shared 2-core development
 * machine, most of it set-up: seeding, posting, starting workers); BENCH_RUNS_4 for 4 workers
 * (default the same); BENCH_WORKERS picks the worker counts (default `1,2,4`).
 * `BENCH_RUNS=1000 BENCH_WORKERS=2` gives the time to drain 1,000 queued runs with two workers.
 * The host's load average is printed: on a shared 2-core machine, 4 workers contend for 2 cores.
 */
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { ControlCenter } from '../src/services/control-center.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { startWorkerProcess } from '../test/support/serve-process.js';
import { freshTestDatabase } from '../test/support/test-database.js';
import { makeDataRoot } from '../test/support/test-server.js';
import type { BenchFigure } from './figure.js';
import { cpuMs, oneToolTurn } from './one-tool-turn-load.js';

async function drain(model: ScriptedModelServer, workers: number, runs: number): Promise<{ ms: number; cpuMsPerRun: number; apiCpuMsPerRun: number; warmupCpuMsPerRun: number | null }> {
  const database = await freshTestDatabase();
  const roots = [await makeDataRoot()];
  const children: ChildProcess[] = [];
  const api = await ControlCenter.open({ dataRoot: roots[0]!, database: database.url, role: 'api', env: model.providerEnv });
  try {
    await api.recover();
    const workspaceId = (await api.workspaces.create('Bench')).id;
    await api.seeding.seed(workspaceId);
    const spaceId = (await api.spaces.create(workspaceId, { name: 'Work' })).id;
    const warmup = Number(process.env.BENCH_WARMUP_RUNS ?? 30);
    model.script(...Array.from({ length: (warmup + runs) * 2 }, oneToolTurn));
    const conversationIds: string[] = [];
    for (let index = 0; index < warmup + runs; index += 1) conversationIds.push((await api.spaces.createConversation(workspaceId, spaceId, { title: `Run ${index}` })).id);
    const db = (await api.workspaces.handle(workspaceId)).database.db;
    const unfinished = async () => Number((await db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).where('state', 'in', ['queued', 'running']).executeTakeFirstOrThrow()).n);
    const drained = async () => {
      while ((await unfinished()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const post = async (from: number, to: number) => {
      for (let index = from; index < to; index += 1) await api.turns.post(workspaceId, conversationIds[index]!, { text: `bench run ${index}` }, 'op_bench');
    };
    const env = { ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: database.url };
    for (let index = 0; index < workers; index += 1) roots.push(await makeDataRoot());
    // BENCH_MAX_QUEUED_RUNS: each worker's limit of runs at once (`--max-queued-runs`, default 16).
    const limit = process.env.BENCH_MAX_QUEUED_RUNS ? ['--max-queued-runs', process.env.BENCH_MAX_QUEUED_RUNS] : [];
    const startWorkers = () => roots.slice(1).map((root) => startWorkerProcess(['--data-dir', root, '--grace-seconds', '0', '--log-level', 'warn', ...limit], env));
    const workerCpu = async () => (await Promise.all(children.map((child) => cpuMs(child.pid!)))).reduce((sum, value) => sum + value, 0);
    let warmupCpuMsPerRun: number | null = null;
    if (warmup > 0) {
      await post(0, warmup);
      children.push(...(await Promise.all(startWorkers())));
      const cpuAtWarmup = await workerCpu();
      const warmupMonotonicUs = process.hrtime.bigint() / 1000n;
      await drained();
      warmupCpuMsPerRun = ((await workerCpu()) - cpuAtWarmup) / warmup;
      if (process.env.CC_PROF_DIR) console.error(`warm-up window (monotonic µs, as in a V8 CPU profile): ${warmupMonotonicUs} → ${process.hrtime.bigint() / 1000n}`);
      // Stopped, not idle: an idle worker still polls and beats, which would count as the API side's CPU.
      for (const child of children) child.kill('SIGSTOP');
    }
    // The API side's share of a turn: recording it `queued` and enqueueing it (this process does
    // nothing else meanwhile: no worker runs, the model server is idle).
    const apiCpuBefore = process.cpuUsage();
    await post(warmup, warmup + runs);
    const apiCpu = process.cpuUsage(apiCpuBefore);
    const apiCpuMsPerRun = (apiCpu.user + apiCpu.system) / 1_000 / runs;
    let started: number;
    let startedMonotonicUs: bigint;
    let cpuAtStart: number;
    if (warmup > 0) {
      cpuAtStart = await workerCpu();
      started = performance.now();
      startedMonotonicUs = process.hrtime.bigint() / 1000n;
      for (const child of children) child.kill('SIGCONT');
    } else {
      const ready = startWorkers();
      // The clock starts when the first worker is ready: from then on, work is being claimed.
      await Promise.race(ready);
      started = performance.now();
      startedMonotonicUs = process.hrtime.bigint() / 1000n;
      children.push(...(await Promise.all(ready)));
      cpuAtStart = await workerCpu();
    }
    await drained();
    const ms = performance.now() - started;
    if (process.env.CC_PROF_DIR) console.error(`drain window (monotonic µs, as in a V8 CPU profile): ${startedMonotonicUs} → ${process.hrtime.bigint() / 1000n}`);
    const cpu = (await workerCpu()) - cpuAtStart;
    const failed = await db.selectFrom('runs').select('state').where('state', '!=', 'completed').execute();
    if (failed.length > 0) throw new Error(`${failed.length} runs did not complete`);
    return { ms, cpuMsPerRun: cpu / runs, apiCpuMsPerRun, warmupCpuMsPerRun };
  } finally {
    // A profiled child writes its profile only on a normal exit: it is stopped, not killed, and waited for.
    const exited = children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))));
    for (const child of children) {
      // A worker stopped for the posting (a failure there) must run again to act on SIGTERM.
      child.kill('SIGCONT');
      child.kill(process.env.CC_PROF_DIR ? 'SIGTERM' : 'SIGKILL');
    }
    if (process.env.CC_PROF_DIR) await Promise.all(exited);
    await api.close();
    await database.drop();
    for (const root of roots) await rm(root, { recursive: true, force: true });
  }
}

export default async function runsQueueBench(): Promise<BenchFigure[]> {
  const runs = Number(process.env.BENCH_RUNS ?? 40);
  const runsFor4 = Number(process.env.BENCH_RUNS_4 ?? runs);
  const model = await startScriptedModelServer();
  const figures: BenchFigure[] = [{ metric: 'load_average_1m_at_start', value: loadavg()[0]!, unit: '' }];
  try {
    // BENCH_WORKERS (e.g. `2`) picks the worker counts: the 1,000-run drain is run for one count at a time.
    const workerCounts = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
    for (const workers of workerCounts) {
      const count = workers === 4 ? runsFor4 : runs;
      const { ms, cpuMsPerRun, apiCpuMsPerRun, warmupCpuMsPerRun } = await drain(model, workers, count);
      if (warmupCpuMsPerRun !== null) figures.push({ metric: `worker_cpu_per_tool_turn_warmup_${workers}_workers`, value: warmupCpuMsPerRun, unit: 'ms' });
      figures.push(
        { metric: `load_average_1m_after_${workers}_workers`, value: loadavg()[0]!, unit: '' },
        { metric: `api_cpu_per_posted_turn_${workers}_workers`, value: apiCpuMsPerRun, unit: 'ms' },
        { metric: `drain_${count}_runs_${workers}_workers`, value: ms, unit: 'ms' },
        { metric: `runs_per_s_${workers}_workers`, value: (count / ms) * 1_000, unit: 'runs/s' },
        { metric: `worker_cpu_per_tool_turn_${workers}_workers`, value: cpuMsPerRun, unit: 'ms' },
      );
    }
  } finally {
    await model.close();
  }
  return figures;
}
