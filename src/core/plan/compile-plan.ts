import { inspectPlanGraph } from './inspect-plan-graph.js';
import { InvalidPlanError } from './invalid-plan-error.js';
import { MinIndexHeap } from './min-index-heap.js';
import type { PlanBlueprint, PlanEdge, PlanTicket } from './plan-blueprint.js';
import type { PlanSubmission } from './plan-graph.js';

function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * A step's dependencies sorted by UTF-16 code unit. A valid plan has no repeated entries, so sorting a
 * copy is all "sorted, deduplicated" takes; the short lists most steps have skip the general sort.
 */
function sortedCopy(entries: readonly string[]): string[] {
  if (entries.length === 0) return [];
  if (entries.length === 1) return [entries[0]!];
  if (entries.length === 2) {
    const [first, second] = entries as readonly [string, string];
    return first < second ? [first, second] : [second, first];
  }
  return entries.slice().sort(compareCodeUnits);
}

/**
 * Compiles a valid plan into an execution blueprint (PLAN-7), deterministically and with no model:
 * the same submission always yields byte-identical JSON.
 *
 * - Order: Kahn's algorithm, releasing among the steps whose dependencies are all placed the one with
 *   the lowest original index. A plan already listed in dependency order therefore keeps its order, and
 *   the result depends on nothing but the submission (no hash-map iteration order, no locale).
 * - Level: longest-path depth, 0 for roots, else 1 + the deepest dependency's level. All steps of one
 *   level are mutually independent and may run in parallel (PLAN-8).
 * - `dependsOn` is deduplicated and sorted by UTF-16 code unit; edges run prerequisite → dependent and
 *   are listed by dependent (ticket order), then by prerequisite key.
 *
 * Throws {@link InvalidPlanError} carrying every violation if the plan does not validate: approval is
 * disabled while the graph has a validation error, so reaching here with one is a caller bug.
 * O((n + e) log n) time for n steps and e dependencies.
 */
export function compilePlan(plan: PlanSubmission): PlanBlueprint {
  const { violations, dependencies } = inspectPlanGraph(plan);
  if (violations.length > 0) throw new InvalidPlanError(violations);

  const nodes = plan.nodes;
  const count = nodes.length;
  const { offsets: dependencyOffsets, targets: dependencyTargets } = dependencies;

  // Reverse the dependency rows into dependent rows: those of step v sit at dependents[offsets[v] .. offsets[v + 1]).
  const offsets = new Int32Array(count + 1);
  for (let edge = 0; edge < dependencyTargets.length; edge += 1) offsets[dependencyTargets[edge]! + 1]! += 1;
  for (let index = 0; index < count; index += 1) offsets[index + 1]! += offsets[index]!;
  const fill = offsets.slice(0, count);
  const dependents = new Int32Array(dependencyTargets.length);
  const pending = new Int32Array(count);
  for (let index = 0; index < count; index += 1) {
    pending[index] = dependencyOffsets[index + 1]! - dependencyOffsets[index]!;
    for (let edge = dependencyOffsets[index]!; edge < dependencyOffsets[index + 1]!; edge += 1) dependents[fill[dependencyTargets[edge]!]!++] = index;
  }

  const ready = new MinIndexHeap(count);
  for (let index = 0; index < count; index += 1) if (pending[index] === 0) ready.push(index);
  const levelOf = new Int32Array(count);
  const tickets: PlanTicket[] = [];
  const edges: PlanEdge[] = [];
  const levels: string[][] = [];
  const roots: string[] = [];
  const leaves: string[] = [];
  while (ready.size > 0) {
    const index = ready.pop();
    const node = nodes[index]!;
    const key = node.key;
    let level = 0;
    for (let edge = dependencyOffsets[index]!; edge < dependencyOffsets[index + 1]!; edge += 1) {
      const above = levelOf[dependencyTargets[edge]!]! + 1;
      if (above > level) level = above;
    }
    levelOf[index] = level;
    const dependsOn = sortedCopy(node.dependsOn);
    for (const dependency of dependsOn) edges.push({ from: dependency, to: key });
    tickets.push({ key, title: node.title, description: node.description, dependsOn, order: tickets.length, level });
    (levels[level] ??= []).push(key);
    if (level === 0) roots.push(key);
    if (offsets[index] === offsets[index + 1]) leaves.push(key);
    for (let edge = offsets[index]!; edge < offsets[index + 1]!; edge += 1) {
      const dependent = dependents[edge]!;
      if (--pending[dependent]! === 0) ready.push(dependent);
    }
  }
  return { goal: plan.goal, tickets, edges, levels, roots, leaves };
}
