import { describe, expect, it } from 'vitest';
import {
  UnknownPlanNodeError,
  compilePlan,
  isFinished,
  planNodeState,
  planProgress,
  propagateFailure,
  readyNodes,
  settledCount,
  type PlanNodeState,
} from '../../../src/core/plan/index.js';
import { plan, step } from '../../support/plan-fixtures.js';

//   design ─┬─ code ── test ─┬─ ship
//           └─ docs ─────────┘
//   lint (independent)
const blueprint = compilePlan(plan(step('design'), step('code', ['design']), step('docs', ['design']), step('test', ['code']), step('ship', ['test', 'docs']), step('lint')));

function states(entries: Record<string, PlanNodeState>): Map<string, PlanNodeState> {
  return new Map(Object.entries(entries));
}

describe('plan progress (PLAN-8)', () => {
  it('starts with the roots ready, and treats missing states as pending', () => {
    expect(readyNodes(blueprint, new Map())).toEqual(['design', 'lint']);
    expect(planNodeState(new Map(), 'design')).toBe('pending');
  });

  it('releases a step once all of its dependencies are done', () => {
    expect(readyNodes(blueprint, states({ design: 'done', lint: 'running' }))).toEqual(['code', 'docs']);
    expect(readyNodes(blueprint, states({ design: 'done', lint: 'done', code: 'done', docs: 'done', test: 'running' }))).toEqual([]);
    expect(readyNodes(blueprint, states({ design: 'done', lint: 'done', code: 'done', docs: 'done', test: 'done' }))).toEqual(['ship']);
  });

  it('counts a step marked ready but not started as ready, and never a started one', () => {
    expect(readyNodes(blueprint, states({ design: 'ready', lint: 'running' }))).toEqual(['design']);
    expect(readyNodes(blueprint, states({ design: 'done', code: 'failed', docs: 'cancelled', lint: 'blocked' }))).toEqual([]);
  });

  it('reads plain records safely, including keys like __proto__', () => {
    const odd = compilePlan(plan(step('__proto__'), step('constructor', ['__proto__'])));
    const record = JSON.parse('{"__proto__":"done"}') as Record<string, PlanNodeState>;
    expect(readyNodes(odd, record)).toEqual(['constructor']);
    expect(planNodeState({}, 'constructor')).toBe('pending');
    expect(settledCount(odd, record)).toBe(1);
  });

  it('blocks every transitive dependent of a failed step that has not started', () => {
    const before = states({ design: 'done', code: 'running', docs: 'done', lint: 'running' });
    const { states: after, blocked } = propagateFailure(blueprint, before, 'code');
    expect(blocked).toEqual(['test', 'ship']);
    expect(Object.fromEntries(after)).toEqual({ design: 'done', code: 'failed', docs: 'done', test: 'blocked', ship: 'blocked', lint: 'running' });
    expect(before.get('code')).toBe('running');
  });

  it('keeps a cancelled step cancelled and blocks its dependents', () => {
    const { states: after, blocked } = propagateFailure(blueprint, { design: 'cancelled' }, 'design');
    expect(after.get('design')).toBe('cancelled');
    expect(blocked).toEqual(['code', 'docs', 'test', 'ship']);
    expect(after.get('lint')).toBe('pending');
  });

  it('leaves running and settled dependents alone', () => {
    const { states: after, blocked } = propagateFailure(blueprint, states({ design: 'done', code: 'done', docs: 'failed', test: 'running' }), 'docs');
    expect(blocked).toEqual(['ship']);
    expect(after.get('test')).toBe('running');
  });

  it('rejects an unknown key', () => {
    expect(() => propagateFailure(blueprint, new Map(), 'nope')).toThrow(UnknownPlanNodeError);
  });

  it('counts settled steps and finishes only when every step is settled', () => {
    const running = states({ design: 'done', code: 'failed', docs: 'running', test: 'blocked', ship: 'blocked', lint: 'cancelled' });
    expect(settledCount(blueprint, running)).toBe(5);
    expect(planProgress(blueprint, running)).toEqual({
      settled: 5,
      total: 6,
      counts: { pending: 0, ready: 0, running: 1, done: 1, failed: 1, cancelled: 1, blocked: 2 },
    });
    expect(isFinished(blueprint, running)).toBe(false);
    running.set('docs', 'done');
    expect(isFinished(blueprint, running)).toBe(true);
    expect(planProgress(blueprint, new Map()).settled).toBe(0);
  });

  it('drives a whole plan to completion through readyNodes', () => {
    const current = new Map<string, PlanNodeState>();
    const waves: string[][] = [];
    while (!isFinished(blueprint, current)) {
      const wave = readyNodes(blueprint, current);
      expect(wave.length).toBeGreaterThan(0);
      waves.push(wave);
      for (const key of wave) current.set(key, 'done');
    }
    expect(waves).toEqual([['design', 'lint'], ['code', 'docs'], ['test'], ['ship']]);
  });
});
