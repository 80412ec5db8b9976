import type { AxisResult } from './fold-verdict.js';
import { LIVE_FINDING_STATUSES, type FindingPriority, type FindingStatus } from './review-types.js';

/** What an assessor concluded about one axis of one head (TRUTH-3). */
export const AXIS_ASSESSMENTS = ['pass', 'fail'] as const;
export type AxisAssessmentValue = (typeof AXIS_ASSESSMENTS)[number];

/** A reviewer's (or a person's) explicit assessment of an axis, recorded with the head it is about. */
export interface AxisAssessmentEvidence {
  axis: string;
  headSha: string;
  assessment: AxisAssessmentValue;
  /** What the assessor checked: the assessment's evidence, shown with the axis. */
  basis: string;
  /** Who assessed: an agent's name or `operator`. */
  by: string;
}

/** What the agent axes need of a finding. */
export interface AxisFinding {
  axis?: string | null;
  priority: FindingPriority;
  status: FindingStatus;
}

/** What the agent axes need of a gate result: a gate named like an axis is evidence for it. */
export interface AxisGateEvidence {
  name: string;
  headSha: string;
  status: 'pass' | 'fail' | 'notRun';
}

/**
 * The reviewers' axes (REV-4) under TRUTH-3: an axis is `pass` only with evidence about this head —
 * an explicit assessment recorded with the axis, or a gate of the same name that ran on this head and
 * passed. Silence is not evidence: a reviewer who answered "OK", or recorded no finding on the axis,
 * leaves it `notAssessed`, which holds the verdict. A live P0/P1 finding on the axis, or an assessment
 * of `fail`, fails it. Evidence about another head is ignored: the change it saw is not this one.
 */
export function agentAxes(input: {
  axes: readonly string[];
  headSha: string;
  findings: readonly AxisFinding[];
  assessments: readonly AxisAssessmentEvidence[];
  gates: readonly AxisGateEvidence[];
}): AxisResult[] {
  const names = [...input.axes];
  const addAxis = (axis: string | null | undefined) => {
    if (axis && !names.includes(axis)) names.push(axis);
  };
  for (const finding of input.findings) addAxis(finding.axis);
  const current = input.assessments.filter((assessment) => assessment.headSha === input.headSha);
  for (const assessment of current) addAxis(assessment.axis);
  return names.map((axis): AxisResult => {
    const serious = input.findings.filter((finding) => finding.axis === axis && LIVE_FINDING_STATUSES.has(finding.status) && (finding.priority === 'P0' || finding.priority === 'P1')).length;
    if (serious > 0) return { axis, kind: 'agent', status: 'fail', detail: `${serious} open P0/P1 finding(s)` };
    const mine = current.filter((assessment) => assessment.axis === axis);
    const failed = mine.find((assessment) => assessment.assessment === 'fail');
    if (failed) return { axis, kind: 'agent', status: 'fail', detail: `assessed fail by ${failed.by}: ${failed.basis}` };
    const passed = mine.find((assessment) => assessment.assessment === 'pass');
    if (passed) return { axis, kind: 'agent', status: 'pass', detail: `assessed by ${passed.by}: ${passed.basis}` };
    const gate = input.gates.find((result) => result.name === axis && result.headSha === input.headSha && result.status === 'pass');
    if (gate) return { axis, kind: 'agent', status: 'pass', detail: `gate ${gate.name} passed on ${gate.headSha.slice(0, 10)}` };
    return {
      axis,
      kind: 'agent',
      status: 'notAssessed',
      detail: `no reviewer recorded an assessment of ${axis} for head ${input.headSha.slice(0, 10)} and no gate named ${axis} passed on it`,
    };
  });
}
