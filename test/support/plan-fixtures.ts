import fc from 'fast-check';
import type { PlanNodeInput, PlanSubmission } from '../../src/core/plan/index.js';

/** A step with a title and description derived from its key. */
export function step(key: string, dependsOn: string[] = [], overrides: Partial<PlanNodeInput> = {}): PlanNodeInput {
  return { key, title: `Do ${key}`, description: `Work on ${key}.`, dependsOn, ...overrides };
}

export function plan(...nodes: PlanNodeInput[]): PlanSubmission {
  return { goal: 'Ship the feature', nodes };
}

/** Fisher–Yates with a seeded generator, so failures replay. */
export function shuffle<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  let state = seed >>> 0 || 1;
  for (let index = result.length - 1; index > 0; index -= 1) {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    const other = state % (index + 1);
    [result[index], result[other]] = [result[other]!, result[index]!];
  }
  return result;
}

/**
 * A random DAG in declaration order: step i may depend only on steps before it, so it is acyclic by
 * construction. `dependencies[i]` lists indexes below i.
 */
export const dagShape = fc
  .integer({ min: 1, max: 40 })
  .chain((count) =>
    fc.tuple(
      ...Array.from({ length: count }, (_, index) =>
        index === 0 ? fc.constant<number[]>([]) : fc.uniqueArray(fc.integer({ min: 0, max: index - 1 }), { maxLength: Math.min(index, 4) }),
      ),
    ),
  );

export function dagPlan(dependencies: readonly (readonly number[])[]): PlanSubmission {
  return plan(...dependencies.map((deps, index) => step(`s${index}`, deps.map((dep) => `s${dep}`))));
}

/** Index → set of indexes it (transitively) depends on. */
export function ancestors(dependencies: readonly (readonly number[])[]): Set<number>[] {
  const result: Set<number>[] = [];
  dependencies.forEach((deps, index) => {
    const all = new Set<number>();
    for (const dep of deps) {
      all.add(dep);
      for (const above of result[dep]!) all.add(above);
    }
    result[index] = all;
  });
  return result;
}
