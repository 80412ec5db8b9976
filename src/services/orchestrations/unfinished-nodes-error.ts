import type { Kysely } from 'kysely';
import { listPipelineNodes } from '../../store/repositories/pipeline-run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/** Nodes named in the error; the rest are counted (the pipeline run's page lists every one). */
const NAMED_NODES = 3;
/** Characters of one node's reason kept in the error: enough for the cause, not a whole transcript. */
const REASON_CHARS = 500;

/**
 * The error an orchestration shows when its pipeline run did not complete (TRUTH-4): each node that
 * failed with its own reason — "synthesis failed: the agent did not end with a JSON object matching
 * the output schema" — rather than only a count the operator has to click through. Nodes that were
 * merely blocked or cancelled behind a failure follow as a count. Null when no node failed, cancelled
 * or was blocked (the engine's own error then stands).
 */
export async function unfinishedNodesError(db: Kysely<WorkspaceSchema>, pipelineRunId: string): Promise<string | null> {
  const unfinished = await listPipelineNodes(db, pipelineRunId, { states: ['failed', 'blocked', 'cancelled'] });
  if (unfinished.length === 0) return null;
  const failed = unfinished.filter((node) => node.state === 'failed');
  const named = (failed.length > 0 ? failed : unfinished).slice(0, NAMED_NODES);
  const reasons = named.map((node) => `${node.key} ${node.state}${node.error ? `: ${node.error.slice(0, REASON_CHARS)}` : ''}`);
  const others = unfinished.length - named.length;
  return `${unfinished.length} node(s) did not finish — ${reasons.join('; ')}${others > 0 ? `; ${others} more blocked or cancelled behind it` : ''}`;
}
