import { z } from 'zod';
import { PLAN_NODE_STATES } from '../core/plan/plan-progress.js';
import { IsoTime } from './common.js';

export const PlanStatus = z.enum(['proposed', 'approved', 'rejected', 'superseded', 'executing', 'completed', 'failed', 'cancelled']);
export type PlanStatus = z.infer<typeof PlanStatus>;

export const PlanNodeView = z.object({
  key: z.string(),
  title: z.string(),
  description: z.string(),
  dependsOn: z.array(z.string()),
  /** pending, ready, running, done, failed, cancelled, blocked (PLAN-8). */
  state: z.enum(PLAN_NODE_STATES),
  ticketId: z.string().nullable(),
  runId: z.string().nullable(),
  assigneeAgentId: z.string().nullable(),
  error: z.string().nullable(),
  level: z.number().nullable(),
});
export type PlanNodeView = z.infer<typeof PlanNodeView>;

/** A plan's validation error (PLAN-2): a stable code, a message, the field at fault and the step it names. */
export const PlanError = z.object({ code: z.string(), message: z.string(), field: z.string(), nodeKey: z.string().optional() });
export type PlanError = z.infer<typeof PlanError>;

/**
 * The words for an estimate nobody can give (TRUTH-3), shown as "unknown (<reason>)" by every client.
 * One place, so the API, the CLI and the web app say the same thing.
 */
export const UNKNOWN_ESTIMATE_REASONS = {
  noHistory: 'no run history',
  noPrice: "the model's price is unknown",
  notRecorded: 'not recorded at approval',
} as const;

/**
 * The cost estimate of a plan (PLAN-3): tokens per step and in total, US dollars when known. TRUTH-3: a
 * proposal's estimate follows the agent's history until the operator decides; approval freezes it
 * (`frozenAt`), so an approved plan always shows the estimate it was approved at.
 */
export const PlanCostEstimate = z.object({
  perNode: z.array(z.object({ key: z.string(), inputTokens: z.number().nullable(), outputTokens: z.number().nullable(), usd: z.number().nullable() })),
  total: z.object({ inputTokens: z.number().nullable(), outputTokens: z.number().nullable(), usd: z.number().nullable() }),
  /**
   * `history`: the median of the agent's own past runs; `noHistory`: fewer than three runs, so nothing
   * is estimated; `notRecorded`: a plan approved before estimates were kept with the approval.
   */
  basis: z.enum(['history', 'noHistory', 'notRecorded']),
  /** Usable past runs of the agent the estimate rests on. */
  historyRuns: z.number(),
  /** Why `total.usd` is unknown, one of {@link UNKNOWN_ESTIMATE_REASONS}; null when it is known. */
  unknownReason: z.string().nullable(),
  /** When the estimate was frozen with the approval; null while the plan is not approved. */
  frozenAt: IsoTime.nullable(),
  currency: z.literal('USD'),
});
export type PlanCostEstimate = z.infer<typeof PlanCostEstimate>;

/** What a plan's steps actually cost (TRUTH-3): the recorded runs of its steps and every run they started. */
export const PlanActualCost = z.object({
  usd: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Recorded runs summed (step runs and the runs under them). */
  runs: z.number(),
});
export type PlanActualCost = z.infer<typeof PlanActualCost>;

/** A plan as the conversation row and Plan Studio show it (PLAN-3, PLAN-8). */
export const Plan = z.object({
  id: z.string(),
  conversationId: z.string(),
  spaceId: z.string().nullable(),
  agentId: z.string(),
  runId: z.string().nullable(),
  version: z.number(),
  goal: z.string(),
  status: PlanStatus,
  stepCount: z.number(),
  nodes: z.array(PlanNodeView),
  edges: z.array(z.object({ from: z.string(), to: z.string() })),
  errors: z.array(PlanError),
  progress: z.object({ settled: z.number(), total: z.number() }),
  /** PLAN-7/8: the pipeline run executing the approved plan on the engine (null before approval). */
  pipelineRunId: z.string().nullable().optional(),
  /** PLAN-7 on ORC-4: the `orc_` orchestration that records the approved plan (null before approval). */
  orchestrationId: z.string().nullable().optional(),
  costEstimate: PlanCostEstimate,
  /** Actual cost so far, shown beside the estimate. */
  actualCost: PlanActualCost,
  decidedBy: z.string().nullable(),
  reason: z.string().nullable(),
  createdAt: IsoTime,
  decidedAt: IsoTime.nullable(),
  updatedAt: IsoTime,
});
export type Plan = z.infer<typeof Plan>;

export const RejectPlanBody = z.strictObject({ reason: z.string().max(10_000).optional() });
export type RejectPlanBody = z.infer<typeof RejectPlanBody>;
