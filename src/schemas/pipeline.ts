import { z } from 'zod';
import { IsoTime } from './common.js';

/** One validator finding as the API returns it (PIPE-1). */
export const PipelineIssueView = z.object({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  nodeKey: z.string().optional(),
  field: z.string(),
});

export const PipelineTriggerView = z.object({
  id: z.string(),
  type: z.string(),
  config: z.record(z.string(), z.unknown()),
  lastFiredAt: IsoTime.nullable(),
  /** For webhook triggers: the path to POST to (the secret is never returned after creation). */
  url: z.string().optional(),
});

export const PipelineRunSummary = z.object({
  id: z.string(),
  pipelineId: z.string().nullable(),
  name: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  trigger: z.object({ type: z.string() }).passthrough(),
  source: z.object({ kind: z.string() }).passthrough(),
  error: z.string().nullable(),
  createdAt: IsoTime,
  endedAt: IsoTime.nullable(),
  progress: z.object({ settled: z.number(), total: z.number() }),
});
export type PipelineRunSummary = z.infer<typeof PipelineRunSummary>;

export const PipelineNodeView = z.object({
  key: z.string(),
  type: z.string(),
  title: z.string().nullable(),
  dependsOn: z.array(z.string()),
  state: z.enum(['pending', 'queued', 'running', 'done', 'failed', 'skipped', 'cancelled', 'blocked']),
  attempts: z.number(),
  output: z.unknown(),
  error: z.string().nullable(),
  agentRunId: z.string().nullable(),
  /** What the node's agent run cost (null: no agent run, or not priced). */
  costUsd: z.number().nullable(),
  approvalId: z.string().nullable(),
  startedAt: IsoTime.nullable(),
  endedAt: IsoTime.nullable(),
});

export const PipelineRunDetail = PipelineRunSummary.extend({ nodes: z.array(PipelineNodeView) });
export type PipelineRunDetail = z.infer<typeof PipelineRunDetail>;

export const PipelineView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  definition: z.record(z.string(), z.unknown()),
  warnings: z.array(PipelineIssueView),
  source: z.object({ kind: z.string() }).passthrough(),
  triggers: z.array(PipelineTriggerView),
  lastRuns: z.array(PipelineRunSummary),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type PipelineView = z.infer<typeof PipelineView>;

export const CreatedPipeline = z.object({
  pipeline: PipelineView,
  /** Shown once: the HMAC secret of the webhook trigger, when the pipeline has one. */
  webhookSecret: z.string().nullable(),
});

export const StartPipelineRunBody = z.strictObject({
  /** Available to nodes as `{{trigger.…}}`. */
  payload: z.record(z.string(), z.unknown()).optional(),
  idempotencyKey: z.string().min(1).max(200).optional(),
});
