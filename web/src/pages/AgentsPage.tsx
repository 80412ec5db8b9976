import { useMemo, useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useAgents, useCreateAgent, usePresence } from '../api/hooks';
import type { Agent, Presence } from '../api/types';
import { navigate, paths } from '../app/router';
import { AgentStateBadge, PresenceDot } from '../ui/badges';
import { Link } from '../ui/link';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { AgentCost } from './AgentCost';
import { AgentEditor } from './AgentEditor';
import { SettingsNav } from './SettingsNav';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { ListPlace } from '../ui/list-place';

/** Settings → Workspace → Agents: the list (state + presence), "New agent", and the editor. */
export function AgentsPage({ ws, agentId }: { ws: string; agentId: string | null }) {
  const agents = useAgents(ws);
  const presence = usePresence(ws);
  const create = useCreateAgent(ws);
  const { role, canAdminister } = useWorkspaceRole(ws);
  const presenceByAgent = useMemo(() => new Map((presence.data?.presence ?? []).map((entry) => [entry.agentId, entry])), [presence.data]);
  const list = agents.data?.agents ?? [];
  const selected = agentId ? list.find((agent) => agent.id === agentId) : undefined;

  // "New agent" asks for a name first: nothing is saved until the operator creates it (no junk agents).
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [title, setTitle] = useState('');
  const newAgent = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const agent = await create.mutateAsync({ name: name.trim(), ...(title.trim() ? { title: title.trim() } : {}) });
      setNaming(false);
      setName('');
      setTitle('');
      navigate(paths.agents(ws, agent.id));
    } catch {
      // shown under the form
    }
  };

  return (
    <div className="page-with-subnav">
      <SettingsNav ws={ws} active="agents" />
      {/* The agents list and the editor are the page's main content; the settings menu beside them is its navigation. */}
      <main className="split">
        <section className="list-pane" aria-label="Agents">
          <div className="pane-header">
            <h2>Agents</h2>
            {naming || !canAdminister ? null : (
              <button type="button" className="btn btn-primary btn-small" onClick={() => setNaming(true)}>
                New agent
              </button>
            )}
          </div>
          {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="adding or changing agents" />}
          {naming && canAdminister ? (
            <form className="new-agent-form stack pad" onSubmit={(event) => void newAgent(event)} aria-label="New agent">
              <input aria-label="New agent name" placeholder="Name (used for @mentions)" value={name} autoFocus onChange={(event) => setName(event.target.value)} />
              <input aria-label="New agent title" placeholder="Title (optional)" value={title} onChange={(event) => setTitle(event.target.value)} />
              <div className="inline">
                <button type="submit" className="btn btn-primary btn-small" disabled={create.isPending || name.trim() === ''}>
                  Create agent
                </button>
                <button type="button" className="btn btn-small" onClick={() => { setNaming(false); create.reset(); }}>
                  Cancel
                </button>
              </div>
              {create.isError ? <FieldError message={errorMessage(create.error)} /> : null}
            </form>
          ) : null}
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
            <Empty title="Choose an agent">Pick an agent <ListPlace onPhone="above" /> to edit every field, or create a blank one.</Empty>
          ) : selected ? (
            <>
              <AgentEditor key={selected.id} ws={ws} agent={selected} agents={list} />
              <AgentCost ws={ws} agentId={selected.id} />
            </>
          ) : agents.isPending ? (
            <Loading />
          ) : (
            <Empty title="Agent not found">It may have been deleted.</Empty>
          )}
        </section>
      </main>
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
