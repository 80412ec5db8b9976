import type { Message } from '../api/types';
import { useMe, usePersonName } from '../settings/people/people-hooks';

/**
 * A line the server wrote when the space's mode or autonomy dial changed (MODE-4, POL-5): a system
 * line whose author is the operator who caused it (or the Control Center itself).
 */
export function isModeChangeNote(message: Message): boolean {
  return message.role === 'system' && message.runId === null && message.authorKind === 'operator';
}

/** The change, said where it happened: what changed, why, and who did it. */
export function ModeChangeNote({ ws, message }: { ws: string; message: Message }) {
  const me = useMe();
  const nameOf = usePersonName(ws);
  const who = message.authorId && me.data?.id === message.authorId ? 'you' : (nameOf(message.authorId) ?? 'someone');
  return (
    <div className="mode-change-note" data-testid="mode-change-note" data-message-id={message.id} role="note">
      <span aria-hidden="true">⚙</span>
      <span>{message.content}</span>
      <span className="muted small">
        by {who} · <time dateTime={message.createdAt}>{new Date(message.createdAt).toLocaleTimeString()}</time>
      </span>
    </div>
  );
}
