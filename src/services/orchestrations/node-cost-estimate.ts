import type { Kysely } from 'kysely';
import { estimateNodeCost, type NodeCostEstimate } from '../../core/orchestrations/node-budget.js';
import { recentRunCosts } from '../../store/repositories/orchestration-repository.js';
import { findPipelineRunNode } from '../../store/repositories/pipeline-repository.js';
import { findTeamRoster } from '../../store/repositories/team-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/**
 * The estimate of one node of a pipeline run from the run history of the agents it will run (ORC-2's
 * band, per node; ORC-4's gate adds it to the spend before the node starts).
 */
export async function estimateRunNode(db: Kysely<WorkspaceSchema>, pipelineRunId: string, nodeKey: string): Promise<NodeCostEstimate> {
  const node = await findPipelineRunNode(db, pipelineRunId, nodeKey);
  if (!node) return { kind: 'unknown', reason: `node ${nodeKey} is not in run ${pipelineRunId}` };
  const roster = node.type === 'team.dispatch' ? await findTeamRoster(db, node.teamId) : null;
  const agentIds = node.type === 'team.dispatch' ? (roster?.members.map((member) => member.agentId) ?? []) : 'agentId' in node ? [node.agentId] : [];
  const costs = new Map(await Promise.all(agentIds.map(async (agentId) => [agentId, await recentRunCosts(db, agentId)] as const)));
  return estimateNodeCost(node, (agentId) => costs.get(agentId) ?? [], roster ? roster.members.map((member) => member.agentId) : null);
}
