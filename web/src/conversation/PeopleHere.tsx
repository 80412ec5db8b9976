import { useOperatorPresence } from '../api/control-hooks';
import { WINDOW_ID } from '../app/presence-heartbeat';
import { usePersonName } from '../settings/people/people-hooks';

/**
 * People in this conversation now (AG-4), beside the agents: every operator window open on it,
 * kept live by the `presence.operators` event. This window is "you"; others are named by the person
 * whose window it is (TEAM-3), or "you, in another window" for the same person.
 */
export function PeopleHere({ ws, conversationId }: { ws: string; conversationId: string }) {
  const presence = useOperatorPresence(ws);
  const nameOf = usePersonName(ws);
  const all = presence.data?.operators ?? [];
  const mine = all.find((entry) => entry.clientId === WINDOW_ID);
  const here = all.filter((entry) => entry.conversationId === conversationId);
  if (presence.isError) return <div className="muted small">Who is here could not be loaded.</div>;
  return (
    <ul className="presence-list people-here" data-testid="people-here" aria-label="People here">
      {here.length === 0 ? <li className="muted small">Nobody else.</li> : null}
      {here.map((entry) => (
        <li key={entry.clientId} data-testid="person-here">
          <span>{entry.clientId === WINDOW_ID ? 'You' : mine && entry.operatorId === mine.operatorId ? 'You, in another window' : (nameOf(entry.operatorId) ?? 'Someone else')}</span>
          <span className="presence presence-executing">
            <span className="presence-dot" aria-hidden="true" />
            here
          </span>
        </li>
      ))}
    </ul>
  );
}
