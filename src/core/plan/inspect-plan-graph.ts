import { findDependencyCycles, type CompactGraph } from './dependency-cycles.js';
import type { PlanSubmission } from './plan-graph.js';
import { PLAN_KEY_MAX_LENGTH, PLAN_KEY_PATTERN } from './plan-key.js';
import type { PlanViolation } from './plan-violation.js';

/** How many keys a message lists before summarising the rest: messages go back into the model's context. */
const LISTED_KEYS = 12;

/** Below this many entries a step's dependsOn is checked for repeats by scanning, above it with a Set. */
const SCAN_LIMIT = 16;

/**
 * One pass over a submission (PLAN-2): every violation, plus the resolved graph so compilation
 * (PLAN-7) does not resolve keys a second time.
 */
export interface PlanGraphInspection {
  readonly violations: PlanViolation[];
  /** First occurrence of every non-blank key. */
  readonly indexByKey: ReadonlyMap<string, number>;
  /**
   * Step → the steps it depends on, in dependsOn order, as compressed sparse rows. Holds only entries
   * that resolve to another step, are not repeats, and belong to a key's first occurrence.
   */
  readonly dependencies: CompactGraph;
}

function quote(key: string): string {
  return JSON.stringify(key);
}

function isBlank(text: string): boolean {
  return text.length === 0 || text.trim().length === 0;
}

function describeNode(key: string, index: number): string {
  return isBlank(key) ? `nodes.${index}` : `step ${quote(key)} (nodes.${index})`;
}

function listKeys(keys: readonly string[]): string {
  const shown = keys.slice(0, LISTED_KEYS).map(quote).join(', ');
  return keys.length > LISTED_KEYS ? `${shown} and ${keys.length - LISTED_KEYS} more` : shown;
}

function cyclePathText(path: readonly string[]): string {
  if (path.length <= LISTED_KEYS * 2) return path.join(' → ');
  const head = path.slice(0, LISTED_KEYS).join(' → ');
  const tail = path.slice(-LISTED_KEYS).join(' → ');
  return `${head} → … (${path.length - LISTED_KEYS * 2} more steps) … → ${tail}`;
}

function keyFormatProblem(key: string): string | null {
  const tooLong = key.length > PLAN_KEY_MAX_LENGTH;
  const badCharacters = !PLAN_KEY_PATTERN.test(key);
  if (!tooLong && !badCharacters) return null;
  const problems: string[] = [];
  if (tooLong) problems.push(`is ${key.length} characters long (at most ${PLAN_KEY_MAX_LENGTH})`);
  if (badCharacters) problems.push('contains characters other than letters, digits, "_", "-" and "."');
  return problems.join(' and ');
}

function dependencyField(index: number, position: number): string {
  return `nodes.${index}.dependsOn.${position}`;
}

function keyedBy(nodeKey: string | undefined): { nodeKey?: string } {
  return nodeKey === undefined ? {} : { nodeKey };
}

function repeatsEarlierEntry(entries: readonly string[], position: number, seen: Set<string> | null): boolean {
  if (seen !== null) return seen.has(entries[position]!);
  const entry = entries[position]!;
  for (let earlier = 0; earlier < position; earlier += 1) if (entries[earlier] === entry) return true;
  return false;
}

/**
 * The work behind {@link validatePlanGraph}: see there for the rules and their order. Linear time in
 * steps plus dependency entries; allocation is confined to violations, so a valid plan costs little more
 * than a map of its keys and a few typed arrays.
 */
