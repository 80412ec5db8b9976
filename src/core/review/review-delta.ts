import { LIVE_FINDING_STATUSES, type FindingStatus } from './review-types.js';

/** What the delta needs of a finding. */
export interface DeltaFinding {
  round: number;
  status: FindingStatus;
  resolvedRound: number | null;
}

export interface ReviewDelta {
  resolved: number;
  new: number;
  stillOpen: number;
  summary: string;
}

/**
 * The re-review delta of round `round`: earlier findings resolved during it, findings first raised in
 * it, and earlier findings still live ("N resolved · N new · N still open").
 */
export function reviewDelta(findings: readonly DeltaFinding[], round: number): ReviewDelta {
  let resolved = 0;
  let fresh = 0;
  let stillOpen = 0;
  for (const finding of findings) {
    if (finding.round === round) fresh += 1;
    else if (finding.round < round && finding.status === 'resolved' && finding.resolvedRound === round) resolved += 1;
    else if (finding.round < round && LIVE_FINDING_STATUSES.has(finding.status)) stillOpen += 1;
  }
  return { resolved, new: fresh, stillOpen, summary: `${resolved} resolved · ${fresh} new · ${stillOpen} still open` };
}
