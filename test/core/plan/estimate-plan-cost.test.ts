import { describe, expect, it } from 'vitest';
import { complexityFactor, estimatePlanCost } from '../../../src/core/plan/index.js';

const pricing = { inputPerMillion: 3, outputPerMillion: 15 };
const typical = 'x'.repeat(500);

describe('estimatePlanCost', () => {
  it('gives no figures without enough history (TRUTH-3: an invented default is not evidence)', () => {
    const estimate = estimatePlanCost([{ key: 'a', description: typical }], pricing, [{ inputTokens: 1, outputTokens: 1 }, { inputTokens: 2, outputTokens: 2 }]);
    expect(estimate).toEqual({
      perNode: [{ key: 'a', inputTokens: null, outputTokens: null, usd: null }],
      total: { inputTokens: null, outputTokens: null, usd: null },
      basis: 'noHistory',
      historyRuns: 2,
      currency: 'USD',
    });
  });

  it('uses the median of history from three runs on, ignoring unusable runs', () => {
    const history = [
      { inputTokens: 10_000, outputTokens: 1_000 },
      { inputTokens: 90_000, outputTokens: 9_000 },
      { inputTokens: 20_000, outputTokens: 3_000 },
      { inputTokens: Number.NaN, outputTokens: 5 },
      { inputTokens: -1, outputTokens: 5 },
    ];
    const estimate = estimatePlanCost([{ key: 'a', description: typical }], pricing, history);
    expect(estimate.basis).toBe('history');
    expect(estimate.perNode[0]).toEqual({ key: 'a', inputTokens: 20_000, outputTokens: 3_000, usd: 0.105 });
  });

  it('takes the mean of the middle two for an even history', () => {
    const history = [1, 2, 3, 4].map((n) => ({ inputTokens: n * 1_000, outputTokens: n * 100 }));
    expect(estimatePlanCost([{ key: 'a', description: typical }], null, history).perNode[0]).toMatchObject({ inputTokens: 2_500, outputTokens: 250 });
  });

  it('scales by the complexity factor clamp(0.5 + L/1000, 0.5, 3)', () => {
    expect(complexityFactor('')).toBe(0.5);
    expect(complexityFactor('   ')).toBe(0.5);
    expect(complexityFactor(typical)).toBe(1);
    expect(complexityFactor('x'.repeat(1_000))).toBe(1.5);
    expect(complexityFactor('x'.repeat(9_999))).toBe(3);
    const history = Array.from({ length: 3 }, () => ({ inputTokens: 40_000, outputTokens: 4_000 }));
    const estimate = estimatePlanCost([{ key: 'short', description: '' }, { key: 'long', description: 'x'.repeat(1_500) }], pricing, history);
    expect(estimate.perNode.map((node) => [node.inputTokens, node.outputTokens])).toEqual([
      [20_000, 2_000],
      [80_000, 8_000],
    ]);
    expect(estimate.total).toEqual({ inputTokens: 100_000, outputTokens: 10_000, usd: 0.45 });
  });

  it('reports unknown dollars when pricing is missing on either side', () => {
    for (const unknown of [null, { inputPerMillion: null, outputPerMillion: 15 }, { inputPerMillion: 3, outputPerMillion: null }]) {
      const history = Array.from({ length: 3 }, () => ({ inputTokens: 40_000, outputTokens: 4_000 }));
      const estimate = estimatePlanCost([{ key: 'a', description: typical }], unknown, history);
      expect(estimate.perNode[0]!.usd).toBeNull();
      expect(estimate.total.usd).toBeNull();
      expect(estimate.total.inputTokens).toBe(40_000);
    }
  });

  it('estimates an empty plan as zero', () => {
    const history = Array.from({ length: 3 }, () => ({ inputTokens: 1, outputTokens: 1 }));
    expect(estimatePlanCost([], pricing, history).total).toEqual({ inputTokens: 0, outputTokens: 0, usd: 0 });
  });
});
