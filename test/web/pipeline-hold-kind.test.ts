import { describe, expect, it } from 'vitest';
import { BUDGET_WAIT_PREFIX as ENGINE_BUDGET_WAIT, HELD_PREFIX as ENGINE_HELD } from '../../src/services/pipelines/pipeline-engine.js';
import { BUDGET_WAIT_PREFIX, HELD_PREFIX, holdKind, holdLabel, isHeld } from '../../web/src/pipelines/pipeline-view.js';

describe('the pipeline view tells an operator hold from a budget-room wait (ORC-4)', () => {
  it('keeps the same markers as the engine', () => {
    expect(HELD_PREFIX).toBe(ENGINE_HELD);
    expect(BUDGET_WAIT_PREFIX).toBe(ENGINE_BUDGET_WAIT);
  });

  it('labels each hold by who has to act', () => {
    const wait = { state: 'queued', error: `${BUDGET_WAIT_PREFIX}node b is estimated at up to $1.00 (no action needed)` };
    const pause = { state: 'queued', error: `${HELD_PREFIX}orchestration o: $10.00 spent has reached the cap` };
    expect([holdKind(wait), holdLabel(wait), isHeld(wait)]).toEqual(['budgetRoom', 'Waiting for budget room', true]);
    expect([holdKind(pause), holdLabel(pause), isHeld(pause)]).toEqual(['operator', 'Held', true]);
  });

  it('a failed node with the same text, or a queued node without it, is not held', () => {
    expect(isHeld({ state: 'failed', error: `${BUDGET_WAIT_PREFIX}x` })).toBe(false);
    expect(isHeld({ state: 'queued', error: null })).toBe(false);
  });
});
