import { useMemo } from 'react';
import { errorMessage } from '../api/client';
import { useAgents, useCreateAgent, usePresence } from '../api/hooks';
import type { Agent, Presence } from '../api/types';
import { navigate, paths } from '../app/router';
import { AgentStateBadge, PresenceDot } from '../ui/badges';
import { Link } from '../ui/link';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { AgentEditor } from './AgentEditor';
import { SettingsNav } from './SettingsNav';

/** Settings → Workspace → Agents: the list (state + presence), "New agent", and the editor. */
export function AgentsPage({ ws, agentId }: { ws: string; agentId: string | null }) {
  const agents = useAgents(ws);
  const presence = usePresence(ws);
  const create = useCreateAgent(ws);
  const presenceByAgent = useMemo(() => new Map((presence.data?.presence ?? []).map((entry) => [entry.agentId, entry])), [presence.data]);
  const list = agents.data?.agents ?? [];
  const selected = agentId ? list.find((agent) => agent.id === agentId) : undefined;

  const newAgent = async () => {
    try {
      const agent = await create.mutateAsync();
      navigate(paths.agents(ws, agent.id));
    } catch {
      // shown beside the button
    }
  };

  return (
    <div className="page-with-subnav">
      <SettingsNav ws={ws} active="agents" />
      <div className="split">
        <section className="list-pane" aria-label="Agents">
          <div className="pane-header">
            <h2>Agents</h2>
            <button type="button" className="btn btn-primary btn-small" onClick={() => void newAgent()} disabled={create.isPending}>
              New agent
            </button>
          </div>
          {create.isError ? <FieldError message={errorMessage(create.error)} /> : null}
          {presence.isError ? <div className="muted small pad">Presence could not be loaded.</div> : null}
          {agents.isPending ? (
            <Loading label="Loading agents…" />
          ) : agents.isError ? (
            <ErrorState error={agents.error} what="agents" retry={() => void agents.refetch()} />
          ) : list.length === 0 ? (
            <Empty title="No agents yet">Seeding may still be running; or create one with "New agent".</Empty>
          ) : (
            <ul className="agent-list" data-testid="agent-list">
              {list.map((agent) => (
                <AgentRow key={agent.id} ws={ws} agent={agent} presence={presenceByAgent.get(agent.id)} active={agent.id === agentId} />
              ))}
            </ul>
          )}
        </section>
        <section className="detail-pane" aria-label="Agent editor">
          {agentId === null ? (
            <Empty title="Choose an agent">Pick an agent on the left to edit every field, or create a blank one.</Empty>
          ) : selected ? (
            <AgentEditor key={selected.id} ws={ws} agent={selected} agents={list} />
          ) : agents.isPending ? (
            <Loading />
          ) : (
            <Empty title="Agent not found">It may have been deleted.</Empty>
          )}
        </section>
      </div>
    </div>
  );
}

function AgentRow({ ws, agent, presence, active }: { ws: string; agent: Agent; presence: Presence | undefined; active: boolean }) {
  return (
    <li className={active ? 'active' : undefined} data-agent-name={agent.name}>
      <Link to={paths.agents(ws, agent.id)} className="agent-row" aria-current={active ? 'true' : undefined}>
        <span className="agent-row-main">
          <span className="agent-name">{agent.name}</span>
          <span className="muted small">{agent.title || 'No title'}</span>
        </span>
        <span className="agent-row-side">
          <AgentStateBadge state={agent.state} />
          <PresenceDot status={presence?.status} />
        </span>
      </Link>
    </li>
  );
}
