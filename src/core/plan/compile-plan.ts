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
 * the same submission always yields byte-identical JSON. The blueprint is plain data for the
 * materializer that creates the tickets and the execution (the plan-compiled pipeline nodes of PIPE-1;
 * orchestration proposals follow the same rule of a deterministic materializer, ORC-4).
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

  // Pass 1, integers only: Kahn's algorithm gives each step its position and level.
  const ready = new MinIndexHeap(count);
  for (let index = 0; index < count; index += 1) if (pending[index] === 0) ready.push(index);
  const levelOf = new Int32Array(count);
  const positionOf = new Int32Array(count);
  const atPosition = new Int32Array(count);
  let placed = 0;
  while (ready.size > 0) {
    const index = ready.pop();
    let level = 0;
    for (let edge = dependencyOffsets[index]!; edge < dependencyOffsets[index + 1]!; edge += 1) {
      const above = levelOf[dependencyTargets[edge]!]! + 1;
      if (above > level) level = above;
    }
    levelOf[index] = level;
    positionOf[index] = placed;
    atPosition[placed] = index;
    placed += 1;
    for (let edge = offsets[index]!; edge < offsets[index + 1]!; edge += 1) {
      const dependent = dependents[edge]!;
      if (--pending[dependent]! === 0) ready.push(dependent);
    }
  }
  // Where each ticket's edges start in the edge list, which is grouped by ticket position.
  const edgeStart = new Int32Array(count + 1);
  for (let position = 0; position < count; position += 1) {
    const index = atPosition[position]!;
    edgeStart[position + 1] = edgeStart[position]! + dependencyOffsets[index + 1]! - dependencyOffsets[index]!;
  }

  // Pass 2 builds the objects reading the steps in declaration order: sequential reads are several
  // times faster than chasing 100k objects in topological order, and only pointers land out of order.
  const tickets = new Array<PlanTicket>(count);
  const edges = new Array<PlanEdge>(dependencyTargets.length);
  const keyAt = new Array<string>(count);
  for (let index = 0; index < count; index += 1) {
    const node = nodes[index]!;
    const key = node.key;
    const position = positionOf[index]!;
    const dependsOn = sortedCopy(node.dependsOn);
    let edge = edgeStart[position]!;
    for (const dependency of dependsOn) edges[edge++] = { from: dependency, to: key };
    tickets[position] = { key, title: node.title, description: node.description, dependsOn, order: position, level: levelOf[index]! };
    keyAt[position] = key;
  }

  // Pass 3, in ticket order over compact arrays: levels, roots, leaves.
  const levels: string[][] = [];
  const roots: string[] = [];
  const leaves: string[] = [];
  for (let position = 0; position < count; position += 1) {
    const index = atPosition[position]!;
    const key = keyAt[position]!;
    const level = levelOf[index]!;
    (levels[level] ??= []).push(key);
    if (level === 0) roots.push(key);
    if (offsets[index] === offsets[index + 1]) leaves.push(key);
  }
  return { goal: plan.goal, tickets, edges, levels, roots, leaves };
}
