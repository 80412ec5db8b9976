import { useMemo } from 'react';
import { useAgents, usePresence } from '../api/hooks';
import type { Agent, Presence } from '../api/types';
import { paths } from '../app/router';
import { AgentStateBadge, PresenceDot } from '../ui/badges';
import { Link } from '../ui/link';
import { Empty, ErrorState, Loading } from '../ui/states';

interface OrgNode {
  agent: Agent;
  children: OrgNode[];
}

/** Builds the reportsTo forest; an unknown manager or a cycle makes the agent a root. */
export function buildOrgForest(agents: Agent[]): OrgNode[] {
  const byId = new Map(agents.map((agent) => [agent.id, agent]));
  const childrenOf = new Map<string, Agent[]>();
  const roots: Agent[] = [];
  for (const agent of agents) {
    let cursor: Agent | undefined = agent;
    const seen = new Set<string>();
    let cyclic = false;
    while (cursor?.reportsTo) {
      if (seen.has(cursor.id)) {
        cyclic = true;
        break;
      }
      seen.add(cursor.id);
      cursor = byId.get(cursor.reportsTo);
    }
    if (!agent.reportsTo || !byId.has(agent.reportsTo) || cyclic) roots.push(agent);
    else childrenOf.set(agent.reportsTo, [...(childrenOf.get(agent.reportsTo) ?? []), agent]);
  }
  const build = (agent: Agent, depth: number): OrgNode => ({
    agent,
    children: depth > 50 ? [] : (childrenOf.get(agent.id) ?? []).sort((a, b) => a.name.localeCompare(b.name)).map((child) => build(child, depth + 1)),
  });
  return roots.sort((a, b) => a.name.localeCompare(b.name)).map((root) => build(root, 0));
}

/** The org chart drawn from reportsTo: managers above their reports. */
export function OrgChartPage({ ws }: { ws: string }) {
  const agents = useAgents(ws);
  const presence = usePresence(ws);
  const forest = useMemo(() => buildOrgForest(agents.data?.agents ?? []), [agents.data]);
  const presenceByAgent = useMemo(() => new Map((presence.data?.presence ?? []).map((entry) => [entry.agentId, entry])), [presence.data]);
  return (
    <main className="page">
      <h2>Org chart</h2>
      <p className="muted small">Drawn from each agent's "Reports to". Edit it in Settings → Agents.</p>
      {agents.isPending ? (
        <Loading label="Loading agents…" />
      ) : agents.isError ? (
        <ErrorState error={agents.error} what="agents" retry={() => void agents.refetch()} />
      ) : forest.length === 0 ? (
        <Empty title="No agents yet" />
      ) : (
        <div className="org" data-testid="org-chart">
          <ul className="org-level">
            {forest.map((node) => (
              <OrgBranch key={node.agent.id} ws={ws} node={node} presence={presenceByAgent} />
            ))}
          </ul>
        </div>
      )}
    </main>
  );
}

function OrgBranch({ ws, node, presence }: { ws: string; node: OrgNode; presence: Map<string, Presence> }) {
  return (
    <li className="org-branch">
      <Link to={paths.agents(ws, node.agent.id)} className="org-card" data-testid="org-node" data-agent-name={node.agent.name}>
        <span className="agent-name">{node.agent.name}</span>
        <span className="muted small">{node.agent.title || 'No title'}</span>
        <span className="org-card-badges">
          <AgentStateBadge state={node.agent.state} />
          <PresenceDot status={presence.get(node.agent.id)?.status} />
        </span>
      </Link>
      {node.children.length > 0 ? (
        <ul className="org-level">
          {node.children.map((child) => (
            <OrgBranch key={child.agent.id} ws={ws} node={child} presence={presence} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
