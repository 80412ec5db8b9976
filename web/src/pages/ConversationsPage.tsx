import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useAgents, useConversation, useConversations, useSpace, useSpaces, useUpdateSpace } from '../api/hooks';
import type { Space } from '../api/types';
import { AUTONOMY_LABELS, MODE_LABELS, spaceModeLabel } from '../app/picker';
import { navigate, paths } from '../app/router';
import { ConversationView } from '../conversation/ConversationView';
import { useStartConversation } from '../conversation/new-conversation';
import { Sidebar } from '../conversation/Sidebar';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Link } from '../ui/link';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { ListPlace } from '../ui/list-place';

/** Spaces sidebar + the selected space or conversation. */
export function ConversationsPage({ ws, conversationId, spaceId, planId }: { ws: string; conversationId: string | null; spaceId: string | null; planId: string | null }) {
  const conversation = useConversation(ws, conversationId ?? '');
  const activeSpaceId = spaceId ?? (conversationId ? (conversation.data?.spaceId ?? null) : null);
  return (
    <div className="workspace-layout">
      <Sidebar ws={ws} activeSpaceId={activeSpaceId} activeConversationId={conversationId} />
      {conversationId ? (
        conversation.isPending ? (
          <Loading label="Loading conversation…" />
        ) : conversation.isError ? (
          <main className="page">
            <ErrorState error={conversation.error} what="the conversation" retry={() => void conversation.refetch()} />
          </main>
        ) : (
          <ConversationView key={conversationId} ws={ws} conversation={conversation.data} planId={planId} />
        )
      ) : spaceId ? (
        <SpaceView key={spaceId} ws={ws} spaceId={spaceId} />
      ) : (
        <Home ws={ws} />
      )}
    </div>
  );
}

function Home({ ws }: { ws: string }) {
  const spaces = useSpaces(ws);
  return (
    <main className="page" aria-labelledby="home-title">
      {/* On a phone the sidebar (and its heading) is behind the menu: the page still says where it is. */}
      <h2 id="home-title" className="sr-only">Conversations</h2>
      {spaces.data && spaces.data.spaces.length === 0 ? (
        <Empty title="Start with a space">Use "New space" <ListPlace onPhone="in the menu" />. A space holds conversations; its mode decides what agents may do there.</Empty>
      ) : (
        <Empty title="Pick a conversation">Choose a space or conversation <ListPlace onPhone="in the menu" />, or start a new one with +.</Empty>
      )}
    </main>
  );
}

function SpaceView({ ws, spaceId }: { ws: string; spaceId: string }) {
  const space = useSpace(ws, spaceId);
  const conversations = useConversations(ws, spaceId);
  const agents = useAgents(ws);
  const updateSpace = useUpdateSpace(ws);
  const starter = useStartConversation(ws);
  const [title, setTitle] = useState('');
  // TEAM-2: a space's default agent is the admins' to set; starting a conversation is a member's.
  const { role, canDecide, canAdminister } = useWorkspaceRole(ws);

  if (space.isPending) return <Loading label="Loading space…" />;
  if (space.isError)
    return (
      <main className="page">
        <ErrorState error={space.error} what="the space" retry={() => void space.refetch()} />
      </main>
    );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const conversation = await starter.start(space.data, title.trim() || undefined);
      setTitle('');
      navigate(paths.conversation(ws, conversation.id));
    } catch {
      // shown below
    }
  };

  const current: Space = space.data;
  return (
    <main className="page narrow">
      <h2>
        {current.name} <span className={`mode-chip mode-${current.mode}`}>{spaceModeLabel(current)}</span>
      </h2>
      <p className="muted small">
        {current.kind === 'pullRequest' ? 'Pull-request space: review mode, read-only for agents. ' : ''}
        Mode {MODE_LABELS[current.mode]}, autonomy {AUTONOMY_LABELS[current.autonomy]}. Every conversation here shares the mode.
      </p>
      <div className="field inline-field">
        <label className="field-label" htmlFor="space-default-agent">
          Default agent
        </label>
        <select
          id="space-default-agent"
          value={current.defaultAgentId ?? ''}
          disabled={!canAdminister}
          title={canAdminister ? undefined : 'Only admins change the default agent'}
          onChange={(event) => updateSpace.mutate({ spaceId: current.id, patch: { defaultAgentId: event.target.value || null } })}
        >
          <option value="">The CEO (workspace default)</option>
          {(agents.data?.agents ?? []).map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </select>
        {updateSpace.isError ? <FieldError message={errorMessage(updateSpace.error)} /> : null}
      </div>
      {canDecide ? (
        <form className="inline new-conversation" onSubmit={submit} aria-label="New conversation">
          <input aria-label="Conversation title" placeholder="Title (optional)" value={title} onChange={(event) => setTitle(event.target.value)} />
          <button type="submit" className="btn btn-primary" disabled={starter.isPending}>
            New conversation
          </button>
        </form>
      ) : (
        <ReadOnlyNote role={role} needs="member" what="starting a conversation" />
      )}
      {starter.error ? <FieldError message={errorMessage(starter.error)} /> : null}
      <h3>Conversations</h3>
      {conversations.isPending ? (
        <Loading />
      ) : conversations.isError ? (
        <ErrorState error={conversations.error} what="conversations" retry={() => void conversations.refetch()} />
      ) : conversations.data.conversations.length === 0 ? (
        <Empty title="No conversations yet" />
      ) : (
        <ul className="plain-list">
          {conversations.data.conversations.map((conversation) => (
            <li key={conversation.id}>
              <Link to={paths.conversation(ws, conversation.id)}>{conversation.title}</Link>
              {conversation.parentConversationId ? <span className="muted small"> · branch</span> : null}
              {conversation.goal ? <span className="muted small"> · goal: {conversation.goal}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
