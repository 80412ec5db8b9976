import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentAxes, AXIS_ASSESSMENTS, type AxisAssessmentEvidence, type AxisFinding, type AxisGateEvidence } from '../../../src/core/review/axis-evidence.js';
import { foldVerdict } from '../../../src/core/review/fold-verdict.js';
import { FINDING_PRIORITIES, FINDING_STATUSES } from '../../../src/core/review/review-types.js';

const HEAD = 'a'.repeat(40);
const OLD_HEAD = 'b'.repeat(40);
const AXES = ['correctness', 'security', 'tests'] as const;
const axisName = fc.constantFrom(...AXES, 'performance');
const head = fc.constantFrom(HEAD, OLD_HEAD);

const finding = fc.record<AxisFinding>({ axis: fc.option(axisName, { nil: null }), priority: fc.constantFrom(...FINDING_PRIORITIES), status: fc.constantFrom(...FINDING_STATUSES) });
const assessment = fc.record<AxisAssessmentEvidence>({ axis: axisName, headSha: head, assessment: fc.constantFrom(...AXIS_ASSESSMENTS), basis: fc.constant('read it'), by: fc.constant('qa') });
const gate = fc.record<AxisGateEvidence>({ name: fc.constantFrom('tests', 'lint', 'security'), headSha: head, status: fc.constantFrom('pass' as const, 'fail' as const, 'notRun' as const) });

describe('agent axes need evidence (TRUTH-3)', () => {
  it('an axis is pass only with a pass assessment of this head or a same-named gate that passed on this head', () => {
    fc.assert(
      fc.property(fc.array(finding), fc.array(assessment), fc.array(gate), (findings, assessments, gates) => {
        for (const result of agentAxes({ axes: AXES, headSha: HEAD, findings, assessments, gates })) {
          if (result.status !== 'pass') continue;
          const assessed = assessments.some((entry) => entry.axis === result.axis && entry.headSha === HEAD && entry.assessment === 'pass');
          const gated = gates.some((entry) => entry.name === result.axis && entry.headSha === HEAD && entry.status === 'pass');
          expect(assessed || gated, result.axis).toBe(true);
        }
      }),
    );
  });

  it('evidence about another head changes nothing', () => {
    fc.assert(
      fc.property(fc.array(finding), fc.array(assessment), fc.array(gate), (findings, assessments, gates) => {
        const current = agentAxes({ axes: AXES, headSha: HEAD, findings, assessments: assessments.filter((entry) => entry.headSha === HEAD), gates: gates.filter((entry) => entry.headSha === HEAD) });
        expect(agentAxes({ axes: AXES, headSha: HEAD, findings, assessments, gates })).toEqual(current);
      }),
    );
  });

  it('with no assessment and no gate, every axis is not assessed and the verdict is at most hold, naming each missing axis', () => {
    fc.assert(
      fc.property(fc.array(finding), (findings) => {
        const axes = agentAxes({ axes: AXES, headSha: HEAD, findings, assessments: [], gates: [] });
        for (const result of axes) expect(result.status === 'notAssessed' || result.status === 'fail').toBe(true);
        const folded = foldVerdict({ findings: findings.map((entry) => ({ ...entry, confidence: 0.5 })), axes, threshold: 0.7 });
        expect(folded.verdict).not.toBe('ship');
        for (const result of axes.filter((entry) => entry.status === 'notAssessed')) {
          expect(folded.reasons).toContain(`axis ${result.axis} was not assessed: ${result.detail}`);
        }
      }),
    );
  });

  it('the three default axes are always shown, and a fail assessment or a live P0/P1 on an axis fails it', () => {
    expect(agentAxes({ axes: AXES, headSha: HEAD, findings: [], assessments: [], gates: [] }).map((entry) => [entry.axis, entry.status])).toEqual([
      ['correctness', 'notAssessed'],
      ['security', 'notAssessed'],
      ['tests', 'notAssessed'],
    ]);
    const axes = agentAxes({
      axes: AXES,
      headSha: HEAD,
      findings: [{ axis: 'correctness', priority: 'P1', status: 'open' }],
      assessments: [
        { axis: 'correctness', headSha: HEAD, assessment: 'pass', basis: 'looked', by: 'qa' },
        { axis: 'security', headSha: HEAD, assessment: 'pass', basis: 'looked', by: 'qa' },
        { axis: 'security', headSha: HEAD, assessment: 'fail', basis: 'eval() on user input', by: 'architect' },
      ],
      gates: [],
    });
    expect(axes.find((entry) => entry.axis === 'correctness')).toMatchObject({ status: 'fail', detail: '1 open P0/P1 finding(s)' });
    expect(axes.find((entry) => entry.axis === 'security')).toMatchObject({ status: 'fail', detail: 'assessed fail by architect: eval() on user input' });
  });
});
