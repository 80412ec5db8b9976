import type { PipelineDefinition } from '../../src/core/pipelines/pipeline-definition.js';
import type { OrchestrationProposal } from '../../src/core/orchestrations/orchestration-proposal.js';
import type { PipelineLauncher } from '../../src/services/orchestrations/pipeline-launcher.js';

/** A synthesis output schema that satisfies ORC-1 (an object with a `gaps` array). */
export const SYNTHESIS_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' }, gaps: { type: 'array', items: { type: 'string' } } },
  required: ['summary', 'gaps'],
};

/** A valid proposal: an existing agent as lead, one hire, a diamond of sub-tickets, research and synthesis. */
export function validProposal(existingAgentId: string, hireName = 'docs-writer'): OrchestrationProposal {
  return {
    goal: 'Ship the billing export',
    roles: [
      { roleKey: 'lead', title: 'Tech lead', agentId: existingAgentId },
      { roleKey: 'writer', title: 'Documentation writer', hire: { name: hireName, title: 'Technical writer', persona: 'Clear and brief.', skills: ['docs'] } },
    ],
    subTickets: [
      { key: 'schema', title: 'Design the export schema', roleKey: 'lead', description: 'Columns and types.', dependsOn: [] },
      { key: 'api', title: 'Export endpoint', roleKey: 'lead', description: 'GET /export.', dependsOn: ['schema'] },
      { key: 'docs', title: 'Document the export', roleKey: 'writer', description: 'User docs.', dependsOn: ['schema'] },
      { key: 'review', title: 'Review everything', roleKey: 'lead', description: 'Read it all.', dependsOn: ['api', 'docs'], expectedOutput: 'A verdict.' },
    ],
    research: { prompt: 'Find how exports work today.', roleKey: 'lead' },
    synthesis: { roleKey: 'lead', prompt: 'Summarise the result.', outputSchema: SYNTHESIS_SCHEMA },
    budget: { estimatedUsd: 4, maxUsd: 10 },
  };
}

/**
 * A real, small launcher for tests (the engine is another part's): it records every launch and honours
 * the idempotency key the way the engine's contract requires — the same key gives the same run back.
 */
export class RecordingLauncher implements PipelineLauncher {
  readonly calls: Array<{ workspaceId: string; definition: PipelineDefinition; source: { kind: 'orchestration'; id: string }; idempotencyKey: string }> = [];
  readonly runs = new Map<string, string>();
  private counter = 0;

  async launch(input: RecordingLauncher['calls'][number]): Promise<{ pipelineRunId: string }> {
    this.calls.push(input);
    const existing = this.runs.get(input.idempotencyKey);
    if (existing) return { pipelineRunId: existing };
    this.counter += 1;
    const pipelineRunId = `prun_test_${this.counter}`;
    this.runs.set(input.idempotencyKey, pipelineRunId);
    return { pipelineRunId };
  }
}

/** Node keys in an order that respects every `dependsOn` (what an engine may run), checked. */
export function respectsDependencies(definition: PipelineDefinition): boolean {
  const seen = new Set<string>();
  for (const node of definition.nodes) {
    if (!node.dependsOn.every((key) => seen.has(key))) return false;
    seen.add(node.key);
  }
  return true;
}
