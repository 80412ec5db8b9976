/**
 * Plan validation and compilation (PLAN-2, PLAN-7) on random DAGs of 1k, 10k and 100k steps (each step
 * depends on 0–3 earlier steps, then the listing is shuffled so the input is not already in dependency
 * order) and on a 100k-step chain listed backwards (the deepest graph: 100k levels). Reports the median
 * of several runs per size for validation alone, compilation (which validates again, as approval does)
 * and the two together, plus nanoseconds per step and the 100k/1k per-step ratio: a ratio near 1 means
 * growth is linear. Target: validate + compile of 100k steps under 300 ms.
 *
 * Plans are round-tripped through JSON before measuring, as `submit_plan` receives them: strings built
 * with template literals are V8 cons-strings that are flattened on every hash and regex test, which
 * would measure the generator instead of the validator (it roughly triples the time).
 */
import { compilePlan, validatePlanGraph, type PlanNodeInput, type PlanSubmission } from '../src/core/plan/index.js';
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

function measure(submission: PlanSubmission, runs: number): { validate: number; compile: number; total: number } {
  const validate: number[] = [];
  const compile: number[] = [];
  const total: number[] = [];
  // Warm-up: let the JIT settle before anything is recorded.
  validatePlanGraph(submission);
  compilePlan(submission);
  for (let run = 0; run < runs; run += 1) {
    const validateMs = time(() => {
      if (validatePlanGraph(submission).length > 0) throw new Error('benchmark plan is invalid');
    });
    const compileMs = time(() => compilePlan(submission));
    validate.push(validateMs);
    compile.push(compileMs);
    total.push(validateMs + compileMs);
  }
  return { validate: median(validate), compile: median(compile), total: median(total) };
}

export default async function planBenchmark(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const perStep: Record<string, number> = {};
  const cases: [string, PlanSubmission, number][] = [
    ['dag_1k', randomDag(1_000, 1), 31],
    ['dag_10k', randomDag(10_000, 2), 15],
    ['dag_100k', randomDag(100_000, 3), 7],
    ['chain_100k', chain(100_000), 7],
  ];
  for (const [name, submission, runs] of cases) {
    const result = measure(submission, runs);
    const steps = submission.nodes.length;
    perStep[name] = (result.total * 1e6) / steps;
    figures.push(
      { metric: `${name}_validate_p50`, value: result.validate, unit: 'ms' },
      { metric: `${name}_compile_p50`, value: result.compile, unit: 'ms' },
      { metric: `${name}_validate_compile_p50`, value: result.total, unit: 'ms' },
      { metric: `${name}_per_step`, value: perStep[name]!, unit: 'ns' },
    );
  }
  figures.push(
    { metric: 'per_step_ratio_100k_vs_1k', value: perStep.dag_100k! / perStep.dag_1k!, unit: 'x' },
    { metric: 'per_step_ratio_100k_vs_10k', value: perStep.dag_100k! / perStep.dag_10k!, unit: 'x' },
  );
  return figures;
}
