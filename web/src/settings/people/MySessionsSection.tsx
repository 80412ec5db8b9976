import { useEffect, useState } from 'react';
import { errorMessage } from '../../api/client';
import { timeAgo } from '../../ui/relative-time';
import { ErrorState, FieldError, Loading } from '../../ui/states';
import { useEndSession, useMySessions, type BrowserSession } from './session-hooks';

/** The current time, moved on every 30 s so "2 minutes ago" does not freeze while the page stays open. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** This browser first, then the most recently used: the one a person is most likely asking about. */
function byRelevance(a: BrowserSession, b: BrowserSession): number {
  if (a.current !== b.current) return a.current ? -1 : 1;
  return Date.parse(b.lastSeenAt) - Date.parse(a.lastSeenAt);
}

/**
 * TEAM-1: the signed-in person's own browser sessions — when each started and was last used — so a
 * forgotten or unknown one can be ended. Any role may end its own sessions, so this is offered to all.
 */
export function MySessionsSection() {
  const sessions = useMySessions();
  const end = useEndSession();
  const now = useNow();
  return (
    <section aria-labelledby="my-sessions">
      <h3 id="my-sessions">Your browser sessions</h3>
      {sessions.isPending ? (
        <Loading />
      ) : sessions.isError ? (
        <ErrorState error={sessions.error} what="Your sessions" retry={() => void sessions.refetch()} />
      ) : sessions.data.sessions.length === 0 ? (
        <p className="small muted">No browser is signed in as you (this one uses a token).</p>
      ) : (
        <table className="table" data-testid="my-sessions">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Started</th>
              <th scope="col">Last seen</th>
              <th scope="col" aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {[...sessions.data.sessions].sort(byRelevance).map((session) => (
              <tr key={session.id} data-session-id={session.id}>
                <td data-label="Session">{session.current ? <strong>This browser</strong> : <span className="muted">Another browser</span>}</td>
                <td data-label="Started">{new Date(session.createdAt).toLocaleString()}</td>
                <td data-label="Last seen" data-testid="session-last-seen">
                  <time dateTime={session.lastSeenAt} title={new Date(session.lastSeenAt).toLocaleString()}>
                    {timeAgo(session.lastSeenAt, now)}
                  </time>
                </td>
                <td>
                  <button
                    type="button"
                    className="btn btn-small"
                    disabled={end.isPending}
                    title={session.current ? 'Ends this session: this browser is signed out' : 'Ends that session at once'}
                    onClick={() => end.mutate(session.id)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {end.isError ? <FieldError message={errorMessage(end.error)} /> : null}
    </section>
  );
}
