import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from './client';
import { keys } from './keys';
import type { Inbox } from './types';

/**
 * Everything waiting for a person, in one read (`GET …/inbox`): the Inbox page, its badge and the
 * sidebar's marks all come from this one query, so the badge can never count what the page does not
 * list. Refetched on every event that changes what waits (inbox-events.ts).
 */
export function useInbox(ws: string) {
  return useQuery({ queryKey: keys.inbox(ws), queryFn: () => api.get<Inbox>(`/api/workspaces/${encodeURIComponent(ws)}/inbox`), retry: false });
}

/** Per space and per conversation: how many decisions wait there, and whether a run is running. */
export interface SidebarMarks {
  waiting: Map<string, number>;
  running: Set<string>;
}

const NO_MARKS: SidebarMarks = { waiting: new Map(), running: new Set() };

/** The sidebar's marks, keyed by space id and by conversation id alike (ids never collide: `sp_…`, `cv_…`). */
export function useSidebarMarks(ws: string): SidebarMarks {
  const inbox = useInbox(ws);
  return useMemo(() => {
    if (!inbox.data) return NO_MARKS;
    const waiting = new Map<string, number>();
    for (const item of inbox.data.items) {
      for (const id of [item.spaceId, item.conversationId]) if (id) waiting.set(id, (waiting.get(id) ?? 0) + 1);
    }
    const running = new Set(inbox.data.running.flatMap((place) => (place.spaceId ? [place.spaceId, place.conversationId] : [place.conversationId])));
    return { waiting, running };
  }, [inbox.data]);
}
