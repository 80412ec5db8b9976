import { z } from 'zod';
import { AXIS_ASSESSMENTS } from '../core/review/axis-evidence.js';
import { AXIS_STATUSES } from '../core/review/fold-verdict.js';
import { FINDING_PRIORITIES, FINDING_STATUSES, FINDING_TYPES, VERDICTS } from '../core/review/review-types.js';
import { DisplayName, IsoTime } from './common.js';

export const FindingAnchor = z.strictObject({
  path: z.string().min(1).max(4096),
  startLine: z.number().int().min(1),
  endLine: z.number().int().min(1),
});

export const Principal = z.object({ kind: z.enum(['agent', 'operator']), id: z.string() });

/** A finding (review node, REV-2) as the API shows it. */
export const Finding = z.object({
  id: z.string(),
  reviewId: z.string(),
  round: z.number().int(),
  type: z.enum(FINDING_TYPES),
  priority: z.enum(FINDING_PRIORITIES),
  confidence: z.number().min(0).max(1),
  body: z.string(),
  anchor: FindingAnchor.nullable(),
  axis: z.string().nullable(),
  status: z.enum(FINDING_STATUSES),
  /** What the latest re-review made of it: `new` this round, `stillOpen` or `notVerifiable` (its lines are gone from the diff). */
  carry: z.enum(['new', 'stillOpen', 'notVerifiable']),
  author: Principal,
  runId: z.string().nullable(),
  confirmedBy: z.array(Principal),
  statusReason: z.string().nullable(),
  statusBy: z.string().nullable(),
  resolvedRound: z.number().int().nullable(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Finding = z.infer<typeof Finding>;

export const AxisResult = z.object({
  axis: z.string(),
  kind: z.enum(['agent', 'gated']),
  /** `notAssessed`: nobody gave evidence for this axis on this head (TRUTH-3); it holds the verdict. */
  status: z.enum(AXIS_STATUSES),
  /** The evidence (who assessed and on what basis, which gate passed) or what is missing. */
  detail: z.string().optional(),
});

/** An axis name: the agents' axes (correctness, security, tests) or any short slug. */
export const AxisName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be a short lowercase slug (correctness, security, tests…)');

/** A reviewer's or a person's explicit assessment of one axis of the review's head (TRUTH-3). */
export const AxisAssessment = z.object({
  id: z.string(),
  reviewId: z.string(),
  headSha: z.string(),
  axis: z.string(),
  assessment: z.enum(AXIS_ASSESSMENTS),
  basis: z.string(),
  assessor: Principal,
  /** Display name of the assessor: the agent's name, or `operator`. */
  by: z.string(),
  runId: z.string().nullable(),
  createdAt: IsoTime,
});
export type AxisAssessment = z.infer<typeof AxisAssessment>;

export const AssessAxisBody = z.strictObject({
  axis: AxisName,
  assessment: z.enum(AXIS_ASSESSMENTS),
  /** What was checked; an assessment without a basis is not evidence. */
  basis: z.string().trim().min(1, 'say what you checked').max(4000),
});
export type AssessAxisBody = z.infer<typeof AssessAxisBody>;

export const GateResult = z.object({
  name: z.string(),
  command: z.string(),
  headSha: z.string(),
  status: z.enum(['pass', 'fail', 'notRun']),
  exitCode: z.number().int().nullable(),
  output: z.string(),
  ranAt: IsoTime,
});
export type GateResult = z.infer<typeof GateResult>;

/** A gate run's progress, published live as each gate starts and ends (`running`, then its result). */
export const GateProgress = z.object({
  reviewId: z.string(),
  name: z.string(),
  command: z.string(),
  headSha: z.string(),
  status: z.enum(['running', 'pass', 'fail', 'notRun']),
  exitCode: z.number().int().nullable(),
  /** 1-based position of this gate in the run, and how many gates the run has. */
  index: z.number().int(),
  total: z.number().int(),
});
export type GateProgress = z.infer<typeof GateProgress>;

export const VerdictView = z.object({
  verdict: z.enum(VERDICTS),
  confidence: z.number(),
  reasons: z.array(z.string()),
  counts: z.object({ open: z.number(), p0: z.number(), p1: z.number(), p2: z.number(), p3: z.number(), gatesFailed: z.number(), gatesNotRun: z.number() }),
  axes: z.array(AxisResult),
  threshold: z.number(),
  /** Findings dropped at the read boundary (REV-3). */
  dropped: z.number().int(),
  headline: z.string().nullable(),
  note: z.string().nullable(),
  headSha: z.string(),
  round: z.number().int(),
  /** `N resolved · N new · N still open`. */
  delta: z.object({ resolved: z.number().int(), new: z.number().int(), stillOpen: z.number().int(), summary: z.string() }),
});
export type VerdictView = z.infer<typeof VerdictView>;

export const Review = z.object({
  id: z.string(),
  workspaceId: z.string(),
  spaceId: z.string(),
  conversationId: z.string(),
  repoPath: z.string(),
  title: z.string(),
  base: z.string(),
  head: z.string(),
  baseSha: z.string(),
  headSha: z.string(),
  mergeBaseSha: z.string(),
  round: z.number().int(),
  hunkMap: z.record(z.string(), z.array(z.tuple([z.number().int(), z.number().int()]))),
  filesChanged: z.number().int(),
  reviewMd: z.string().nullable(),
  /** The published verdict, null until finalized (REV-5). */
  verdict: VerdictView.nullable(),
  finalizedBy: z.string().nullable(),
  finalizedAt: IsoTime.nullable(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Review = z.infer<typeof Review>;

export const OpenReviewBody = z.strictObject({
  repoPath: z.string().min(1).max(4096),
  base: z.string().min(1).max(1024),
  head: z.string().min(1).max(1024),
  title: DisplayName(200).optional(),
  /** Reviewer agent names to dispatch at once; omit to open without dispatching. */
  reviewers: z.array(z.string().min(1).max(63)).max(16).optional(),
});
export type OpenReviewBody = z.infer<typeof OpenReviewBody>;

export const DispatchReviewBody = z.strictObject({
  reviewers: z.array(z.string().min(1).max(63)).min(1).max(16).optional(),
});

export const FindingActionBody = z.strictObject({ reason: z.string().min(1).max(4000).optional() });
export const ReasonBody = z.strictObject({ reason: z.string().min(1).max(4000) });

export const FinalizeReviewBody = z.strictObject({ headline: z.string().max(300).optional(), note: z.string().max(8000).optional() });

export const ReviewGateConfig = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be a short lowercase slug (tests, lint, type-check…)'),
  command: z.string().min(1).max(2000),
});
export const PutReviewGatesBody = z.strictObject({ repoPath: z.string().min(1).max(4096), gates: z.array(ReviewGateConfig).max(20) });
export const ReviewGates = z.object({ repoPath: z.string(), gates: z.array(z.object({ name: z.string(), command: z.string() })) });

/** Open a review from a forge pull-request URL instead of a local repository and refs. */
export const OpenPullRequestReviewBody = z.strictObject({
  prUrl: z.string().min(1).max(2048),
  title: DisplayName(200).optional(),
  reviewers: z.array(z.string().min(1).max(63)).max(16).optional(),
});
export type OpenPullRequestReviewBody = z.infer<typeof OpenPullRequestReviewBody>;

/**
 * `POST /reviews` takes either a local repository and refs, or a pull-request URL (one flat object,
 * so a missing field is a 400 naming that field rather than a union's "invalid input").
 */
export const OpenAnyReviewBody = OpenReviewBody.partial({ repoPath: true, base: true, head: true }).extend({ prUrl: OpenPullRequestReviewBody.shape.prUrl.optional() });
export type OpenAnyReviewBody = z.infer<typeof OpenAnyReviewBody>;

export const PUBLICATION_STATUSES = ['awaitingApproval', 'publishing', 'published', 'rejected', 'failed'] as const;

/** The pull request a review was opened from. */
export const ForgeLink = z.object({
  provider: z.string(),
  owner: z.string(),
  repo: z.string(),
  number: z.number().int(),
  webUrl: z.string(),
});
export type ForgeLink = z.infer<typeof ForgeLink>;

/** The verdict published to the pull request: one per review and head SHA. */
export const ReviewPublication = z.object({
  id: z.string(),
  reviewId: z.string(),
  headSha: z.string(),
  status: z.enum(PUBLICATION_STATUSES),
  event: z.enum(['APPROVE', 'REQUEST_CHANGES', 'COMMENT']),
  approvalId: z.string().nullable(),
  forgeReviewId: z.string().nullable(),
  commentCount: z.number().int(),
  error: z.string().nullable(),
  requestedBy: z.string(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type ReviewPublication = z.infer<typeof ReviewPublication>;
