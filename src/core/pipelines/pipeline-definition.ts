import { z } from 'zod';

/**
 * The shape of a pipeline (PIPE-1): a graph of typed nodes the durable engine runs. Plans,
 * orchestrations and operator-authored pipelines all compile to this one shape, so there is one engine
 * (ORC-4, PLAN-7). This file is only the contract; validation of the graph (unknown dependencies,
 * cycles, unresolvable placeholders) and execution live with the engine.
 */

/**
 * Node kinds the engine knows. `ticketWork` and `synthesis` are what orchestrations compile to;
 * `planStep` is what an approved plan compiles to (PLAN-7/8) and is never authored by hand.
 */
export const PIPELINE_NODE_TYPES = [
  'messaging.createSpace',
  'promptAgent',
  'team.dispatch',
  'human.gate',
  'condition',
  'bashScript',
  'ticketWork',
  'synthesis',
  'planStep',
] as const;
export type PipelineNodeType = (typeof PIPELINE_NODE_TYPES)[number];

/** A node key: what `dependsOn`, placeholders (`{{key.field}}`) and outputs refer to. */
export const pipelineNodeKeySchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _; starting with a letter or digit');

/** Retries with exponential backoff: attempt n waits `backoffMs * 2^(n-1)`. */
export const pipelineRetrySchema = z.object({
  max: z.number().int().min(0).max(10),
  backoffMs: z.number().int().min(0).max(3_600_000),
});

/** What every node may declare, whatever its type. */
const nodeCommon = {
  key: pipelineNodeKeySchema,
  title: z.string().min(1).max(200).optional(),
  dependsOn: z.array(pipelineNodeKeySchema).max(64).default([]),
  /** Name under which the node's output is stored for downstream placeholders (defaults to the key). */
  outputKey: pipelineNodeKeySchema.optional(),
  /** JSON Schema the node's output must satisfy; a mismatch fails the node. */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  retries: pipelineRetrySchema.optional(),
  timeoutMs: z.number().int().min(1).max(86_400_000).optional(),
  /** When true a failure of this node does not fail the run; dependants still start. */
  continueOnFail: z.boolean().default(false),
  /**
   * Declared safe to run twice. A node with side effects that was interrupted mid-flight is retried
   * only when this is true; otherwise it is marked failed for the operator (at most once).
   */
  idempotent: z.boolean().default(false),
};

/** `{{placeholders}}` resolve from upstream outputs; an unresolved one fails the node. */
const promptText = z.string().min(1).max(100_000);

export const pipelineNodeSchema = z.discriminatedUnion('type', [
  z.object({
    ...nodeCommon,
    type: z.literal('messaging.createSpace'),
    name: z.string().min(1).max(200),
    /**
     * MODE-5: `extras.mode` ∈ {chat, review, plan} matched exactly; anything else is ignored and
     * `body`'s default (`review`) is used — the validator warns about it.
     */
    extras: z.record(z.string(), z.unknown()).default({}),
    memberAgentIds: z.array(z.string().min(1)).max(32).default([]),
  }),
  z.object({
    ...nodeCommon,
    type: z.literal('promptAgent'),
    agentId: z.string().min(1),
    prompt: promptText,
    /** Key of an upstream `messaging.createSpace` node whose room the agent joins (never changes its permissions). */
    spaceFrom: pipelineNodeKeySchema.optional(),
  }),
  z.object({
    ...nodeCommon,
    type: z.literal('team.dispatch'),
    teamId: z.string().min(1),
    strategy: z.enum(['allParallel', 'manager']),
    prompt: promptText,
  }),
  z.object({
    ...nodeCommon,
    type: z.literal('human.gate'),
    prompt: promptText,
  }),
  z.object({
    ...nodeCommon,
    type: z.literal('condition'),
    /** `{{node.field}} == value`-style comparison over upstream outputs (see the engine's evaluator). */
    expression: z.string().min(1).max(2_000),
  }),
  z.object({
    ...nodeCommon,
    type: z.literal('bashScript'),
    /** Runs sandboxed in the workspace, through the policy engine like any agent command. */
    script: z.string().min(1).max(100_000),
  }),
  z.object({
    ...nodeCommon,
    type: z.literal('ticketWork'),
    ticketId: z.string().min(1),
    agentId: z.string().min(1),
    prompt: promptText,
  }),
  z.object({
    ...nodeCommon,
    type: z.literal('synthesis'),
    agentId: z.string().min(1),
    prompt: promptText,
  }),
  z.object({
    ...nodeCommon,
    // Plan keys are the agent's own (PLAN_KEY_PATTERN: mixed case, dots, up to 100 characters).
    key: z.string().min(1).max(100),
    dependsOn: z.array(z.string().min(1).max(100)).default([]),
    type: z.literal('planStep'),
    /** PLAN-8: the plan's author runs the step in the plan's own conversation. */
    planId: z.string().min(1),
    agentId: z.string().min(1),
    conversationId: z.string().min(1),
    spaceId: z.string().min(1).nullable(),
    /** The step as the agent is asked to do it; the agent's text, never expanded as placeholders. */
    prompt: promptText,
  }),
]);
export type PipelineNode = z.infer<typeof pipelineNodeSchema>;

export const pipelineTriggerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('manual') }),
  /** Five-field cron expression, UTC. */
  z.object({ type: z.literal('schedule'), cron: z.string().min(9).max(120) }),
  /** HMAC-SHA256 signed webhook; the secret is stored server-side and never returned. */
  z.object({ type: z.literal('webhook') }),
  z.object({ type: z.literal('event'), event: z.enum(['plan.approved', 'review.finalized', 'ticket.done']) }),
]);
export type PipelineTrigger = z.infer<typeof pipelineTriggerSchema>;

export const pipelineDefinitionSchema = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2_000).optional(),
  nodes: z.array(pipelineNodeSchema).min(1).max(10_000),
  triggers: z.array(pipelineTriggerSchema).max(16).default([{ type: 'manual' }]),
});
export type PipelineDefinition = z.infer<typeof pipelineDefinitionSchema>;
export type PipelineDefinitionInput = z.input<typeof pipelineDefinitionSchema>;
