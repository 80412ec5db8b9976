import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useConversations, useCreateSpace, useSpaces, useUpdateSpace } from '../api/hooks';
import { useSidebarMarks, type SidebarMarks as Marks } from '../api/inbox-hooks';
import { useUpdateConversation } from '../api/sidebar-hooks';
import type { Conversation, Space } from '../api/types';
import { spaceModeLabel } from '../app/picker';
import { navigate, paths } from '../app/router';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Link } from '../ui/link';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { InlineRename } from './InlineRename';
import { newSpaceMode, useStartChat, useStartConversation } from './new-conversation';
import { SidebarItemMenu } from './SidebarItemMenu';
import { SidebarMarks } from './SidebarMarks';
import './sidebar.css';

/** What the sidebar shows: the filter typed (lower-cased) and whether archived rows are listed. */
interface SidebarView {
  query: string;
  showArchived: boolean;
  marks: Marks;
}

/** Whether a name matches the filter (case-insensitive, anywhere in the name). */
function matches(name: string, query: string): boolean {
  return query === '' || name.toLowerCase().includes(query);
}

/**
 * Spaces and their conversations (branches nested under their parent), each marked when a run runs
 * there or something waits for you; filtered by name; archived ones behind "Show archived".
 */
export function Sidebar({ ws, activeSpaceId, activeConversationId }: { ws: string; activeSpaceId: string | null; activeConversationId: string | null }) {
  const spaces = useSpaces(ws);
  const [creating, setCreating] = useState(false);
  const [query, setQuery] = useState('');
  const [showArchived, setShowArchived] = useState(false);
  const marks = useSidebarMarks(ws);
  const view: SidebarView = { query: query.trim().toLowerCase(), showArchived, marks };
  // TEAM-2: creating, renaming and archiving a space are an admin's (a new chat creates a space too);
  // starting, renaming and archiving a conversation are a member's. Others see the list as it is.
  const { canAdminister } = useWorkspaceRole(ws);
  const archivedCount = spaces.data?.spaces.filter((space) => space.archivedAt !== null).length ?? 0;
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
        {canAdminister ? (
          <>
            <button type="button" className="btn btn-small btn-primary" onClick={() => void newChat()} disabled={chat.isPending} title="A new space with one conversation, in the mode you last chose">
              New chat
            </button>
            <button type="button" className="btn btn-small" onClick={() => setCreating((value) => !value)} aria-expanded={creating}>
              New space
            </button>
          </>
        ) : null}
      </div>
      {chat.error ? <FieldError message={errorMessage(chat.error)} /> : null}
      {creating ? <NewSpaceForm ws={ws} onDone={() => setCreating(false)} /> : null}
      <div className="sidebar-tools">
        <input type="search" aria-label="Filter spaces and conversations" placeholder="Filter by name" value={query} onChange={(event) => setQuery(event.target.value)} />
        <label>
          <input type="checkbox" checked={showArchived} onChange={(event) => setShowArchived(event.target.checked)} />
          Show archived{archivedCount > 0 ? ` (${archivedCount} space${archivedCount === 1 ? '' : 's'})` : ''}
        </label>
      </div>
      {spaces.isPending ? (
        <Loading label="Loading spaces…" />
      ) : spaces.isError ? (
        <ErrorState error={spaces.error} what="spaces" retry={() => void spaces.refetch()} />
      ) : spaces.data.spaces.length === 0 ? (
        <Empty title="No spaces yet">A space is a room where conversations happen; its mode decides what agents may do.</Empty>
      ) : (
        <ul className="space-list">
          {spaces.data.spaces
            // The space open now stays listed even when archived, so the page never loses its place.
            .filter((space) => view.showArchived || space.archivedAt === null || space.id === activeSpaceId)
            .map((space) => (
              <SpaceItem key={space.id} ws={ws} space={space} active={space.id === activeSpaceId} activeConversationId={activeConversationId} view={view} />
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

function SpaceItem({ ws, space, active, activeConversationId, view }: { ws: string; space: Space; active: boolean; activeConversationId: string | null; view: SidebarView }) {
  const conversations = useConversations(ws, space.id);
  const starter = useStartConversation(ws);
  const update = useUpdateSpace(ws);
  const [renaming, setRenaming] = useState(false);
  const { canDecide, canAdminister } = useWorkspaceRole(ws);
  const shown = (conversations.data?.conversations ?? []).filter((conversation) => view.showArchived || conversation.archivedAt === null || conversation.id === activeConversationId);
  // A matching space shows all its conversations; otherwise only the ones whose title matches.
  const spaceMatches = matches(space.name, view.query);
  const list = spaceMatches ? shown : shown.filter((conversation) => matches(conversation.title, view.query));
  const roots = list.filter((conversation) => !conversation.parentConversationId || !list.some((entry) => entry.id === conversation.parentConversationId));
  if (!spaceMatches && list.length === 0) return null;
  const archived = space.archivedAt !== null;
  const newConversation = async () => {
    try {
      const conversation = await starter.start(space);
      navigate(paths.conversation(ws, conversation.id));
    } catch {
      // the space page shows errors
    }
  };
  return (
    <li className={`space-item${active ? ' active' : ''}${archived ? ' sidebar-archived' : ''}`} data-space-name={space.name} data-space-id={space.id}>
      {renaming ? (
        <InlineRename label="Space name" initial={space.name} onSave={(name) => update.mutateAsync({ spaceId: space.id, patch: { name } })} onDone={() => setRenaming(false)} />
      ) : null}
      <div className="space-row" hidden={renaming}>
        <Link to={paths.space(ws, space.id)} className="space-link" aria-current={active && !activeConversationId ? 'page' : undefined}>
          <span className="space-name">{space.name}</span>
          <span className="space-marks">
            <SidebarMarks running={view.marks.running.has(space.id)} waiting={view.marks.waiting.get(space.id) ?? 0} />
            {archived ? <span className="sidebar-archived-label">archived</span> : null}
            <span className={`mode-chip mode-${space.mode}`}>{spaceModeLabel(space)}</span>
          </span>
        </Link>
        {canAdminister ? <SidebarItemMenu name={space.name} archived={archived} onRename={() => setRenaming(true)} onArchive={(next) => update.mutate({ spaceId: space.id, patch: { archived: next } })} /> : null}
        {canDecide ? (
          <button type="button" className="icon-btn" aria-label={`New conversation in ${space.name}`} title="New conversation" onClick={() => void newConversation()} disabled={starter.isPending}>
            +
          </button>
        ) : null}
      </div>
      {update.isError ? <FieldError message={errorMessage(update.error)} /> : null}
      {list.length > 0 ? (
        <ul className="conversation-list">
          {roots.map((conversation) => (
            <ConversationItem key={conversation.id} ws={ws} conversation={conversation} all={list} activeId={activeConversationId} depth={0} marks={view.marks} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function ConversationItem({ ws, conversation, all, activeId, depth, marks }: { ws: string; conversation: Conversation; all: Conversation[]; activeId: string | null; depth: number; marks: Marks }) {
  const children = depth > 8 ? [] : all.filter((entry) => entry.parentConversationId === conversation.id);
  const active = conversation.id === activeId;
  const update = useUpdateConversation(ws);
  const [renaming, setRenaming] = useState(false);
  const { canDecide } = useWorkspaceRole(ws);
  const archived = conversation.archivedAt !== null;
  const title = conversation.title || 'Untitled';
  return (
    <li className={archived ? 'sidebar-archived' : undefined} data-conversation-id={conversation.id}>
      {renaming ? (
        <InlineRename label="Conversation title" initial={title} onSave={(next) => update.mutateAsync({ conversationId: conversation.id, patch: { title: next } })} onDone={() => setRenaming(false)} />
      ) : (
        <div className="conversation-row">
          <Link to={paths.conversation(ws, conversation.id)} className={`conversation-link${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined}>
            {depth > 0 ? <span className="branch-mark" aria-label="branch">↳</span> : null}
            {title}
          </Link>
          <span className="conversation-marks">
            <SidebarMarks running={marks.running.has(conversation.id)} waiting={marks.waiting.get(conversation.id) ?? 0} />
            {archived ? <span className="sidebar-archived-label">archived</span> : null}
          </span>
          {canDecide ? <SidebarItemMenu name={title} archived={archived} onRename={() => setRenaming(true)} onArchive={(next) => update.mutate({ conversationId: conversation.id, patch: { archived: next } })} /> : null}
        </div>
      )}
      {update.isError && !renaming ? <FieldError message={errorMessage(update.error)} /> : null}
      {children.length > 0 ? (
        <ul className="conversation-list nested">
          {children.map((child) => (
            <ConversationItem key={child.id} ws={ws} conversation={child} all={all} activeId={activeId} depth={depth + 1} marks={marks} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