export function inspectPlanGraph(plan: PlanSubmission): PlanGraphInspection {
  const violations: PlanViolation[] = [];
  const nodes = plan.nodes;
  const count = nodes.length;
  const indexByKey = new Map<string, number>();
  if (isBlank(plan.goal)) {
    violations.push({ code: 'empty_goal', field: 'goal', message: 'The plan has no goal. Set "goal" to one sentence saying what the whole plan achieves.' });
  }
  if (count === 0) {
    violations.push({ code: 'no_nodes', field: 'nodes', message: 'The plan has no steps. Add at least one entry to "nodes", each with a key, a title, a description and dependsOn.' });
    return { violations, indexByKey, dependencies: { nodeCount: 0, offsets: new Int32Array(1), targets: new Int32Array(0) } };
  }

  // First occurrence of every non-blank key; malformed keys still count, so references to them are not
  // also reported as dangling.
  // Filled back to front so the first occurrence wins with one hash probe per step; only when the map
  // comes out smaller than the number of keys (some key is duplicated) is a second pass needed.
  const isFirstOccurrence = new Uint8Array(count);
  let entryCount = 0;
  let keyCount = 0;
  for (let index = count - 1; index >= 0; index -= 1) {
    const node = nodes[index]!;
    entryCount += node.dependsOn.length;
    if (isBlank(node.key)) continue;
    indexByKey.set(node.key, index);
    isFirstOccurrence[index] = 1;
    keyCount += 1;
  }
  if (indexByKey.size < keyCount) {
    for (let index = 0; index < count; index += 1) {
      if (isFirstOccurrence[index] === 1 && indexByKey.get(nodes[index]!.key) !== index) isFirstOccurrence[index] = 0;
    }
  }

  // Dependency edges as compressed sparse rows; `entryOf` maps each edge back to its position in the
  // step's dependsOn, for the field path of a cycle violation.
  const offsets = new Int32Array(count + 1);
  const targets = new Int32Array(entryCount);
  const entryOf = new Int32Array(entryCount);
  let edgeCount = 0;
  let lowerCaseKeys: Map<string, string> | null = null;

  for (let index = 0; index < count; index += 1) {
    const node = nodes[index]!;
    const key = node.key;
    const nodeKey = isBlank(key) ? undefined : key;
    if (nodeKey === undefined) {
      violations.push({ code: 'empty_key', field: `nodes.${index}.key`, message: `nodes.${index} has an empty key. Give every step a short unique key such as "write-tests", and use it in other steps' dependsOn.` });
    } else {
      const problem = keyFormatProblem(key);
      if (problem !== null) {
        violations.push({
          code: 'invalid_key',
          field: `nodes.${index}.key`,
          nodeKey,
          message: `The key of ${describeNode(key, index)} ${problem}. Use only letters, digits, "_", "-" and "." (e.g. "write-tests"), at most ${PLAN_KEY_MAX_LENGTH} characters, and update any dependsOn that refers to it.`,
        });
      }
      if (isFirstOccurrence[index] === 0) {
        violations.push({
          code: 'duplicate_key',
          field: `nodes.${index}.key`,
          nodeKey,
          message: `Key ${quote(key)} is used by both nodes.${indexByKey.get(key)!} and nodes.${index}. Every step needs its own key: rename one of them (or merge the two steps) and update any dependsOn that refers to it.`,
        });
      }
    }
    if (isBlank(node.title)) {
      violations.push({ code: 'empty_title', field: `nodes.${index}.title`, ...keyedBy(nodeKey), message: `${describeNode(key, index)} has an empty title. Give it a short imperative title saying what the step does.` });
    }

    const entries = node.dependsOn;
    const seen = entries.length > SCAN_LIMIT ? new Set<string>() : null;
    for (let position = 0; position < entries.length; position += 1) {
      const dependency = entries[position]!;
      if (repeatsEarlierEntry(entries, position, seen)) {
        violations.push({ code: 'duplicate_dependency', field: dependencyField(index, position), ...keyedBy(nodeKey), message: `${describeNode(key, index)} lists ${quote(dependency)} more than once in dependsOn (entry ${position} repeats an earlier entry). List each dependency once.` });
        continue;
      }
      seen?.add(dependency);
      if (nodeKey !== undefined && dependency === key) {
        violations.push({ code: 'self_dependency', field: dependencyField(index, position), ...keyedBy(nodeKey), message: `${describeNode(key, index)} depends on itself (dependsOn entry ${position}). A step cannot wait for itself: remove ${quote(dependency)} from its dependsOn.` });
        continue;
      }
      const target = indexByKey.get(dependency);
      if (target === undefined) {
        if (isBlank(dependency)) {
          violations.push({ code: 'dangling_dependency', field: dependencyField(index, position), ...keyedBy(nodeKey), message: `${describeNode(key, index)} has an empty dependsOn entry (entry ${position}). Put the key of the step it waits for there, or remove the entry.` });
          continue;
        }
        lowerCaseKeys ??= new Map([...indexByKey.keys()].reverse().map((known) => [known.toLowerCase(), known]));
        const nearMiss = lowerCaseKeys.get(dependency.toLowerCase());
        const hint = nearMiss === undefined ? '' : ` Did you mean ${quote(nearMiss)}? Keys are case-sensitive.`;
        violations.push({
          code: 'dangling_dependency',
          field: dependencyField(index, position),
          ...keyedBy(nodeKey),
          message: `${describeNode(key, index)} depends on ${quote(dependency)}, but no step has that key.${hint} Either add a step with key ${quote(dependency)} or remove it from dependsOn.`,
        });
        continue;
      }
      if (isFirstOccurrence[index] === 1) {
        targets[edgeCount] = target;
        entryOf[edgeCount] = position;
        edgeCount += 1;
      }
    }
    offsets[index + 1] = edgeCount;
  }

  const dependencies: CompactGraph = { nodeCount: count, offsets, targets: targets.subarray(0, edgeCount) };
  for (const cycle of findDependencyCycles(dependencies)) {
    const origin = cycle.nodes[0]!;
    const path = [...cycle.nodes, origin].map((index) => nodes[index]!.key);
    let knot = '';
    if (cycle.component.length > cycle.nodes.length) {
      const members = cycle.component.map((index) => nodes[index]!.key);
      knot = ` This loop is part of a knot of ${members.length} steps that all depend on each other (${listKeys(members)}); every loop among them must be broken.`;
    }
    violations.push({
      code: 'cycle',
      field: `nodes.${origin}.dependsOn.${entryOf[cycle.edges[0]!]!}`,
      nodeKey: nodes[origin]!.key,
      path,
      message: `The plan has a dependency cycle: ${cyclePathText(path)} (each step depends on the next, so none of them can ever start).${knot} Remove at least one of these dependencies, or merge the steps into one.`,
    });
  }
  return { violations, indexByKey, dependencies };
}
