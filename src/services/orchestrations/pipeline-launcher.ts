import type { PipelineDefinition } from '../../core/pipelines/pipeline-definition.js';

/** Where a pipeline run came from; orchestrations launch with their own id (ORC-4). */
export interface PipelineRunSource {
  kind: 'orchestration';
  id: string;
}

/**
 * The seam between orchestrations and the durable pipeline engine (ORC-4, PIPE-1). The materializer
 * compiles an approved orchestration into a definition and launches it here; the engine implements it.
 * `idempotencyKey` is stable per orchestration revision: a materializer resumed after a crash may call
 * `launch` again for the same orchestration and must get the same run back, never a second run.
 */
export interface PipelineLauncher {
  launch(input: { workspaceId: string; definition: PipelineDefinition; source: PipelineRunSource; idempotencyKey: string }): Promise<{ pipelineRunId: string }>;
}

/** What the engine reports back about a run it launched for an orchestration. */
export interface PipelineNodeReport {
  workspaceId: string;
  pipelineRunId: string;
  source: PipelineRunSource;
  nodeKey: string;
  nodeType: PipelineDefinition['nodes'][number]['type'];
}

/**
 * Callbacks the engine calls as a run it launched for an orchestration progresses, so the
 * orchestration's status follows it: executing → synthesizing (the synthesis node starts) →
 * completed / failed / cancelled (the run ends). Calls for runs of other sources are ignored; repeated
 * calls are harmless.
 */
export interface PipelineRunObserver {
  onNodeStarted(report: PipelineNodeReport): Promise<void>;
  /** `costUsd`: what the node's runs cost, added to the orchestration's spend (maxUsd, ORC-4). */
  onNodeFinished(report: PipelineNodeReport & { state: 'done' | 'failed' | 'cancelled'; costUsd?: number | null }): Promise<void>;
  onPipelineFinished(report: { workspaceId: string; pipelineRunId: string; source: PipelineRunSource; state: 'completed' | 'failed' | 'cancelled'; error?: string | null }): Promise<void>;
}

/**
 * ORC-4's `maxUsd`: the engine asks before it starts a node of an orchestration's run. `proceed: false`
 * means the orchestration is paused waiting for the operator (who raises the cap or cancels); the
 * engine holds the node until `PipelineRunControl.resume` is called. `hold: 'budgetRoom'` says no
 * operator is needed: the node only waits for a sibling in flight to finish (the gate resumes it).
 */
export type PipelineBudgetVerdict = { proceed: true } | { proceed: false; reason: string; hold?: 'operator' | 'budgetRoom' };

export interface PipelineBudgetGate {
  beforeNode(input: { workspaceId: string; pipelineRunId: string; source: PipelineRunSource; nodeKey: string; estimatedUsd?: number | null }): Promise<PipelineBudgetVerdict>;
}

/** Optional controls the engine offers for a run it launched (cancel with the orchestration; resume after a budget pause). */
export interface PipelineRunControl {
  cancel(input: { workspaceId: string; pipelineRunId: string }): Promise<void>;
  resume(input: { workspaceId: string; pipelineRunId: string }): Promise<void>;
}
