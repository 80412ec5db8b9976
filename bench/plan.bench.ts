/**
 * Plan validation and compilation (PLAN-2, PLAN-7) on random DAGs of 1k, 10k and 100k steps (each step
 * depends on 0–3 earlier steps, then the listing is shuffled so the input is not already in dependency
 * order) and on a 100k-step chain listed backwards (the deepest graph: 100k levels). Reports the median
 * of several runs per size for validation alone (what `submit_plan` does) and for `compilePlan`, which
 * validates and compiles in one pass (what approval does), plus nanoseconds per step and per-step
 * ratios between sizes: a ratio near 1 means growth is linear. Target: 100k steps under 300 ms.
 * The host's 1-minute load average is printed before and after: on a shared 2-core machine, contention
 * inflates wall-clock figures.
 *
 * Plans are round-tripped through JSON before measuring, as `submit_plan` receives them: strings built
 * with template literals are V8 cons-strings that are flattened on every hash and regex test, which
 * would measure the generator instead of the validator (it roughly triples the time).
 */
import { compilePlan, validatePlanGraph, type PlanNodeInput, type PlanSubmission } from '../src/core/plan/index.js';
import { loadavg } from 'node:os';
import { median, type BenchFigure } from './figure.js';

/** Deterministic pseudo-random numbers so runs are comparable. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomDag(count: number, seed: number): PlanSubmission {
  const next = random(seed);
  const nodes: PlanNodeInput[] = [];
  for (let index = 0; index < count; index += 1) {
    const dependsOn = new Set<string>();
    const wanted = index === 0 ? 0 : Math.floor(next() * 4);
    for (let pick = 0; pick < wanted; pick += 1) dependsOn.add(`step-${Math.floor(next() * index)}`);
    nodes.push({ key: `step-${index}`, title: `Step ${index}`, description: `Carry out part ${index} of the work.`, dependsOn: [...dependsOn] });
  }
  for (let index = nodes.length - 1; index > 0; index -= 1) {
    const other = Math.floor(next() * (index + 1));
    [nodes[index], nodes[other]] = [nodes[other]!, nodes[index]!];
  }
  return asReceived({ goal: 'Benchmark', nodes });
}

function chain(count: number): PlanSubmission {
  const nodes: PlanNodeInput[] = [];
  for (let index = count - 1; index >= 0; index -= 1) {
    nodes.push({ key: `link-${index}`, title: `Link ${index}`, description: '', dependsOn: index === 0 ? [] : [`link-${index - 1}`] });
  }
  return asReceived({ goal: 'Benchmark chain', nodes });
}

/** The plan as the tool gets it: parsed from the model's JSON arguments. */
function asReceived(submission: PlanSubmission): PlanSubmission {
  return JSON.parse(JSON.stringify(submission)) as PlanSubmission;
}

function time(action: () => unknown): number {
  const start = performance.now();
  action();
  return performance.now() - start;
}

/** CPU ms (user + system, all threads of this process, so GC helpers count): less skewed than wall time by other processes. */
function cpuTime(action: () => unknown): number {
  const start = process.cpuUsage();
  action();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The peer: the least any validator must do, namely map every key to its step and resolve every
 * dependency entry through that map. Its per-step cost also grows with size (hash-table probes and node
 * reads miss the CPU caches more often once the plan outgrows them), so the validator's growth is judged
 * against it: a steady ratio to this floor means the extra work is linear.
 */
function keyResolutionFloor(submission: PlanSubmission): number {
  const indexByKey = new Map<string, number>();
  const nodes = submission.nodes;
  for (let index = 0; index < nodes.length; index += 1) indexByKey.set(nodes[index]!.key, index);
  let resolved = 0;
  for (const node of nodes) for (const dependency of node.dependsOn) resolved += indexByKey.get(dependency) === undefined ? 0 : 1;
  return resolved;
}

/**
 * Median wall-clock ms of the key-resolution floor, `validatePlanGraph` alone and `compilePlan`
 * (validate + compile), and the median CPU ms of `compilePlan` from separate runs.
 */
function measure(submission: PlanSubmission, runs: number): { floor: number; validate: number; compile: number; compileCpu: number } {
  const floor: number[] = [];
  const compileCpu: number[] = [];
  const validate: number[] = [];
  const compile: number[] = [];
  // Warm-up: let the JIT settle before anything is recorded.
  for (let run = 0; run < Math.min(runs, 5); run += 1) compilePlan(submission);
  for (let run = 0; run < runs; run += 1) {
    floor.push(time(() => keyResolutionFloor(submission)));
    validate.push(
      time(() => {
        if (validatePlanGraph(submission).length > 0) throw new Error('benchmark plan is invalid');
      }),
    );
    compile.push(time(() => compilePlan(submission)));
    compileCpu.push(cpuTime(() => compilePlan(submission)));
  }
  return { floor: median(floor), validate: median(validate), compile: median(compile), compileCpu: median(compileCpu) };
}

export default async function planBenchmark(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [{ metric: 'host_load_1m', value: loadavg()[0]!, unit: 'runnable' }];
  const perStep: Record<string, number> = {};
  const floorPerStep: Record<string, number> = {};
  // Built one at a time, so a case is not measured with the next one's plan already on the heap.
  const cases: [string, () => PlanSubmission, number][] = [
    ['dag_1k', () => randomDag(1_000, 1), 51],
    ['dag_10k', () => randomDag(10_000, 2), 21],
    ['dag_100k', () => randomDag(100_000, 3), 9],
    ['chain_100k', () => chain(100_000), 9],
  ];
  for (const [name, build, runs] of cases) {
    const submission = build();
    const result = measure(submission, runs);
    perStep[name] = (result.compile * 1e6) / submission.nodes.length;
    floorPerStep[name] = (result.floor * 1e6) / submission.nodes.length;
    figures.push(
      { metric: `${name}_validate_p50`, value: result.validate, unit: 'ms' },
      { metric: `${name}_validate_compile_p50`, value: result.compile, unit: 'ms' },
      { metric: `${name}_validate_compile_cpu_p50`, value: result.compileCpu, unit: 'ms' },
      { metric: `${name}_per_step`, value: perStep[name]!, unit: 'ns' },
      { metric: `${name}_key_floor_per_step`, value: floorPerStep[name]!, unit: 'ns' },
      { metric: `${name}_vs_key_floor`, value: perStep[name]! / floorPerStep[name]!, unit: 'x' },
    );
  }
  figures.push(
    { metric: 'per_step_ratio_10k_vs_1k', value: perStep.dag_10k! / perStep.dag_1k!, unit: 'x' },
    { metric: 'per_step_ratio_100k_vs_1k', value: perStep.dag_100k! / perStep.dag_1k!, unit: 'x' },
    { metric: 'per_step_ratio_100k_vs_10k', value: perStep.dag_100k! / perStep.dag_10k!, unit: 'x' },
    { metric: 'key_floor_per_step_ratio_100k_vs_1k', value: floorPerStep.dag_100k! / floorPerStep.dag_1k!, unit: 'x' },
  );
  figures.push({ metric: 'host_load_1m_after', value: loadavg()[0]!, unit: 'runnable' });
  return figures;
}
