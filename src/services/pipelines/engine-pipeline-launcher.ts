import type { PipelineDefinition } from '../../core/pipelines/pipeline-definition.js';
import { validatePipelineDefinition } from '../../core/pipelines/validate-pipeline.js';
import type { PipelineEngine } from './pipeline-engine.js';
import { InvalidPipelineError } from './pipeline-service.js';

/** What an orchestration (or a plan, later) hands the engine (ORC-4, PIPE-1). Same shape as orchestrate's `PipelineLauncher`. */
export interface PipelineLaunch {
  workspaceId: string;
  definition: PipelineDefinition;
  source: { kind: 'orchestration'; id: string } | { kind: string; id: string };
  idempotencyKey: string;
}

/**
 * The launcher the materializer calls: validates the compiled definition (the same validator as
 * authored pipelines) and starts a run; launching twice with one key returns the first run, so a
 * materializer phase that resumes after a crash never launches a second execution.
 */
export class EnginePipelineLauncher {
  constructor(private readonly engine: PipelineEngine) {}

  async launch(input: PipelineLaunch): Promise<{ pipelineRunId: string }> {
    const validation = validatePipelineDefinition(input.definition);
    if (!validation.definition) throw new InvalidPipelineError(validation.errors);
    const { runId } = await this.engine.start({
      workspaceId: input.workspaceId,
      definition: validation.definition,
      pipelineId: null,
      trigger: { type: input.source.kind, payload: { sourceId: input.source.id } },
      source: input.source,
      idempotencyKey: `${input.source.kind}:${input.idempotencyKey}`,
    });
    return { pipelineRunId: runId };
  }
}
