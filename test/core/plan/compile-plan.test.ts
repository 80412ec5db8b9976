import { describe, expect, it } from 'vitest';
import { InvalidPlanError, compilePlan } from '../../../src/core/plan/index.js';
import { plan, step } from '../../support/plan-fixtures.js';

describe('compilePlan (PLAN-7)', () => {
  it('compiles a diamond into ordered tickets, edges, levels, roots and leaves', () => {
    const blueprint = compilePlan(plan(step('ship', ['test', 'docs']), step('docs', ['design']), step('test', ['code']), step('code', ['design']), step('design')));
    expect(blueprint.tickets.map((ticket) => [ticket.key, ticket.order, ticket.level, ticket.dependsOn])).toEqual([
      ['design', 0, 0, []],
      ['docs', 1, 1, ['design']],
      ['code', 2, 1, ['design']],
      ['test', 3, 2, ['code']],
      ['ship', 4, 3, ['docs', 'test']],
    ]);
    expect(blueprint.edges).toEqual([
      { from: 'design', to: 'docs' },
      { from: 'design', to: 'code' },
      { from: 'code', to: 'test' },
      { from: 'docs', to: 'ship' },
      { from: 'test', to: 'ship' },
    ]);
    expect(blueprint.levels).toEqual([['design'], ['docs', 'code'], ['test'], ['ship']]);
    expect(blueprint.roots).toEqual(['design']);
    expect(blueprint.leaves).toEqual(['ship']);
    expect(blueprint.goal).toBe('Ship the feature');
  });

  it('keeps a plan already in dependency order in its declared order', () => {
    const blueprint = compilePlan(plan(step('b'), step('a'), step('c', ['a']), step('d')));
    expect(blueprint.tickets.map((ticket) => ticket.key)).toEqual(['b', 'a', 'c', 'd']);
    expect(blueprint.roots).toEqual(['b', 'a', 'd']);
    expect(blueprint.leaves).toEqual(['b', 'c', 'd']);
    expect(blueprint.levels).toEqual([['b', 'a', 'd'], ['c']]);
  });

  it('uses the longest path for the level, not the shortest', () => {
    const blueprint = compilePlan(plan(step('a'), step('b', ['a']), step('c', ['b']), step('d', ['a', 'c'])));
    expect(blueprint.tickets.find((ticket) => ticket.key === 'd')!.level).toBe(3);
  });

  it('sorts dependsOn by code unit, not by locale', () => {
    const blueprint = compilePlan(plan(step('b'), step('a'), step('B'), step('z', ['b', 'a', 'B'])));
    expect(blueprint.tickets.at(-1)!.dependsOn).toEqual(['B', 'a', 'b']);
  });

  it('copies titles and descriptions through unchanged', () => {
    const [ticket] = compilePlan(plan(step('a', [], { title: '  Title  ', description: '' }))).tickets;
    expect(ticket).toEqual({ key: 'a', title: '  Title  ', description: '', dependsOn: [], order: 0, level: 0 });
  });

  it('gives byte-identical output for the same input', () => {
    const submission = plan(step('c', ['a', 'b']), step('a'), step('b', ['a']));
    expect(JSON.stringify(compilePlan(submission))).toBe(JSON.stringify(compilePlan(structuredClone(submission))));
  });

  it('throws a typed error carrying every violation for an invalid plan', () => {
    let caught: unknown;
    try {
      compilePlan(plan(step('a', ['b']), step('b', ['a']), step('a')));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidPlanError);
    const error = caught as InvalidPlanError;
    expect(error.code).toBe('INVALID_PLAN');
    expect(error.violations.map((violation) => violation.code)).toEqual(['duplicate_key', 'cycle']);
    expect(error.message).toContain('2 violations');
  });

  it('compiles a 100,000-step chain listed backwards', () => {
    const count = 100_000;
    const nodes = Array.from({ length: count }, (_, index) => step(`n${count - 1 - index}`, index === count - 1 ? [] : [`n${count - 2 - index}`]));
    const blueprint = compilePlan(plan(...nodes));
    expect(blueprint.tickets[0]!.key).toBe('n0');
    expect(blueprint.tickets.at(-1)).toMatchObject({ key: `n${count - 1}`, level: count - 1, order: count - 1 });
    expect(blueprint.levels).toHaveLength(count);
  });
});
