import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { getToken } from '../api/client';
import { reportHere, reportLeave } from '../api/control-hooks';
import { writeFresherEntity } from '../api/fresher-write';
import { keys } from '../api/keys';

/** Said again this often while the window stays (the server forgets a window after 45 s of silence). */
const HEARTBEAT_MS = 15_000;

/** One id per browser window, kept across reloads of the tab (sessionStorage), never shared between tabs. */
function windowId(): string {
  const key = 'cc.windowId';
  try {
    const existing = sessionStorage.getItem(key);
    if (existing) return existing;
    const id = `win_${crypto.randomUUID().replace(/-/g, '')}`;
    sessionStorage.setItem(key, id);
    return id;
  } catch {
    return `win_${crypto.randomUUID().replace(/-/g, '')}`;
  }
}

export const WINDOW_ID = windowId();

/**
 * Presence of people (AG-4): tells the server where this window is (a space or a conversation) and
 * keeps saying so; says it left when the page goes away or moves elsewhere. The answer is the
 * workspace's list of people, written into the cache the live event also updates.
 */
export function usePresenceHeartbeat(ws: string, place: { spaceId: string | null; conversationId: string | null }): void {
  const client = useQueryClient();
  const { spaceId, conversationId } = place;
  useEffect(() => {
    let stopped = false;
    const beat = () => {
      reportHere(ws, { clientId: WINDOW_ID, spaceId, conversationId })
        .then((list) => {
          // An event read after this answer's list may have landed first: keep it (the list is stamped).
          if (!stopped) writeFresherEntity(client, keys.operatorPresence(ws), list);
        })
        .catch(() => undefined); // presence is best effort: a missed beat only delays it
    };
    beat();
    const timer = window.setInterval(beat, HEARTBEAT_MS);
    const leaveOnUnload = () => {
      // keepalive: the request outlives the page that is closing.
      const token = getToken();
      void fetch(`/api/workspaces/${encodeURIComponent(ws)}/presence/leave`, {
        method: 'POST',
        keepalive: true,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ clientId: WINDOW_ID }),
      }).catch(() => undefined);
    };
    window.addEventListener('pagehide', leaveOnUnload);
    return () => {
      stopped = true;
      window.clearInterval(timer);
      window.removeEventListener('pagehide', leaveOnUnload);
    };
  }, [client, ws, spaceId, conversationId]);
  // Leaving the workspace (not just moving within it) removes this window at once.
  useEffect(() => () => void reportLeave(ws, WINDOW_ID).catch(() => undefined), [ws]);
}

/**
 * A conversation this window looks at without being on its page: the Inbox's card opened from a
 * notification (`?card=`). Reported as where the window is, so the people in that conversation, and
 * anyone else with the card open, see who is about to decide it.
 */
let lookingAt: string | null = null;
const lookingAtListeners = new Set<() => void>();
function setLookingAt(conversationId: string | null): void {
  lookingAt = conversationId;
  for (const listener of lookingAtListeners) listener();
}
function subscribeLookingAt(listener: () => void): () => void {
  lookingAtListeners.add(listener);
  return () => lookingAtListeners.delete(listener);
}

/** While mounted, this window counts as looking at `conversationId` (a page that shows one of its cards). */
export function useLookingAt(conversationId: string | null): void {
  useEffect(() => {
    setLookingAt(conversationId);
    return () => setLookingAt(null);
  }, [conversationId]);
}

/** Renders nothing: runs the heartbeat for the page shown (mounted by the shell while a workspace is open). */
export function PresenceBeacon({ ws, spaceId, conversationId }: { ws: string; spaceId: string | null; conversationId: string | null }): null {
  const looking = useSyncExternalStore(subscribeLookingAt, () => lookingAt);
  usePresenceHeartbeat(ws, { spaceId, conversationId: conversationId ?? looking });
  return null;
}
