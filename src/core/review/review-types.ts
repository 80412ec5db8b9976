/** The kinds of finding a reviewer records (REV-2). */
export const FINDING_TYPES = ['bug', 'suggestion', 'recommendation', 'question', 'ticket'] as const;
export type FindingType = (typeof FINDING_TYPES)[number];

/** P0 blocks release … P3 is optional (REV-2). */
export const FINDING_PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type FindingPriority = (typeof FINDING_PRIORITIES)[number];

/**
 * A finding's lifecycle (REV-2): `open` until a peer confirms it (`consensusReady`); a person may
 * contest it (it stays in the verdict: a disagreement is not evidence that the problem is gone);
 * `dismissed` and `resolved` take it out of the verdict.
 */
export const FINDING_STATUSES = ['open', 'consensusReady', 'contested', 'dismissed', 'resolved'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/** Statuses whose findings still count towards the verdict (REV-4). */
export const LIVE_FINDING_STATUSES: ReadonlySet<FindingStatus> = new Set(['open', 'consensusReady', 'contested']);

export const VERDICTS = ['ship', 'hold', 'block'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Strictness order of the verdicts: folding only ever moves right (REV-4). */
export const VERDICT_RANK: Readonly<Record<Verdict, number>> = { ship: 0, hold: 1, block: 2 };

/** A file and an inclusive line range on the head side of the diff (REV-2). */
export interface FindingAnchor {
  path: string;
  startLine: number;
  endLine: number;
}

/** Changed line ranges (head side, inclusive) per file of the diff. */
export type HunkMap = Record<string, Array<[number, number]>>;

/** The default confidence a P0 must reach to block (REV-4; a workspace setting). */
export const DEFAULT_BLOCK_THRESHOLD = 0.7;
