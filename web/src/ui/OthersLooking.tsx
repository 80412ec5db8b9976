import { useOperatorPresence } from '../api/control-hooks';
import { useMe, usePersonName } from '../settings/people/people-hooks';

/** "Dana", "Dana and Ada", "Dana, Ada and Sam": names as a sentence reads them. */
function nameList(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

/**
 * TEAM-3 in the Inbox: the other people who have this card's conversation open right now (in the
 * conversation, or with this card opened from a notification), so two people do not decide the
 * same thing at once unaware. Read from presence (AG-4), which the `presence.operators` event keeps
 * live; this person's own windows are never listed. Renders nothing when nobody else is there.
 */
export function OthersLooking({ ws, conversationId }: { ws: string; conversationId: string | null }) {
  const presence = useOperatorPresence(ws);
  const me = useMe();
  const nameOf = usePersonName(ws);
  if (!conversationId || !me.data) return null;
  const others = new Set(
    (presence.data?.operators ?? []).filter((entry) => entry.conversationId === conversationId && entry.operatorId !== me.data.id).map((entry) => entry.operatorId),
  );
  if (others.size === 0) return null;
  const names = [...others].map((personId) => nameOf(personId) ?? 'someone else');
  return (
    <p className="muted small others-looking" data-testid="others-looking">
      <span className="presence-dot" aria-hidden="true" /> {nameList(names)} {names.length === 1 ? 'is' : 'are'} looking at this too
    </p>
  );
}
