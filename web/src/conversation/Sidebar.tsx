import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useConversations, useCreateSpace, useSpaces } from '../api/hooks';
import type { Conversation, Space } from '../api/types';
import { spaceModeLabel } from '../app/picker';
import { navigate, paths } from '../app/router';
import { Link } from '../ui/link';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { newSpaceMode, useStartChat, useStartConversation } from './new-conversation';

/** Spaces and their conversations (branches nested under their parent). */
export function Sidebar({ ws, activeSpaceId, activeConversationId }: { ws: string; activeSpaceId: string | null; activeConversationId: string | null }) {
  const spaces = useSpaces(ws);
  const [creating, setCreating] = useState(false);
  const chat = useStartChat(ws);
  const newChat = async () => {
    try {
      const conversation = await chat.start();
      navigate(paths.conversation(ws, conversation.id));
    } catch {
      // the error is shown below
    }
  };
  return (
    <aside className="sidebar" aria-label="Spaces and conversations">
      <div className="pane-header">
        <h2>Spaces</h2>
        <button type="button" className="btn btn-small btn-primary" onClick={() => void newChat()} disabled={chat.isPending} title="A new space with one conversation, in the mode you last chose">
          New chat
        </button>
        <button type="button" className="btn btn-small" onClick={() => setCreating((value) => !value)} aria-expanded={creating}>
          New space
        </button>
      </div>
      {chat.error ? <FieldError message={errorMessage(chat.error)} /> : null}
      {creating ? <NewSpaceForm ws={ws} onDone={() => setCreating(false)} /> : null}
      {spaces.isPending ? (
        <Loading label="Loading spaces…" />
      ) : spaces.isError ? (
        <ErrorState error={spaces.error} what="spaces" retry={() => void spaces.refetch()} />
      ) : spaces.data.spaces.length === 0 ? (
        <Empty title="No spaces yet">A space is a room where conversations happen; its mode decides what agents may do.</Empty>
      ) : (
        <ul className="space-list">
          {spaces.data.spaces.map((space) => (
            <SpaceItem key={space.id} ws={ws} space={space} active={space.id === activeSpaceId} activeConversationId={activeConversationId} />
          ))}
        </ul>
      )}
    </aside>
  );
}

function NewSpaceForm({ ws, onDone }: { ws: string; onDone: () => void }) {
  const create = useCreateSpace(ws);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'room' | 'pullRequest'>('room');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      // RLY-2: a new room starts in the mode last chosen in this browser; a PR space is always review.
      const space = await create.mutateAsync({ name: name.trim(), ...(kind === 'pullRequest' ? { kind } : newSpaceMode()) });
      onDone();
      navigate(paths.space(ws, space.id));
    } catch {
      // shown below
    }
  };
  return (
    <form className="sidebar-form" onSubmit={submit} aria-label="New space">
      <input aria-label="Space name" placeholder="Space name" value={name} autoFocus onChange={(event) => setName(event.target.value)} />
      <select aria-label="Space kind" value={kind} onChange={(event) => setKind(event.target.value as 'room' | 'pullRequest')}>
        <option value="room">Room</option>
        <option value="pullRequest">Pull request (review)</option>
      </select>
      <div className="inline">
        <button type="submit" className="btn btn-primary btn-small" disabled={create.isPending}>
          Create space
        </button>
        <button type="button" className="btn btn-ghost btn-small" onClick={onDone}>
          Cancel
        </button>
      </div>
      {create.isError ? <FieldError message={errorMessage(create.error)} /> : null}
    </form>
  );
}

function SpaceItem({ ws, space, active, activeConversationId }: { ws: string; space: Space; active: boolean; activeConversationId: string | null }) {
  const conversations = useConversations(ws, space.id);
  const starter = useStartConversation(ws);
  const list = conversations.data?.conversations ?? [];
  const roots = list.filter((conversation) => !conversation.parentConversationId || !list.some((entry) => entry.id === conversation.parentConversationId));
  const newConversation = async () => {
    try {
      const conversation = await starter.start(space);
      navigate(paths.conversation(ws, conversation.id));
    } catch {
      // the space page shows errors
    }
  };
  return (
    <li className={`space-item${active ? ' active' : ''}`} data-space-name={space.name}>
      <div className="space-row">
        <Link to={paths.space(ws, space.id)} className="space-link" aria-current={active && !activeConversationId ? 'page' : undefined}>
          <span className="space-name">{space.name}</span>
          <span className={`mode-chip mode-${space.mode}`}>{spaceModeLabel(space)}</span>
        </Link>
        <button type="button" className="icon-btn" aria-label={`New conversation in ${space.name}`} title="New conversation" onClick={() => void newConversation()} disabled={starter.isPending}>
          +
        </button>
      </div>
      {list.length > 0 ? (
        <ul className="conversation-list">
          {roots.map((conversation) => (
            <ConversationItem key={conversation.id} ws={ws} conversation={conversation} all={list} activeId={activeConversationId} depth={0} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function ConversationItem({ ws, conversation, all, activeId, depth }: { ws: string; conversation: Conversation; all: Conversation[]; activeId: string | null; depth: number }) {
  const children = depth > 8 ? [] : all.filter((entry) => entry.parentConversationId === conversation.id);
  const active = conversation.id === activeId;
  return (
    <li>
      <Link to={paths.conversation(ws, conversation.id)} className={`conversation-link${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined}>
        {depth > 0 ? <span className="branch-mark" aria-label="branch">↳</span> : null}
        {conversation.title || 'Untitled'}
      </Link>
      {children.length > 0 ? (
        <ul className="conversation-list nested">
          {children.map((child) => (
            <ConversationItem key={child.id} ws={ws} conversation={child} all={all} activeId={activeId} depth={depth + 1} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
