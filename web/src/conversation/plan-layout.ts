import ELK from 'elkjs/lib/elk.bundled.js';
import type { PlanNode } from '../api/types';

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 64;

const elk = new ELK();

/** The part of a plan node the layout reads: the graph's shape, not the node's state. */
export type PlanGraphNode = Pick<PlanNode, 'key' | 'dependsOn'>;

export interface PositionedNode {
  key: string;
  x: number;
  y: number;
}

/**
 * Lays the plan graph out with ELK's layered algorithm, left → right. Dependencies on keys that do
 * not exist (an invalid plan) are left out of the layout; the errors list names them.
 */
export async function layoutPlan(nodes: PlanGraphNode[]): Promise<Map<string, PositionedNode>> {
  const keysPresent = new Set(nodes.map((node) => node.key));
  const seenKeys = new Set<string>();
  const unique = nodes.filter((node) => (seenKeys.has(node.key) ? false : (seenKeys.add(node.key), true)));
  const edges = unique.flatMap((node) =>
    node.dependsOn.filter((dependency) => keysPresent.has(dependency) && dependency !== node.key).map((dependency) => ({ id: `${dependency}->${node.key}`, sources: [dependency], targets: [node.key] })),
  );
  const graph = await elk.layout({
    id: 'plan',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '28',
      'elk.layered.spacing.nodeNodeBetweenLayers': '56',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
    },
    children: unique.map((node) => ({ id: node.key, width: NODE_WIDTH, height: NODE_HEIGHT })),
    edges,
  });
  const positions = new Map<string, PositionedNode>();
  for (const child of graph.children ?? []) positions.set(child.id, { key: child.id, x: child.x ?? 0, y: child.y ?? 0 });
  return positions;
}
