export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 64;
export const LAYER_GAP = 56;
const NODE_GAP = 28;
/** Barycenter sweeps that reduce edge crossings; plans are small, a few sweeps settle them. */
const SWEEPS = 4;

/** The part of a plan node the layout reads: the graph's shape, not the node's state (no import, so tests load it as is). */
export interface PlanGraphNode {
  key: string;
  dependsOn: string[];
}

export interface PositionedNode {
  key: string;
  x: number;
  y: number;
}

export interface Point {
  x: number;
  y: number;
}

/**
 * The laid-out graph: each step's box (top-left corner), and for each edge that skips a column
 * (`dependency->step`), the points it passes through on the way: the centre line of a free slot in
 * every column between its ends, entered on the slot's left and left on its right. A straight line
 * would run behind the steps of those columns.
 */
export interface PlanGraphLayout {
  positions: Map<string, PositionedNode>;
  routes: Map<string, Point[]>;
}

/** The id an edge has in the graph and in `routes`. */
export function edgeId(dependency: string, step: string): string {
  return `${dependency}->${step}`;
}

/**
 * Lays the plan graph out in layers, left → right (PLAN-3): a step sits one column right of its
 * furthest dependency (longest path), and each column is ordered by the average position of the
 * neighbours in the column before (then after), which keeps edges from crossing in typical plans.
 * Written here instead of using a general graph-layout library, which made Plan Studio's chunk
 * about 1.3 MB larger for graphs of a handful of steps. Dependencies on missing keys (an invalid
 * plan) are left out; a cycle (also invalid, and named in the errors) is cut where it closes.
 * Synchronous work behind an async signature, so a worker could take it over without callers changing.
 */
export async function layoutPlan(nodes: PlanGraphNode[]): Promise<PlanGraphLayout> {
  return Promise.resolve(layoutPlanSync(nodes));
}

/**
 * An edge that skips columns is cut into a chain through one placeholder per column it crosses
 * (the usual layered-layout device): the placeholders are ordered with the steps, so each takes a
 * slot of its own, and the edge is drawn through those slots instead of through a step's box.
 */
export function layoutPlanSync(nodes: PlanGraphNode[]): PlanGraphLayout {
  const seen = new Set<string>();
  const unique = nodes.filter((node) => (seen.has(node.key) ? false : (seen.add(node.key), true)));
  const parents = new Map(unique.map((node) => [node.key, [...new Set(node.dependsOn.filter((dependency) => seen.has(dependency) && dependency !== node.key))]]));
  const children = new Map<string, string[]>(unique.map((node) => [node.key, []]));
  for (const [key, list] of parents) for (const parent of list) children.get(parent)!.push(key);

  // Longest-path layering, depth-first with an "on the stack" mark that cuts cycles.
  const layer = new Map<string, number>();
  const onStack = new Set<string>();
  const layerOf = (key: string): number => {
    const known = layer.get(key);
    if (known !== undefined) return known;
    if (onStack.has(key)) return 0;
    onStack.add(key);
    let value = 0;
    for (const parent of parents.get(key) ?? []) if (!onStack.has(parent)) value = Math.max(value, layerOf(parent) + 1);
    onStack.delete(key);
    layer.set(key, value);
    return value;
  };
  for (const node of unique) layerOf(node.key);

  const columns: string[][] = [];
  for (const node of unique) (columns[layer.get(node.key)!] ??= []).push(node.key);

  // Placeholders for edges that skip columns, chained from the dependency to the step.
  const placeholdersOf = new Map<string, string[]>();
  for (const node of unique) {
    for (const parent of parents.get(node.key)!) {
      const from = layer.get(parent)!;
      const to = layer.get(node.key)!;
      if (to - from < 2) continue;
      const id = edgeId(parent, node.key);
      const chain = Array.from({ length: to - from - 1 }, (_, step) => `\u0000${id}#${step}`);
      placeholdersOf.set(id, chain);
      const path = [parent, ...chain, node.key];
      for (let at = 0; at < chain.length; at += 1) {
        const placeholder = chain[at]!;
        (columns[from + 1 + at] ??= []).push(placeholder);
        parents.set(placeholder, [path[at]!]);
        children.set(placeholder, [path[at + 2]!]);
      }
      // Ordering follows the chain, not the direct edge.
      parents.set(node.key, parents.get(node.key)!.map((key) => (key === parent ? chain.at(-1)! : key)));
      children.set(parent, children.get(parent)!.map((key) => (key === node.key ? chain[0]! : key)));
    }
  }
  for (let index = 0; index < columns.length; index += 1) columns[index] ??= [];

  const positionIn = new Map<string, number>();
  const index = () => columns.forEach((column) => column.forEach((key, at) => positionIn.set(key, at)));
  index();
  const barycenter = (key: string, neighbours: Map<string, string[]>, fallback: number) => {
    const list = neighbours.get(key) ?? [];
    if (list.length === 0) return fallback;
    return list.reduce((sum, other) => sum + (positionIn.get(other) ?? 0), 0) / list.length;
  };
  for (let sweep = 0; sweep < SWEEPS; sweep += 1) {
    const forward = sweep % 2 === 0;
    const order = forward ? columns.keys() : [...columns.keys()].reverse().values();
    for (const at of order) {
      const column = columns[at]!;
      const neighbours = forward ? parents : children;
      // A stable sort: equal barycenters keep the plan's own order.
      const sorted = column.map((key, position) => ({ key, weight: barycenter(key, neighbours, position), position })).sort((a, b) => a.weight - b.weight || a.position - b.position);
      columns[at] = sorted.map((entry) => entry.key);
      columns[at]!.forEach((key, position) => positionIn.set(key, position));
    }
  }

  const tallest = Math.max(0, ...columns.map((column) => column.length));
  const slots = new Map<string, PositionedNode>();
  columns.forEach((column, at) => {
    // Shorter columns are centred against the tallest one.
    const offset = ((tallest - column.length) * (NODE_HEIGHT + NODE_GAP)) / 2;
    column.forEach((key, position) => slots.set(key, { key, x: at * (NODE_WIDTH + LAYER_GAP), y: offset + position * (NODE_HEIGHT + NODE_GAP) }));
  });
  const positions = new Map(unique.map((node) => [node.key, slots.get(node.key)!]));
  const routes = new Map<string, Point[]>();
  for (const [id, chain] of placeholdersOf) {
    routes.set(
      id,
      chain.flatMap((placeholder) => {
        const slot = slots.get(placeholder)!;
        const y = slot.y + NODE_HEIGHT / 2;
        return [{ x: slot.x, y }, { x: slot.x + NODE_WIDTH, y }];
      }),
    );
  }
  return { positions, routes };
}

/**
 * The SVG path of an edge from its dependency's right side to its step's left side through the
 * route's points: straight across each free slot, an S-curve (horizontal at both ends, like the
 * graph's other edges) across each gap between columns.
 */
export function routedEdgePath(from: Point, through: Point[], to: Point): string {
  const points = [from, ...through, to];
  let path = `M ${from.x},${from.y}`;
  for (let at = 1; at < points.length; at += 1) {
    const a = points[at - 1]!;
    const b = points[at]!;
    if (a.y === b.y) {
      path += ` L ${b.x},${b.y}`;
      continue;
    }
    const middle = (a.x + b.x) / 2;
    path += ` C ${middle},${a.y} ${middle},${b.y} ${b.x},${b.y}`;
  }
  return path;
}
