import { describe, expect, it } from 'vitest';
import { PLAN_KEY_MAX_LENGTH, formatPlanViolations, validatePlanGraph, type PlanViolation } from '../../../src/core/plan/index.js';
import { plan, step } from '../../support/plan-fixtures.js';

function codes(violations: readonly PlanViolation[]): string[] {
  return violations.map((violation) => violation.code);
}

describe('validatePlanGraph (PLAN-2)', () => {
  it('accepts a valid plan', () => {
    expect(validatePlanGraph(plan(step('a'), step('b', ['a']), step('c', ['a', 'b'])))).toEqual([]);
  });

  it('reports an empty goal and a plan without steps', () => {
    const violations = validatePlanGraph({ goal: '  ', nodes: [] });
    expect(violations).toMatchObject([
      { code: 'empty_goal', field: 'goal' },
      { code: 'no_nodes', field: 'nodes' },
    ]);
  });

  it('reports a blank key without also calling it malformed', () => {
    const violations = validatePlanGraph(plan(step('  ')));
    expect(violations).toEqual([expect.objectContaining({ code: 'empty_key', field: 'nodes.0.key' })]);
    expect(violations[0]!.nodeKey).toBeUndefined();
  });

  it('reports an empty title', () => {
    expect(validatePlanGraph(plan(step('a', [], { title: '' })))).toEqual([
      expect.objectContaining({ code: 'empty_title', field: 'nodes.0.title', nodeKey: 'a' }),
    ]);
  });

  it.each([
    ['write tests', 'characters other than'],
    ['ключ', 'characters other than'],
    ['a/b', 'characters other than'],
    ['x'.repeat(PLAN_KEY_MAX_LENGTH + 1), `at most ${PLAN_KEY_MAX_LENGTH}`],
  ])('reports the malformed key %j', (key, fragment) => {
    const violations = validatePlanGraph(plan(step(key)));
    expect(codes(violations)).toEqual(['invalid_key']);
    expect(violations[0]!.message).toContain(fragment);
  });

  it('accepts letters, digits, "_", "-", "." and exactly 100 characters', () => {
    expect(validatePlanGraph(plan(step('A-b_c.9'), step('y'.repeat(PLAN_KEY_MAX_LENGTH), ['A-b_c.9'])))).toEqual([]);
  });

  it('does not report dependencies on a malformed key as dangling', () => {
    expect(codes(validatePlanGraph(plan(step('bad key'), step('b', ['bad key']))))).toEqual(['invalid_key']);
  });

  it('reports each duplicate key with both indexes', () => {
    const violations = validatePlanGraph(plan(step('a'), step('b'), step('a'), step('a')));
    expect(violations).toMatchObject([
      { code: 'duplicate_key', field: 'nodes.2.key', nodeKey: 'a' },
      { code: 'duplicate_key', field: 'nodes.3.key', nodeKey: 'a' },
    ]);
    expect(violations[0]!.message).toContain('nodes.0 and nodes.2');
    expect(violations[1]!.message).toContain('nodes.0 and nodes.3');
  });

  it('reports a dangling dependency naming the missing key, with a case hint when one fits', () => {
    const violations = validatePlanGraph(plan(step('Build'), step('b', ['Build', 'missing', 'build'])));
    expect(violations).toMatchObject([
      { code: 'dangling_dependency', field: 'nodes.1.dependsOn.1', nodeKey: 'b' },
      { code: 'dangling_dependency', field: 'nodes.1.dependsOn.2', nodeKey: 'b' },
    ]);
    expect(violations[0]!.message).toContain('"missing"');
    expect(violations[0]!.message).not.toContain('Did you mean');
    expect(violations[1]!.message).toContain('Did you mean "Build"?');
  });

  it('reports an empty dependency entry as dangling', () => {
    expect(validatePlanGraph(plan(step('a', ['']))))
      .toEqual([expect.objectContaining({ code: 'dangling_dependency', field: 'nodes.0.dependsOn.0', message: expect.stringContaining('empty dependsOn entry') })]);
  });

  it('reports a self-dependency, not a cycle', () => {
    expect(validatePlanGraph(plan(step('a', ['a'])))).toEqual([expect.objectContaining({ code: 'self_dependency', field: 'nodes.0.dependsOn.0', nodeKey: 'a' })]);
  });

  it('reports repeated dependency entries at the repeats', () => {
    const violations = validatePlanGraph(plan(step('a'), step('b', ['a', 'a', 'ghost', 'ghost', 'a'])));
    expect(violations.map((violation) => [violation.code, violation.field])).toEqual([
      ['duplicate_dependency', 'nodes.1.dependsOn.1'],
      ['dangling_dependency', 'nodes.1.dependsOn.2'],
      ['duplicate_dependency', 'nodes.1.dependsOn.3'],
      ['duplicate_dependency', 'nodes.1.dependsOn.4'],
    ]);
  });

  it('reports a cycle with its path, once', () => {
    const violations = validatePlanGraph(plan(step('a', ['b']), step('b', ['c']), step('c', ['a']), step('d', ['a'])));
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ code: 'cycle', nodeKey: 'a', field: 'nodes.0.dependsOn.0', path: ['a', 'b', 'c', 'a'] });
    expect(violations[0]!.message).toContain('a → b → c → a');
  });

  it('reports each disjoint cycle separately, ordered by their first step', () => {
    const violations = validatePlanGraph(plan(step('x', ['y']), step('p', ['q']), step('y', ['x']), step('q', ['r']), step('r', ['p'])));
    expect(violations.map((violation) => violation.path)).toEqual([
      ['x', 'y', 'x'],
      ['p', 'q', 'r', 'p'],
    ]);
  });

  it('points the cycle field at the dependency entry that starts the loop', () => {
    const violations = validatePlanGraph(plan(step('a', ['z', 'b']), step('b', ['a']), step('z')));
    expect(violations).toMatchObject([{ code: 'cycle', field: 'nodes.0.dependsOn.1', path: ['a', 'b', 'a'] }]);
  });

  it('reports a knot of interlocking cycles once, with the shortest loop and every member', () => {
    // a→b→a and a→c→d→a share a: one strongly connected component.
    const violations = validatePlanGraph(plan(step('a', ['c', 'b']), step('b', ['a']), step('c', ['d']), step('d', ['a'])));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.path).toEqual(['a', 'b', 'a']);
    expect(violations[0]!.message).toContain('knot of 4 steps');
    expect(violations[0]!.message).toContain('"a", "b", "c", "d"');
  });

  it('leaves later duplicates out of cycle detection', () => {
    const violations = validatePlanGraph(plan(step('a'), step('b', ['a']), step('a', ['b'])));
    expect(codes(violations)).toEqual(['duplicate_key']);
  });

  it('returns every violation at once, in a fixed order', () => {
    const violations = validatePlanGraph({
      goal: '',
      nodes: [
        step('a', ['b', 'a']),
        step('b', ['a', 'nope']),
        step('', [], { title: ' ' }),
        step('a b', ['a', 'a']),
        step('b'),
      ],
    });
    expect(violations.map((violation) => [violation.code, violation.field])).toEqual([
      ['empty_goal', 'goal'],
      ['self_dependency', 'nodes.0.dependsOn.1'],
      ['dangling_dependency', 'nodes.1.dependsOn.1'],
      ['empty_key', 'nodes.2.key'],
      ['empty_title', 'nodes.2.title'],
      ['invalid_key', 'nodes.3.key'],
      ['duplicate_dependency', 'nodes.3.dependsOn.1'],
      ['duplicate_key', 'nodes.4.key'],
      ['cycle', 'nodes.0.dependsOn.0'],
    ]);
  });

  it('writes messages the model can act on', () => {
    const [dangling] = validatePlanGraph(plan(step('a', ['b'])));
    expect(dangling!.message).toBe('step "a" (nodes.0) depends on "b", but no step has that key. Either add a step with key "b" or remove it from dependsOn.');
  });

  it('validates a 100,000-step chain without exhausting the stack', () => {
    const count = 100_000;
    const nodes = Array.from({ length: count }, (_, index) => step(`n${index}`, index === 0 ? [] : [`n${index - 1}`]));
    expect(validatePlanGraph(plan(...nodes))).toEqual([]);
    nodes[0] = step('n0', [`n${count - 1}`]);
    const violations = validatePlanGraph(plan(...nodes));
    expect(codes(violations)).toEqual(['cycle']);
    expect(violations[0]!.path).toHaveLength(count + 1);
    // The message stays short even though the loop has 100k steps.
    expect(violations[0]!.message.length).toBeLessThan(1_000);
    expect(violations[0]!.message).toContain('more steps');
  });
});

describe('formatPlanViolations', () => {
  it('numbers the violations with their fields and asks for a full resubmission', () => {
    const text = formatPlanViolations(validatePlanGraph(plan(step('a', ['a']), step('a'))));
    expect(text.split('\n')).toEqual([
      'The plan was not accepted: 2 problems to fix.',
      expect.stringMatching(/^1\. \[self_dependency at nodes\.0\.dependsOn\.0\] /),
      expect.stringMatching(/^2\. \[duplicate_key at nodes\.1\.key\] /),
      'Fix all of them and call submit_plan again with the complete corrected plan.',
    ]);
  });

  it('caps the list', () => {
    const violations = validatePlanGraph(plan(...Array.from({ length: 60 }, (_, index) => step(`s${index}`, ['ghost']))));
    const lines = formatPlanViolations(violations).split('\n');
    expect(lines).toHaveLength(1 + 50 + 1 + 1);
    expect(lines[51]).toBe('… and 10 more violations not shown.');
  });
});
