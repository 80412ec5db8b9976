import type { Agent, Message, Run } from '../api/types';
import { modeLabelFor } from '../app/picker';
import { CompactionCard, isCompactionLine } from './CompactionCard';
import { ContextTable } from './ContextTable';
import { FinishedTurn } from './FinishedTurn';
import { MessageAttachments } from './MessageAttachments';
import { isModeChangeNote, ModeChangeNote } from './ModeChangeNote';
import { RewindButton } from './RewindControls';
import { useWorkspaceRole } from '../settings/people/people-hooks';

/**
 * RLY-1: every message shows the mode (picker value) it was sent in. An agent's reply carries no
 * picker of its own: its run's (mode, autonomy) — fixed for the whole turn — says it.
 */
function sentInLabel(message: Message, run: Run | undefined): string | null {
  if (message.picker) return message.picker;
  if (run && run.mode === message.mode) return modeLabelFor(run.mode, run.autonomy);
  return modeLabelFor(message.mode, message.mode === 'chat' ? 'unknown' : null);
}

export function MessageItem({ ws, message, agent, run, onBranch }: { ws: string; message: Message; agent: Agent | undefined; run: Run | undefined; onBranch: () => void }) {
  // TEAM-2: rewinding and branching are a member's (the routes' declared role); a viewer reads the message.
  const { canDecide } = useWorkspaceRole(ws);
  if (isModeChangeNote(message)) return <ModeChangeNote ws={ws} message={message} />;
  // HAR-5: an operator's message with a run is one that went to a going turn (running, or waiting for approval), as steering.
  const steering = message.role === 'user' && message.runId !== null;
  const author = message.authorKind === 'operator' ? 'You' : message.authorKind === 'agent' ? (agent?.name ?? 'agent') : 'System';
  const label = sentInLabel(message, run);
  return (
    <article className={`message message-${message.role} author-${message.authorKind}`} data-testid="message" data-message-id={message.id}>
      <header className="message-header">
        <strong>{author}</strong>
        {label ? (
          <span className="mode-chip" title="Mode this message was sent in" data-testid="message-mode">
            {label}
          </span>
        ) : null}
        {steering ? (
          <span className="mode-chip" data-testid="steering-chip" title="Sent while a turn was going: that turn reads it before its next step (after the approval it waits for, if any)">
            to the running turn
          </span>
        ) : null}
        <time className="muted small" dateTime={message.createdAt}>
          {new Date(message.createdAt).toLocaleTimeString()}
        </time>
        <span className="spacer" />
        {canDecide ? (
          // One group, so on a narrow screen the actions move whole onto a line of their own instead of being cut.
          <span className="message-actions">
            {message.role === 'user' && message.authorKind === 'operator' ? <RewindButton ws={ws} message={message} /> : null}
            <button type="button" className="btn btn-ghost btn-small message-branch" onClick={onBranch} title="Start a branch from this message">
              Branch from here
            </button>
          </span>
        ) : null}
      </header>
      {message.runId && message.role === 'assistant' ? (
        <FinishedTurn ws={ws} runId={message.runId} conversationId={message.conversationId} replyText={message.content} />
      ) : isCompactionLine(message) ? (
        <CompactionCard ws={ws} message={message} />
      ) : message.role === 'system' && message.runId === null ? (
        // `/context` answers with a system line of no run; ContextTable shows other lines as they are.
        <ContextTable content={message.content} />
      ) : (
        <div className="message-body">{message.content}</div>
      )}
      {steering ? (
        <p className="muted small steering-note" data-testid="steering-note">
          Sent to the running turn — it reads this before its next step
        </p>
      ) : null}
      <MessageAttachments ws={ws} message={message} />
    </article>
  );
}
