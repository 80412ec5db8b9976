import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidPlanError, compilePlan, validatePlanGraph, type PlanBlueprint, type PlanSubmission } from '../../../src/core/plan/index.js';
import { ancestors, dagPlan, dagShape, plan, shuffle, step } from '../../support/plan-fixtures.js';

const RUNS = { numRuns: 200 };

/** Every structural promise of a blueprint, checked against the submission it came from. */
function expectFaithfulBlueprint(submission: PlanSubmission, blueprint: PlanBlueprint): void {
  const byKey = new Map(blueprint.tickets.map((ticket) => [ticket.key, ticket]));
  expect(byKey.size).toBe(submission.nodes.length);
  blueprint.tickets.forEach((ticket, index) => expect(ticket.order).toBe(index));
  let edgeCount = 0;
  for (const node of submission.nodes) {
    const ticket = byKey.get(node.key)!;
    expect(ticket.dependsOn).toEqual([...node.dependsOn].sort());
    const dependencyLevels = ticket.dependsOn.map((dependency) => byKey.get(dependency)!.level);
    expect(ticket.level).toBe(dependencyLevels.length === 0 ? 0 : Math.max(...dependencyLevels) + 1);
    for (const dependency of ticket.dependsOn) expect(byKey.get(dependency)!.order).toBeLessThan(ticket.order);
    edgeCount += node.dependsOn.length;
  }
  expect(blueprint.edges).toHaveLength(edgeCount);
  for (const edge of blueprint.edges) {
    expect(byKey.get(edge.to)!.dependsOn).toContain(edge.from);
    expect(byKey.get(edge.from)!.order).toBeLessThan(byKey.get(edge.to)!.order);
  }
  expect(blueprint.levels.flat().sort()).toEqual([...byKey.keys()].sort());
  blueprint.levels.forEach((keys, level) => keys.forEach((key) => expect(byKey.get(key)!.level).toBe(level)));
  expect(blueprint.roots).toEqual(blueprint.tickets.filter((ticket) => ticket.dependsOn.length === 0).map((ticket) => ticket.key));
  const required = new Set(blueprint.edges.map((edge) => edge.from));
  expect(blueprint.leaves).toEqual(blueprint.tickets.filter((ticket) => !required.has(ticket.key)).map((ticket) => ticket.key));
}

/** Nontrivial strongly connected components by brute-force reachability (reference for small graphs). */
function referenceKnots(submission: PlanSubmission): Set<string>[] {
  const keys = submission.nodes.map((node) => node.key);
  const edges = new Map(submission.nodes.map((node) => [node.key, node.dependsOn]));
  const reach = new Map<string, Set<string>>();
  for (const start of keys) {
    const seen = new Set<string>();
    const stack = [...edges.get(start)!];
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (seen.has(key)) continue;
      seen.add(key);
      stack.push(...edges.get(key)!);
    }
    reach.set(start, seen);
  }
  const knots: Set<string>[] = [];
  const placed = new Set<string>();
  for (const key of keys) {
    if (placed.has(key) || !reach.get(key)!.has(key)) continue;
    const knot = new Set(keys.filter((other) => other === key || (reach.get(key)!.has(other) && reach.get(other)!.has(key))));
    for (const member of knot) placed.add(member);
    knots.push(knot);
  }
  return knots;
}

function expectRealCycle(submission: PlanSubmission, path: readonly string[]): void {
  const edges = new Map(submission.nodes.map((node) => [node.key, node.dependsOn]));
  expect(path.length).toBeGreaterThanOrEqual(3);
  expect(path[0]).toBe(path.at(-1));
  expect(new Set(path.slice(0, -1)).size).toBe(path.length - 1);
  for (let index = 0; index + 1 < path.length; index += 1) expect(edges.get(path[index]!)).toContain(path[index + 1]);
}

