/**
 * A directed graph over node indexes `0..nodeCount-1` in compressed sparse row form: the edges leaving
 * node `v` are `targets[offsets[v]]` … `targets[offsets[v + 1] - 1]`. Typed arrays keep 100k-node plans
 * cheap and make edge ids (positions in `targets`) free.
 */
export interface CompactGraph {
  readonly nodeCount: number;
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
}

/** One loop of a graph, found per strongly connected component (PLAN-2). */
export interface DependencyCycle {
  /** Node indexes around the loop, starting at the component's lowest index (not repeated at the end). */
  readonly nodes: readonly number[];
  /** Edge ids (positions in `targets`) of each step: `edges[i]` goes from `nodes[i]` to the next node. */
  readonly edges: readonly number[];
  /** Every node of the strongly connected component the loop lies in, ascending. */
  readonly component: readonly number[];
}

/**
 * Finds the cycles of a graph in linear time (PLAN-2): Tarjan's strongly connected components, run with
 * an explicit stack so a 100k-step chain cannot overflow the call stack. Every component with more than
 * one node contains at least one cycle; for each we report the shortest cycle through its lowest-indexed
 * node (a breadth-first search confined to the component) plus the whole component.
 *
 * Why one cycle per component rather than every elementary cycle: their number can grow exponentially
 * with the graph (Johnson's algorithm is output-sensitive, not linear), and the fix is the same either
 * way: cut dependencies inside the component. Self-loops are not edges here; the validator reports them
 * separately. Results are ordered by their lowest node index, so they are deterministic.
 */
export function findDependencyCycles(graph: CompactGraph): DependencyCycle[] {
  const { nodeCount, offsets, targets } = graph;
  const visitIndex = new Int32Array(nodeCount).fill(-1);
  const lowLink = new Int32Array(nodeCount);
  const onStack = new Uint8Array(nodeCount);
  const componentStack = new Int32Array(nodeCount);
  const callNode = new Int32Array(nodeCount);
  const callEdge = new Int32Array(nodeCount);
  const componentOf = new Int32Array(nodeCount).fill(-1);
  const components: number[][] = [];
  let componentTop = 0;
  let counter = 0;

  for (let start = 0; start < nodeCount; start += 1) {
    if (visitIndex[start] !== -1) continue;
    let callTop = 0;
    visitIndex[start] = lowLink[start] = counter++;
    componentStack[componentTop++] = start;
    onStack[start] = 1;
    callNode[callTop] = start;
    callEdge[callTop] = offsets[start]!;
    callTop += 1;

    while (callTop > 0) {
      const node = callNode[callTop - 1]!;
      const edge = callEdge[callTop - 1]!;
      if (edge < offsets[node + 1]!) {
        callEdge[callTop - 1] = edge + 1;
        const next = targets[edge]!;
        if (visitIndex[next] === -1) {
          visitIndex[next] = lowLink[next] = counter++;
          componentStack[componentTop++] = next;
          onStack[next] = 1;
          callNode[callTop] = next;
          callEdge[callTop] = offsets[next]!;
          callTop += 1;
        } else if (onStack[next] === 1 && visitIndex[next]! < lowLink[node]!) {
          lowLink[node] = visitIndex[next]!;
        }
        continue;
      }
      callTop -= 1;
      if (callTop > 0) {
        const parent = callNode[callTop - 1]!;
        if (lowLink[node]! < lowLink[parent]!) lowLink[parent] = lowLink[node]!;
      }
      if (lowLink[node] !== visitIndex[node]) continue;
      // `node` roots a component: everything above it on the component stack belongs to it.
      if (componentStack[componentTop - 1] === node) {
        componentTop -= 1;
        onStack[node] = 0;
        continue;
      }
      const members: number[] = [];
      let member: number;
      do {
        member = componentStack[--componentTop]!;
        onStack[member] = 0;
        componentOf[member] = components.length;
        members.push(member);
      } while (member !== node);
      components.push(members);
    }
  }

  const seen = new Int32Array(nodeCount).fill(-1);
  const parentNode = new Int32Array(nodeCount);
  const parentEdge = new Int32Array(nodeCount);
  const queue = new Int32Array(nodeCount);
  const cycles: DependencyCycle[] = [];
  components.forEach((members, componentId) => {
    members.sort((left, right) => left - right);
    const origin = members[0]!;
    let head = 0;
    let tail = 0;
    queue[tail++] = origin;
    seen[origin] = componentId;
    let closingNode = -1;
    let closingEdge = -1;
    search: while (head < tail) {
      const node = queue[head++]!;
      for (let edge = offsets[node]!; edge < offsets[node + 1]!; edge += 1) {
        const next = targets[edge]!;
        if (componentOf[next] !== componentId) continue;
        if (next === origin) {
          closingNode = node;
          closingEdge = edge;
          break search;
        }
        if (seen[next] === componentId) continue;
        seen[next] = componentId;
        parentNode[next] = node;
        parentEdge[next] = edge;
        queue[tail++] = next;
      }
    }
    // A component of two or more nodes always has a cycle through each member, so the search closes.
    const nodes: number[] = [];
    const edges: number[] = [closingEdge];
    for (let node = closingNode; node !== origin; node = parentNode[node]!) {
      nodes.push(node);
      edges.push(parentEdge[node]!);
    }
    nodes.push(origin);
    nodes.reverse();
    edges.reverse();
    cycles.push({ nodes, edges, component: members });
  });
  return cycles.sort((left, right) => left.nodes[0]! - right.nodes[0]!);
}
