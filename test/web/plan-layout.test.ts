import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edgeId, LAYER_GAP, layoutPlanSync, NODE_HEIGHT, NODE_WIDTH, type Point } from '../../web/src/conversation/plan-layout.js';

/** A random DAG: node i may depend only on nodes before it. */
const dag = fc.integer({ min: 1, max: 14 }).chain((count) =>
  fc.tuple(...Array.from({ length: count }, (_, index) => fc.subarray(Array.from({ length: index }, (_, before) => before)))).map((deps) =>
    deps.map((dependsOn, index) => ({ key: `n${index}`, dependsOn: dependsOn.map((before) => `n${before}`) })),
  ),
);

describe('Plan Studio layout (PLAN-3)', () => {
  it('places every step right of all its dependencies, with no two steps overlapping', () => {
    fc.assert(
      fc.property(dag, (nodes) => {
        const { positions } = layoutPlanSync(nodes);
        expect(positions.size).toBe(nodes.length);
        for (const node of nodes) for (const dependency of node.dependsOn) expect(positions.get(dependency)!.x + NODE_WIDTH).toBeLessThan(positions.get(node.key)!.x);
        const boxes = [...positions.values()];
        for (let a = 0; a < boxes.length; a += 1)
          for (let b = a + 1; b < boxes.length; b += 1) {
            const overlapX = Math.abs(boxes[a]!.x - boxes[b]!.x) < NODE_WIDTH;
            const overlapY = Math.abs(boxes[a]!.y - boxes[b]!.y) < NODE_HEIGHT;
            expect(overlapX && overlapY).toBe(false);
          }
      }),
    );
  });

  it('lays out an invalid plan too: missing dependencies are ignored, cycles and duplicates do not hang', () => {
    const { positions } = layoutPlanSync([
      { key: 'a', dependsOn: ['c', 'ghost'] },
      { key: 'b', dependsOn: ['a'] },
      { key: 'c', dependsOn: ['b'] },
      { key: 'a', dependsOn: [] },
      { key: 'd', dependsOn: ['d'] },
    ]);
    expect([...positions.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a diamond: the join sits right of both branches, the branches in one column', () => {
    const { positions } = layoutPlanSync([
      { key: 'research', dependsOn: [] },
      { key: 'build', dependsOn: ['research'] },
      { key: 'docs', dependsOn: ['research'] },
      { key: 'verify', dependsOn: ['build', 'docs'] },
    ]);
    expect(positions.get('build')!.x).toBe(positions.get('docs')!.x);
    expect(positions.get('research')!.x).toBeLessThan(positions.get('build')!.x);
    expect(positions.get('verify')!.x).toBeGreaterThan(positions.get('docs')!.x);
  });

  it('an edge that skips a column runs through a free slot of every column it crosses, never behind a step', () => {
    fc.assert(
      fc.property(dag, (nodes) => {
        const { positions, routes } = layoutPlanSync(nodes);
        for (const node of nodes)
          for (const dependency of node.dependsOn) {
            const from = positions.get(dependency)!;
            const to = positions.get(node.key)!;
            const route: Point[] = routes.get(edgeId(dependency, node.key)) ?? [];
            // One slot (entered, left) per column between the ends; nothing for neighbouring columns.
            const crossed = Math.round((to.x - from.x) / (NODE_WIDTH + LAYER_GAP)) - 1;
            expect(route.length).toBe(2 * crossed);
            // Across a column the edge is a straight segment at one height: no step of that column is at that height.
            for (let at = 0; at < route.length; at += 2) {
              const enter = route[at]!;
              const leave = route[at + 1]!;
              expect(leave.y).toBe(enter.y);
              for (const other of positions.values()) {
                if (other.x !== enter.x) continue;
                expect(enter.y > other.y && enter.y < other.y + NODE_HEIGHT, `${dependency}->${node.key} behind ${other.key}`).toBe(false);
              }
            }
          }
      }),
    );
  });

  it('the plan where the last step needs both earlier ones: its edge from the first goes round the second', () => {
    const { positions, routes } = layoutPlanSync([
      { key: 'api', dependsOn: [] },
      { key: 'ui', dependsOn: ['api'] },
      { key: 'tests', dependsOn: ['api', 'ui'] },
    ]);
    const ui = positions.get('ui')!;
    const route = routes.get(edgeId('api', 'tests'))!;
    expect(route.map((point) => point.x)).toEqual([ui.x, ui.x + NODE_WIDTH]);
    expect(route[0]!.y >= ui.y + NODE_HEIGHT || route[0]!.y <= ui.y).toBe(true);
  });
});
