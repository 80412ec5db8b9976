import type { PipelineNode, PipelineNodeType } from '../../core/pipelines/pipeline-definition.js';

/** What a node executor gets for one attempt (PIPE-1). */
export interface NodeExecution {
  workspaceId: string;
  runId: string;
  node: PipelineNode;
  /** 1-based attempt number of this node. */
  attempt: number;
  /**
   * `<runId>:<nodeKey>:<attempt>`: carried by every side effect of the attempt so it can be
   * recognised, and never reused — a re-run is a new attempt with a new key (at most once).
   */
  idempotencyKey: string;
  /** Aborted on timeout, on cancel of the node or run, and on shutdown. */
  signal: AbortSignal;
  /** Substitutes `{{placeholders}}` from upstream outputs; throws when one does not resolve. */
  resolve(text: string): string;
  /** Outputs of finished upstream nodes by output key (and node key), plus `trigger`. */
  sources: ReadonlyMap<string, unknown>;
  /** What an earlier attempt of this node recorded (a gate's approval survives a restart). */
  recorded: { approvalId: string | null; agentRunId: string | null };
  /** Records the agent run the attempt started (shown on the node, cancelled with it). */
  recordAgentRun(runId: string): Promise<void>;
  /** Records the approval the attempt waits on. */
  recordApproval(approvalId: string): Promise<void>;
  /**
   * The attempt is now only waiting for a person (a gate, an `ask`): it gives its slot of the
   * workspace's node concurrency back, so waiting gates never starve runnable nodes.
   */
  yieldSlot(): void;
}

export type NodeExecutor = (execution: NodeExecution) => Promise<unknown>;

/** Node types whose attempt may be started again after an interruption without harm (no side effects). */
export const SIDE_EFFECT_FREE_TYPES: ReadonlySet<PipelineNodeType> = new Set(['condition']);

/**
 * Node types that resume instead of re-running after an interruption: a gate re-attaches to the
 * approval it already opened, so nothing is done twice.
 */
export const RESUMABLE_TYPES: ReadonlySet<PipelineNodeType> = new Set(['human.gate']);

/** A failure the engine must not retry (a rejection, a policy deny, a schema the output can never meet on retry is still retried). */
export class PermanentNodeError extends Error {}

/**
 * The work the node started was cancelled from outside the engine (an operator stopped the agent run
 * itself): the node ends `cancelled`, like a cancel of the node, and its dependants are blocked.
 */
export class CancelledNodeError extends Error {}
