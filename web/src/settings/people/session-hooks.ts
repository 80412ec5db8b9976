import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BrowserSession } from '@server/schemas/people';
import { api } from '../../api/client';

export type { BrowserSession };

const SESSIONS = '/api/people/me/sessions';
const sessionsKey = ['people', 'me', 'sessions'] as const;

/**
 * TEAM-1: the signed-in person's browser sessions. Refetched every minute, since the server stamps
 * last-seen at most once a minute: a session in use elsewhere shows it without a reload.
 */
export function useMySessions() {
  return useQuery({ queryKey: sessionsKey, queryFn: () => api.get<{ sessions: BrowserSession[] }>(SESSIONS), retry: false, refetchInterval: 60_000 });
}

/** Ends one session at once (its streams close); ending this browser's own signs it out. */
export function useEndSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string) => api.delete<null>(`${SESSIONS}/${encodeURIComponent(sessionId)}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: sessionsKey }),
  });
}
