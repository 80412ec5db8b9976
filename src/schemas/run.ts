import { z } from 'zod';
import { IsoTime } from './common.js';
import { InheritedRules } from '../core/policy/inherited-rules.js';
import { DecidedBy } from './policy.js';

/** Run lifecycle (HAR-6). `queued` and `succeeded`-like endings exist on runs, never on agents (AG-3). */
export const RunState = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);
export type RunState = z.infer<typeof RunState>;

/** Liveness from the watchdog (AG-5): how a run in progress is faring, or how it ended. */
export const RunLiveness = z.enum(['ok', 'blocked', 'stalled', 'looping', 'failed', 'dead']);
export type RunLiveness = z.infer<typeof RunLiveness>;

export const Run = z.object({
  id: z.string(),
  agentId: z.string(),
  spaceId: z.string().nullable(),
  conversationId: z.string().nullable(),
  parentRunId: z.string().nullable(),
  state: RunState,
  liveness: RunLiveness,
  deliverableFailed: z.boolean(),
  error: z.string().nullable(),
  createdAt: IsoTime,
  startedAt: IsoTime.nullable(),
  endedAt: IsoTime.nullable(),
  /** The mode and autonomy the run started with; a turn keeps them to its end (MODE-2, RLY-9). */
  mode: z.string().nullable(),
  autonomy: z.string().nullable(),
  model: z.string().nullable(),
  depth: z.number(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number(), cacheWriteTokens: z.number() }),
  costUsd: z.number(),
  sandbox: z.string().nullable(),
  /**
   * SEC-9: the rule scopes of the runs that started this one (a relay sender, a subagent's or a
   * delegate's parent, up the chain). Every call is decided under them too; empty for an operator's turn.
   */
  inheritedRules: InheritedRules,
  /**
   * Only on the `run.updated` event that ends a run: whether a message sent during the turn waits
   * for its end (HAR-5). Absent when the writer did not say (then whoever hears the end looks).
   */
  messagesHeld: z.boolean().optional(),
});
export type Run = z.infer<typeof Run>;

/** One tool call of a run log (HAR-6) with the policy decision that let it run or stopped it. */
export const ToolCallRecord = z.object({
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  output: z.string().nullable(),
  isError: z.boolean().nullable(),
  executed: z.boolean(),
  decision: z.string().nullable(),
  decidedBy: DecidedBy.nullable(),
  classes: z.array(z.string()),
  startedAt: IsoTime,
  endedAt: IsoTime.nullable(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;

/** One stored run-log event (HAR-6): an AgentEvent's type with its data. */
export const RunEventRecord = z.object({ sequence: z.number(), type: z.string(), data: z.unknown(), at: IsoTime });
export type RunEventRecord = z.infer<typeof RunEventRecord>;

/** `GET /runs/:runId`: the run with its durable log. */
export const RunDetail = z.object({ run: Run, toolCalls: z.array(ToolCallRecord), events: z.array(RunEventRecord) });
export type RunDetail = z.infer<typeof RunDetail>;

export const SteerRunBody = z.strictObject({ text: z.string().trim().min(1, 'must not be empty').max(50_000) });
export type SteerRunBody = z.infer<typeof SteerRunBody>;

/** The answer of a run control (cancel, pause, resume, steer). */
export const RunControlResponse = z.object({ ok: z.literal(true) });
export type RunControlResponse = z.infer<typeof RunControlResponse>;

/**
 * One run of a conversation's run tree: a turn, or a subagent (`task`) or delegate (`delegate_task`)
 * run under the run that started it (HAR-5, POL-8), with its own children nested.
 */
export const RunTreeNode = Run.extend({
  /** The agent's name, or null when the agent has since been deleted. */
  agentName: z.string().nullable(),
  get children(): z.ZodArray<typeof RunTreeNode> {
    return z.array(RunTreeNode);
  },
});
export type RunTreeNode = z.infer<typeof RunTreeNode>;

/** `GET …/conversations/:conversationId/run-tree`: the conversation's turns, oldest first, each with its child runs. */
export const ConversationRunTree = z.object({ conversationId: z.string(), runs: z.array(RunTreeNode) });
export type ConversationRunTree = z.infer<typeof ConversationRunTree>;

/** `GET …/runs/:runId/tree`: one run with every run it started, nested. */
export const RunSubtree = z.object({ run: RunTreeNode });
export type RunSubtree = z.infer<typeof RunSubtree>;

/** One control of a run as the UI shows it: usable now, or why not in plain words (HAR-5, ADP-1). */
export const RunControlState = z.object({ available: z.boolean(), reason: z.string().nullable() });
export type RunControlState = z.infer<typeof RunControlState>;

/**
 * `GET …/runs/:runId/controls`: which of pause, resume, steer, cancel and take over the run allows
 * now. A control the run's transport does not declare is unavailable with the reason, the same
 * refusal the control routes answer with 409 (ADP-1).
 */
export const RunControls = z.object({
  runId: z.string(),
  inProgress: z.boolean(),
  paused: z.boolean(),
  /** The transport's name (e.g. "Claude Code"); null when the run is not in progress. */
  transport: z.string().nullable(),
  controls: z.object({
    pause: RunControlState,
    resume: RunControlState,
    steer: RunControlState,
    cancel: RunControlState,
    /** Take over = pause, let the operator write the next instruction, then resume with it (HAR-5). */
    takeOver: RunControlState,
  }),
});
export type RunControls = z.infer<typeof RunControls>;
