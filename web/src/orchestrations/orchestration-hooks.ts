import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Orchestration } from '@server/schemas/orchestration';
import { api } from '../api/client';

const w = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;

/** Query keys of orchestrations; every one starts with `orchestrationKeys.all(ws)` so one invalidation refreshes all. */
export const orchestrationKeys = {
  all: (ws: string) => ['ws', ws, 'orchestrations'] as const,
  forConversation: (ws: string, conversationId: string) => ['ws', ws, 'orchestrations', 'conversation', conversationId] as const,
  diff: (ws: string, id: string, to: number) => ['ws', ws, 'orchestrations', 'diff', id, to] as const,
};

export type { Orchestration };

export interface RevisionDiffResponse {
  from: number;
  to: number;
  diff: {
    goal: { field: string; before: unknown; after: unknown } | null;
    roles: { added: string[]; removed: string[]; changed: Array<{ key: string; changes: Array<{ field: string; before: unknown; after: unknown }> }> };
    subTickets: { added: string[]; removed: string[]; changed: Array<{ key: string; changes: Array<{ field: string; before: unknown; after: unknown }> }> };
    research: { field: string; before: unknown; after: unknown } | null;
    synthesis: Array<{ field: string; before: unknown; after: unknown }>;
    budget: Array<{ field: string; before: unknown; after: unknown }>;
  };
}

export function useConversationOrchestrations(ws: string, conversationId: string) {
  return useQuery({
    queryKey: orchestrationKeys.forConversation(ws, conversationId),
    queryFn: () => api.get<{ orchestrations: Orchestration[] }>(`${w(ws)}/orchestrations?conversationId=${encodeURIComponent(conversationId)}`),
    retry: false,
  });
}

/** ORC-3: the diff from the previous revision (only asked for when there is one). */
export function useRevisionDiff(ws: string, orchestration: Orchestration) {
  const to = orchestration.latestRevision;
  return useQuery({
    queryKey: orchestrationKeys.diff(ws, orchestration.id, to),
    queryFn: () => api.get<RevisionDiffResponse>(`${w(ws)}/orchestrations/${orchestration.id}/diff?to=${to}`),
    enabled: to > 1,
    retry: false,
  });
}

/** ORC-2: approve (a pinned revision, optionally a subset), reject or cancel — operator calls. */
export function useOrchestrationAction(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string; action: 'approve' | 'reject' | 'cancel'; revision?: number; subTicketKeys?: string[]; reason?: string }) => {
      const base = `${w(ws)}/orchestrations/${input.id}`;
      if (input.action === 'approve') {
        return api.post<Orchestration>(`${base}/approve`, { revision: input.revision, ...(input.subTicketKeys ? { subTicketKeys: input.subTicketKeys } : {}) });
      }
      return api.post<Orchestration>(`${base}/${input.action}`, input.reason ? { reason: input.reason } : {});
    },
    onSettled: () => void client.invalidateQueries({ queryKey: orchestrationKeys.all(ws) }),
  });
}
