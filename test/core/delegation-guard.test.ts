import { describe, expect, it } from 'vitest';
import { checkDelegation, DEFAULT_DELEGATION_DEPTH } from '../../src/core/index.js';

describe('delegation guard (POL-8)', () => {
  it('POL-8: the default depth cap is 3 hops', () => {
    expect(DEFAULT_DELEGATION_DEPTH).toBe(3);
    expect(checkDelegation({ chain: ['ceo'], target: 'a' })).toEqual({ allowed: true, depth: 1 });
    expect(checkDelegation({ chain: ['ceo', 'a', 'b'], target: 'c' })).toEqual({ allowed: true, depth: 3 });
    const refused = checkDelegation({ chain: ['ceo', 'a', 'b', 'c'], target: 'd' });
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) expect(refused.reason).toMatch(/depth limit is 3/);
  });

  it('POL-8: the cap is a setting', () => {
    expect(checkDelegation({ chain: ['ceo', 'a'], target: 'b', maxDepth: 1 }).allowed).toBe(false);
    expect(checkDelegation({ chain: ['ceo', 'a', 'b', 'c', 'd'], target: 'e', maxDepth: 5 }).allowed).toBe(true);
  });

  it('POL-8: cycles are refused, with a reason meant for the agent verbatim', () => {
    const cycle = checkDelegation({ chain: ['ceo', 'qa', 'engineer'], target: 'qa', names: { qa: '@qa' } });
    expect(cycle).toEqual({
      allowed: false,
      reason: 'delegate_task refused: @qa is already in this delegation chain, so handing the task back would form a cycle (ceo → @qa → engineer → @qa). Finish the step yourself or report back to the agent that asked you.',
    });
    const self = checkDelegation({ chain: ['ceo'], target: 'ceo' });
    expect(self.allowed).toBe(false);
    if (!self.allowed) expect(self.reason).toMatch(/to yourself/);
  });

  it('refuses an empty chain rather than guessing the delegator', () => {
    expect(checkDelegation({ chain: [], target: 'a' }).allowed).toBe(false);
  });
});
