import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutPlanSync, NODE_HEIGHT, NODE_WIDTH } from '../../web/src/conversation/plan-layout.js';

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
        const positions = layoutPlanSync(nodes);
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
    const positions = layoutPlanSync([
      { key: 'a', dependsOn: ['c', 'ghost'] },
      { key: 'b', dependsOn: ['a'] },
      { key: 'c', dependsOn: ['b'] },
      { key: 'a', dependsOn: [] },
      { key: 'd', dependsOn: ['d'] },
    ]);
    expect([...positions.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a diamond: the join sits right of both branches, the branches in one column', () => {
    const positions = layoutPlanSync([
      { key: 'research', dependsOn: [] },
      { key: 'build', dependsOn: ['research'] },
      { key: 'docs', dependsOn: ['research'] },
      { key: 'verify', dependsOn: ['build', 'docs'] },
    ]);
    expect(positions.get('build')!.x).toBe(positions.get('docs')!.x);
    expect(positions.get('research')!.x).toBeLessThan(positions.get('build')!.x);
    expect(positions.get('verify')!.x).toBeGreaterThan(positions.get('docs')!.x);
  });
});
