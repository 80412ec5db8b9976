import type { PipelineIssue } from './pipeline-issue.js';

/**
 * The agents a definition names that the workspace does not have (PIPE-1). The pure validator cannot
 * know the workspace's agents, so save and validate both run this after it: a pipeline naming a missing
 * agent would otherwise be stored and fail only when its node runs. Walks the raw body, so an unknown
 * agent is reported together with every schema problem of the same node.
 */
export function unknownAgentIssues(input: unknown, knownAgentIds: ReadonlySet<string>): PipelineIssue[] {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return [];
  const nodes = (input as Record<string, unknown>)['nodes'];
  if (!Array.isArray(nodes)) return [];
  const issues: PipelineIssue[] = [];
  nodes.forEach((raw, index) => {
    if (raw === null || typeof raw !== 'object') return;
    const node = raw as Record<string, unknown>;
    const nodeKey = typeof node['key'] === 'string' ? node['key'] : undefined;
    const report = (agentId: string, field: string) =>
      issues.push({ severity: 'error', code: 'unknown_agent', message: `agent ${agentId} does not exist in this workspace`, field, ...(nodeKey ? { nodeKey } : {}) });
    const agentId = node['agentId'];
    if (typeof agentId === 'string' && agentId !== '' && !knownAgentIds.has(agentId)) report(agentId, `nodes.${index}.agentId`);
    const members = node['memberAgentIds'];
    if (Array.isArray(members)) {
      members.forEach((member, position) => {
        if (typeof member === 'string' && member !== '' && !knownAgentIds.has(member)) report(member, `nodes.${index}.memberAgentIds.${position}`);
      });
    }
  });
  return issues;
}
