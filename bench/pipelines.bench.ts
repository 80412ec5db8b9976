/**
 * The pipeline engine (PIPE-1): throughput in nodes per second for one run of 10,000 no-op nodes
 * (`condition: true`, each depending on 0–2 earlier nodes, so it is a real DAG with parallel
 * branches), through the real path — queue claim with lease, attempt row with its idempotency key,
 * node state rows, dependants enqueued — on a real workspace SQLite file; and resume after a restart
 * with 1,000 runs in flight: `recover()` time (releasing abandoned jobs, re-pumping) and the time
 * until every one of those runs has completed. The host's load average is printed: on a shared
 * 2-core machine wall-clock figures are inflated by contention, so each phase also reports the
 * process's own CPU time (user + system, `process.cpuUsage`) — what the engine costs, whatever the load.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PipelineDefinition } from '../src/core/pipelines/pipeline-definition.js';
import { ControlCenter } from '../src/services/control-center.js';
import { PipelineEngine } from '../src/services/pipelines/pipeline-engine.js';
import type { BenchFigure } from './figure.js';

const IN_FLIGHT = 1_000;

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function noopDag(count: number): PipelineDefinition {
  const next = random(7);
  const nodes = Array.from({ length: count }, (_, index) => {
    const dependsOn = new Set<string>();
    const wanted = index === 0 ? 0 : Math.floor(next() * 3);
    for (let pick = 0; pick < wanted; pick += 1) dependsOn.add(`n${Math.floor(next() * index)}`);
    return { key: `n${index}`, type: 'condition' as const, expression: 'true', dependsOn: [...dependsOn], continueOnFail: false, idempotent: false };
  });
  return { name: 'noop', nodes, triggers: [] };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('benchmark timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** CPU seconds (user + system) this process used since `start`. */
function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

async function countRunning(app: ControlCenter, workspaceId: string): Promise<number> {
  const db = (await app.workspaces.handle(workspaceId)).database.db;
  const row = await db.selectFrom('pipeline_runs').select((eb) => eb.fn.countAll<number>().as('count')).where('status', '=', 'running').executeTakeFirstOrThrow();
  return Number(row.count);
}

export default async function pipelinesBench(): Promise<BenchFigure[]> {
  console.log(`load average before: ${loadavg()[0]!.toFixed(2)}`);
  const figures: BenchFigure[] = [];
  const dataRoot = await mkdtemp(join(tmpdir(), 'cc-bench-pipelines-'));
  try {
    let app = await ControlCenter.open({ dataRoot, builtinSandbox: 'none' });
    await app.recover();
    const workspace = await app.workspaces.create('Bench');

    const definition = noopDag(10_000);
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const { runId } = await app.pipelineEngine.start({ workspaceId: workspace.id, definition });
    // Polls the status column only: reading the whole 10k-node run view would compete with the engine.
    await waitUntil(async () => (await countRunning(app, workspace.id)) === 0, 1_200_000);
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = cpuSecondsSince(cpuStarted);
    const run = await app.pipelines.getRun(workspace.id, runId);
    if (run.status !== 'completed') throw new Error(`the no-op run ended ${run.status}`);
    figures.push({ metric: 'noop_10k_nodes_throughput', value: 10_000 / seconds, unit: 'nodes/s' });
    figures.push({ metric: 'noop_10k_nodes_total', value: seconds * 1000, unit: 'ms' });
    figures.push({ metric: 'noop_10k_nodes_per_cpu_second', value: 10_000 / cpuSeconds, unit: 'nodes/cpu-s' });

    // 1,000 runs of a 3-node chain in flight when the process stops. Started through an engine that
    // claims nothing (concurrency 0) on a reopened app that was not recovered, so no run can finish
    // before the stop — the app's own engine would drain them as fast as they are started (last time
    // only 473 of 1,000 were still in flight). Each run's root job is queued, none started.
    await app.close();
    app = await ControlCenter.open({ dataRoot, builtinSandbox: 'none' });
    const chain: PipelineDefinition = {
      name: 'chain',
      triggers: [],
      nodes: ['a', 'b', 'c'].map((key, index) => ({ key, type: 'condition' as const, expression: 'true', dependsOn: index === 0 ? [] : [['a', 'b', 'c'][index - 1]!], continueOnFail: false, idempotent: false })),
    };
    const starter = new PipelineEngine(app.workspaces, app.events, { concurrency: 0 });
    for (let index = 0; index < IN_FLIGHT; index += 1) await starter.start({ workspaceId: workspace.id, definition: chain });
    const beforeStop = await countRunning(app, workspace.id);
    if (beforeStop !== IN_FLIGHT) throw new Error(`expected ${IN_FLIGHT} runs in flight before the stop, found ${beforeStop}`);
    await starter.suspend();
    await app.close();

    app = await ControlCenter.open({ dataRoot, builtinSandbox: 'none' });
    const inFlight = await countRunning(app, workspace.id);
    if (inFlight !== IN_FLIGHT) throw new Error(`expected ${IN_FLIGHT} runs in flight after the reopen, found ${inFlight}`);
    const resumeStart = performance.now();
    const resumeCpu = process.cpuUsage();
    await app.recover();
    const recoverMs = performance.now() - resumeStart;
    const recoverCpuMs = cpuSecondsSince(resumeCpu) * 1000;
    await waitUntil(async () => (await countRunning(app, workspace.id)) === 0, 600_000);
    const drainMs = performance.now() - resumeStart;
    const drainCpuMs = cpuSecondsSince(resumeCpu) * 1000;
    figures.push({ metric: 'resume_in_flight_runs', value: inFlight, unit: 'runs' });
    figures.push({ metric: 'resume_recover_call', value: recoverMs, unit: 'ms' });
    figures.push({ metric: 'resume_until_all_completed', value: drainMs, unit: 'ms' });
    figures.push({ metric: 'resume_recover_call_cpu', value: recoverCpuMs, unit: 'cpu-ms' });
    figures.push({ metric: 'resume_until_all_completed_cpu', value: drainCpuMs, unit: 'cpu-ms' });
    await app.close();
  } finally {
    await rm(dataRoot, { recursive: true, force: true });
  }
  console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
  return figures;
}