describe('plan graph properties (PLAN-2, PLAN-7)', () => {
  it('random DAGs in any declaration order validate and compile with every edge respected', () => {
    fc.assert(
      fc.property(dagShape, fc.integer(), (dependencies, seed) => {
        const submission = plan(...shuffle(dagPlan(dependencies).nodes, seed));
        expect(validatePlanGraph(submission)).toEqual([]);
        const blueprint = compilePlan(submission);
        expectFaithfulBlueprint(submission, blueprint);
        expect(JSON.stringify(compilePlan(structuredClone(submission)))).toBe(JSON.stringify(blueprint));
      }),
      RUNS,
    );
  });

  it('reordering the declaration changes at most the order among independent steps', () => {
    fc.assert(
      fc.property(dagShape, fc.integer(), (dependencies, seed) => {
        const original = compilePlan(dagPlan(dependencies));
        const reordered = compilePlan(plan(...shuffle(dagPlan(dependencies).nodes, seed)));
        // Levels are a property of the graph, not of the listing.
        const levelsOf = (blueprint: PlanBlueprint) => Object.fromEntries(blueprint.tickets.map((ticket) => [ticket.key, ticket.level]));
        expect(levelsOf(reordered)).toEqual(levelsOf(original));
        expect(reordered.levels.map((keys) => [...keys].sort())).toEqual(original.levels.map((keys) => [...keys].sort()));
        expect(new Set(reordered.edges.map((edge) => `${edge.from}>${edge.to}`))).toEqual(new Set(original.edges.map((edge) => `${edge.from}>${edge.to}`)));
      }),
      RUNS,
    );
  });

  it('a declaration already in dependency order is kept exactly (ties go to the lower index)', () => {
    fc.assert(
      fc.property(dagShape, (dependencies) => {
        const submission = dagPlan(dependencies);
        expect(compilePlan(submission).tickets.map((ticket) => ticket.key)).toEqual(submission.nodes.map((node) => node.key));
      }),
      RUNS,
    );
  });

  it('swapping adjacent independent steps of a dependency-ordered listing yields exactly the new listing', () => {
    fc.assert(
      fc.property(dagShape, fc.array(fc.nat(), { maxLength: 30 }), (dependencies, swaps) => {
        const nodes = [...dagPlan(dependencies).nodes];
        for (const swap of swaps) {
          if (nodes.length < 2) break;
          const at = swap % (nodes.length - 1);
          // Adjacent in a topological listing and not directly dependent means independent.
          if (nodes[at + 1]!.dependsOn.includes(nodes[at]!.key)) continue;
          [nodes[at], nodes[at + 1]] = [nodes[at + 1]!, nodes[at]!];
        }
        const submission = plan(...nodes);
        const blueprint = compilePlan(submission);
        expect(blueprint.tickets.map((ticket) => ticket.key)).toEqual(nodes.map((node) => node.key));
        expectFaithfulBlueprint(submission, blueprint);
      }),
      RUNS,
    );
  });

  it('a DAG with one injected back edge always reports a cycle through real edges, and will not compile', () => {
    const withBackEdge = dagShape
      .filter((dependencies) => dependencies.some((deps) => deps.length > 0))
      .chain((dependencies) => {
        const above = ancestors(dependencies);
        const candidates = dependencies.flatMap((_, index) => [...above[index]!].map((ancestor) => [index, ancestor] as const));
        return fc.tuple(fc.constant(dependencies), fc.constantFrom(...candidates), fc.integer());
      });
    fc.assert(
      fc.property(withBackEdge, ([dependencies, [descendant, ancestor], seed]) => {
        const nodes = dagPlan(dependencies).nodes.map((node) => ({ ...node, dependsOn: [...node.dependsOn] }));
        nodes[ancestor]!.dependsOn.push(`s${descendant}`);
        const submission = plan(...shuffle(nodes, seed));
        const violations = validatePlanGraph(submission);
        expect(violations.length).toBeGreaterThan(0);
        expect(violations.every((violation) => violation.code === 'cycle')).toBe(true);
        for (const violation of violations) expectRealCycle(submission, violation.path!);
        const knots = referenceKnots(submission);
        expect(violations).toHaveLength(knots.length);
        expect(knots.some((knot) => knot.has(`s${descendant}`) && knot.has(`s${ancestor}`))).toBe(true);
        expect(() => compilePlan(submission)).toThrow(InvalidPlanError);
      }),
      RUNS,
    );
  });

  it('arbitrary graphs: one cycle report per knot, each a real cycle, knots disjoint', () => {
    const arbitrary = fc.integer({ min: 1, max: 25 }).chain((count) =>
      fc.array(fc.uniqueArray(fc.integer({ min: 0, max: count - 1 }), { maxLength: 3 }), { minLength: count, maxLength: count }),
    );
    fc.assert(
      fc.property(arbitrary, (adjacency) => {
        const submission = plan(...adjacency.map((targets, index) => step(`k${index}`, targets.filter((target) => target !== index).map((target) => `k${target}`))));
        const violations = validatePlanGraph(submission);
        const knots = referenceKnots(submission);
        expect(violations).toHaveLength(knots.length);
        const covered = new Set<string>();
        for (const violation of violations) {
          expect(violation.code).toBe('cycle');
          expectRealCycle(submission, violation.path!);
          const knot = knots.find((candidate) => candidate.has(violation.path![0]!))!;
          for (const key of violation.path!.slice(0, -1)) {
            expect(knot.has(key)).toBe(true);
            expect(covered.has(key)).toBe(false);
            covered.add(key);
          }
        }
        expect(violations.length === 0).toBe(knots.length === 0);
      }),
      RUNS,
    );
  });
});
