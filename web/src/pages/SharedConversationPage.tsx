import { ApiError } from '../api/client';
import { useSharedConversation } from '../api/share-hooks';
import { ErrorState, Loading } from '../ui/states';

const AUTHOR: Record<'operator' | 'agent' | 'system', string> = { operator: 'Operator', agent: 'Agent', system: 'System' };

/**
 * RLY-3: a conversation opened from a share link, read-only. No sign-in, no composer and no mode
 * picker: nothing here can send, answer, approve or change anything; it shows the title and the
 * messages' text, which is all the share API returns.
 */
export function SharedConversationPage({ token }: { token: string }) {
  const shared = useSharedConversation(token);
  if (shared.isPending) return <Loading label="Opening the shared conversation…" />;
  if (shared.error) {
    if (shared.error instanceof ApiError && shared.error.status === 404) {
      return (
        <main className="page shared-conversation" data-testid="share-unavailable">
          <h2>This link does not open anything</h2>
          <p className="muted">It may have been revoked, or it was copied incompletely. Ask whoever shared it for a new link.</p>
        </main>
      );
    }
    return <ErrorState error={shared.error} what="the shared conversation" retry={() => void shared.refetch()} />;
  }
  const { title, messages } = shared.data;
  return (
    <main className="page shared-conversation" aria-label="Shared conversation" data-testid="shared-conversation">
      <header className="conversation-header">
        <div className="conversation-title">
          <h2 data-testid="conversation-title">{title}</h2>
          <span className="muted small">Shared read-only</span>
        </div>
      </header>
      <div className="messages">
        {messages.length === 0 ? <p className="muted">No messages yet.</p> : null}
        {messages.map((message, index) => (
          <article key={index} className={`message message-${message.role} author-${message.author}`} data-testid="message">
            <header className="message-header">
              <strong>{AUTHOR[message.author]}</strong>
              <time className="muted small" dateTime={message.createdAt}>
                {new Date(message.createdAt).toLocaleString()}
              </time>
            </header>
            <div className="message-body">{message.content}</div>
          </article>
        ))}
      </div>
    </main>
  );
}
