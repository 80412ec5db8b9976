import { LIVE_FINDING_STATUSES, VERDICT_RANK, type FindingPriority, type FindingStatus, type Verdict } from './review-types.js';

/** What the fold needs of a finding (already past the REV-3 read boundary). */
export interface VerdictFinding {
  priority: FindingPriority;
  confidence: number;
  status: FindingStatus;
  axis?: string | null;
}

/** What an axis result can say; `notRun` is for gates, `notAssessed` for the reviewers' axes. */
export const AXIS_STATUSES = ['pass', 'fail', 'notRun', 'notAssessed'] as const;
export type AxisStatus = (typeof AXIS_STATUSES)[number];

/**
 * One axis result (REV-4). `agent` axes (correctness, security, tests…) come from the reviewers;
 * `gated` axes are commands the server ran itself. `notRun` is a gate that could not run (no command
 * output, no sandbox, a timeout) and `notAssessed` an agent axis nobody gave evidence for (TRUTH-3):
 * missing evidence, which never counts as a pass.
 */
export interface AxisResult {
  axis: string;
  kind: 'agent' | 'gated';
  status: AxisStatus;
  detail?: string;
}

export interface VerdictInput {
  findings: readonly VerdictFinding[];
  axes: readonly AxisResult[];
  /** A P0 at or above this confidence blocks (workspace setting, default 0.7). */
  threshold: number;
}

export interface FoldedVerdict {
  verdict: Verdict;
  /** How sure the verdict is: the strongest evidence that forced it, or for `ship` the doubt left by open findings. */
  confidence: number;
  /** One line per rule that made the verdict stricter than ship. */
  reasons: string[];
  counts: { open: number; p0: number; p1: number; p2: number; p3: number; gatesFailed: number; gatesNotRun: number };
}

function stricter(left: Verdict, right: Verdict): Verdict {
  return VERDICT_RANK[right] > VERDICT_RANK[left] ? right : left;
}

/**
 * Folds live findings and axis results into `ship | hold | block` (REV-4). Every rule can only make
 * the verdict stricter, so adding a finding or a failing axis never relaxes it (the property tests
 * prove it):
 * - a live P0 whose confidence reaches the threshold → block;
 * - a gated axis that failed → block;
 * - any live P0 or P1 → hold;
 * - a gated axis that could not run, or an agent axis that failed or was not assessed → hold;
 * - otherwise ship.
 * Dismissed and resolved findings do not count; contested ones still do.
 */
export function foldVerdict(input: VerdictInput): FoldedVerdict {
  let verdict: Verdict = 'ship';
  const reasons: string[] = [];
  const counts = { open: 0, p0: 0, p1: 0, p2: 0, p3: 0, gatesFailed: 0, gatesNotRun: 0 };
  let blockEvidence = 0;
  let holdEvidence = 0;
  let residualDoubt = 0;
  let blockingP0 = 0;
  for (const finding of input.findings) {
    if (!LIVE_FINDING_STATUSES.has(finding.status)) continue;
    counts.open += 1;
    counts[finding.priority.toLowerCase() as 'p0' | 'p1' | 'p2' | 'p3'] += 1;
    if (finding.priority === 'P0' && finding.confidence >= input.threshold) {
      blockingP0 += 1;
      blockEvidence = Math.max(blockEvidence, finding.confidence);
    } else if (finding.priority === 'P0' || finding.priority === 'P1') {
      holdEvidence = Math.max(holdEvidence, finding.confidence);
    } else {
      residualDoubt = Math.max(residualDoubt, finding.confidence * (finding.priority === 'P2' ? 0.5 : 0.25));
    }
  }
  if (blockingP0 > 0) {
    verdict = stricter(verdict, 'block');
    reasons.push(`${blockingP0} P0 finding(s) at or above the ${input.threshold} confidence threshold`);
  }
  if (counts.p0 + counts.p1 > blockingP0) {
    verdict = stricter(verdict, 'hold');
    reasons.push(`${counts.p0 + counts.p1 - blockingP0} open P0/P1 finding(s) below the block threshold`);
  }
  for (const axis of input.axes) {
    if (axis.kind === 'gated' && axis.status === 'fail') {
      counts.gatesFailed += 1;
      verdict = stricter(verdict, 'block');
      blockEvidence = 1;
      reasons.push(`gate ${axis.axis} failed${axis.detail ? `: ${axis.detail}` : ''}`);
    } else if (axis.kind === 'gated' && axis.status === 'notRun') {
      counts.gatesNotRun += 1;
      verdict = stricter(verdict, 'hold');
      holdEvidence = Math.max(holdEvidence, 0.5);
      reasons.push(`gate ${axis.axis} could not run${axis.detail ? `: ${axis.detail}` : ''} (missing evidence is not a pass)`);
    } else if (axis.status !== 'pass') {
      // An agent axis that failed or that nobody assessed (TRUTH-3): at most hold, naming what is missing.
      verdict = stricter(verdict, 'hold');
      holdEvidence = Math.max(holdEvidence, 0.5);
      reasons.push(`axis ${axis.axis} ${axis.status === 'fail' ? 'failed' : 'was not assessed'}${axis.detail ? `: ${axis.detail}` : ''}`);
    }
  }
  const confidence = verdict === 'block' ? blockEvidence : verdict === 'hold' ? holdEvidence : 1 - residualDoubt;
  return { verdict, confidence: Math.round(confidence * 1000) / 1000, reasons, counts };
}
