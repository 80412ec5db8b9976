import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldVerdict, type AxisResult, type VerdictFinding } from '../../../src/core/review/fold-verdict.js';
import { partitionFindings } from '../../../src/core/review/read-finding.js';
import { reviewDelta } from '../../../src/core/review/review-delta.js';
import { FINDING_PRIORITIES, FINDING_STATUSES, VERDICT_RANK } from '../../../src/core/review/review-types.js';

const finding = fc.record<VerdictFinding>({
  priority: fc.constantFrom(...FINDING_PRIORITIES),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  status: fc.constantFrom(...FINDING_STATUSES),
});
const liveFinding = fc.record<VerdictFinding>({
  priority: fc.constantFrom(...FINDING_PRIORITIES),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  status: fc.constantFrom('open' as const, 'consensusReady' as const, 'contested' as const),
});
const axis = fc.record<AxisResult>({
  axis: fc.constantFrom('correctness', 'security', 'tests', 'lint', 'unit'),
  kind: fc.constantFrom('agent' as const, 'gated' as const),
  status: fc.constantFrom('pass' as const, 'fail' as const, 'notRun' as const),
});
const failingAxis = fc.record<AxisResult>({
  axis: fc.constantFrom('tests', 'lint', 'security'),
  kind: fc.constantFrom('agent' as const, 'gated' as const),
  status: fc.constantFrom('fail' as const, 'notRun' as const),
});
const threshold = fc.double({ min: 0, max: 1, noNaN: true });
const rank = (input: Parameters<typeof foldVerdict>[0]) => VERDICT_RANK[foldVerdict(input).verdict];

describe('verdict fold (REV-4)', () => {
  it('monotone: adding any finding never makes the verdict less strict', () => {
    fc.assert(
      fc.property(fc.array(finding), fc.array(axis), finding, threshold, (findings, axes, extra, limit) => {
        expect(rank({ findings: [...findings, extra], axes, threshold: limit })).toBeGreaterThanOrEqual(rank({ findings, axes, threshold: limit }));
      }),
    );
  });

  it('monotone: adding a failing or not-run axis never makes the verdict less strict, and makes it at least hold', () => {
    fc.assert(
      fc.property(fc.array(finding), fc.array(axis), failingAxis, threshold, (findings, axes, extra, limit) => {
        const after = rank({ findings, axes: [...axes, extra], threshold: limit });
        expect(after).toBeGreaterThanOrEqual(rank({ findings, axes, threshold: limit }));
        expect(after).toBeGreaterThanOrEqual(VERDICT_RANK.hold);
      }),
    );
  });

  it('a failed gate forces block; a gate that could not run forces at least hold (missing evidence is never green)', () => {
    fc.assert(
      fc.property(fc.array(finding), fc.array(axis), threshold, (findings, axes, limit) => {
        expect(foldVerdict({ findings, axes: [...axes, { axis: 'unit', kind: 'gated', status: 'fail' }], threshold: limit }).verdict).toBe('block');
        expect(rank({ findings, axes: [...axes, { axis: 'unit', kind: 'gated', status: 'notRun' }], threshold: limit })).toBeGreaterThanOrEqual(VERDICT_RANK.hold);
      }),
    );
  });

  it('monotone in confidence and threshold: a surer finding or a lower bar never relaxes the verdict', () => {
    fc.assert(
      fc.property(fc.array(liveFinding, { minLength: 1 }), fc.array(axis), threshold, threshold, fc.nat(), (findings, axes, low, high, pick) => {
        const [lower, upper] = low <= high ? [low, high] : [high, low];
        expect(rank({ findings, axes, threshold: lower })).toBeGreaterThanOrEqual(rank({ findings, axes, threshold: upper }));
        const index = pick % findings.length;
        const surer = findings.map((entry, at) => (at === index ? { ...entry, confidence: 1 } : entry));
        expect(rank({ findings: surer, axes, threshold: lower })).toBeGreaterThanOrEqual(rank({ findings, axes, threshold: lower }));
      }),
    );
  });

  it('the rules by example', () => {
    const open = (priority: VerdictFinding['priority'], confidence: number): VerdictFinding => ({ priority, confidence, status: 'open' });
    expect(foldVerdict({ findings: [], axes: [], threshold: 0.7 })).toMatchObject({ verdict: 'ship', confidence: 1 });
    expect(foldVerdict({ findings: [open('P0', 0.7)], axes: [], threshold: 0.7 })).toMatchObject({ verdict: 'block', confidence: 0.7 });
    expect(foldVerdict({ findings: [open('P0', 0.69)], axes: [], threshold: 0.7 }).verdict).toBe('hold');
    expect(foldVerdict({ findings: [open('P1', 1)], axes: [], threshold: 0.7 }).verdict).toBe('hold');
    expect(foldVerdict({ findings: [open('P2', 1), open('P3', 1)], axes: [], threshold: 0.7 })).toMatchObject({ verdict: 'ship', confidence: 0.5 });
    expect(foldVerdict({ findings: [{ priority: 'P0', confidence: 1, status: 'dismissed' }, { priority: 'P0', confidence: 1, status: 'resolved' }], axes: [], threshold: 0.7 }).verdict).toBe('ship');
    expect(foldVerdict({ findings: [{ priority: 'P0', confidence: 1, status: 'contested' }], axes: [], threshold: 0.7 }).verdict).toBe('block');
  });
});

describe('REV-3 read boundary', () => {
  it('drops and counts findings lacking priority or confidence, or with either out of range', () => {
    const base = { type: 'bug', status: 'open' };
    const { kept, dropped, reasons } = partitionFindings([
      { ...base, priority: 'P1', confidence: 0.5 },
      { ...base, priority: null, confidence: 0.5 },
      { ...base, priority: 'P1', confidence: null },
      { ...base, priority: 'P4', confidence: 0.5 },
      { ...base, priority: 'P0', confidence: 1.2 },
      { ...base, priority: 'P0', confidence: -0.1 },
      { ...base, priority: 'P0', confidence: Number.NaN },
    ]);
    expect(kept).toHaveLength(1);
    expect(dropped).toBe(6);
    expect(reasons[0]).toBe('missing priority');
  });

  it('property: whatever is kept is in range; kept + dropped = all', () => {
    const raw = fc.record({ priority: fc.oneof(fc.constantFrom(...FINDING_PRIORITIES), fc.string(), fc.constant(null)), confidence: fc.oneof(fc.double(), fc.constant(null)), type: fc.constant('bug'), status: fc.constant('open') });
    fc.assert(
      fc.property(fc.array(raw), (raws) => {
        const { kept, dropped } = partitionFindings(raws);
        expect(kept.length + dropped).toBe(raws.length);
        for (const entry of kept) {
          expect(FINDING_PRIORITIES).toContain(entry.priority);
          expect(entry.confidence).toBeGreaterThanOrEqual(0);
          expect(entry.confidence).toBeLessThanOrEqual(1);
        }
      }),
    );
  });
});

describe('re-review delta', () => {
  it('counts resolved earlier findings, new ones and earlier ones still open', () => {
    const delta = reviewDelta(
      [
        { round: 1, status: 'resolved', resolvedRound: 2 },
        { round: 1, status: 'open', resolvedRound: null },
        { round: 1, status: 'dismissed', resolvedRound: null },
        { round: 2, status: 'open', resolvedRound: null },
        { round: 2, status: 'resolved', resolvedRound: 2 },
      ],
      2,
    );
    expect(delta.summary).toBe('1 resolved · 2 new · 1 still open');
  });
});
