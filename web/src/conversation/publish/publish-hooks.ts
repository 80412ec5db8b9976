import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConversationDestinations, ConversationMerge, ConversationPublication, EditPublicationBody, MergeBody, PublishBody, PublishDraft } from '@server/schemas/publish';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

const destinationsKey = (ws: string, conversationId: string) => ['ws', ws, 'destinations', conversationId] as const;
const conversationPath = (ws: string, conversationId: string) => `/api/workspaces/${encodeURIComponent(ws)}/conversations/${encodeURIComponent(conversationId)}`;

/** A publish still on its way (waiting for the approval, or being sent) is read again until it settles. */
const SETTLING_POLL_MS = 1500;

/** Where the conversation's work went (CHG-2): its pull request and its local merges. */
export function useDestinations(ws: string, conversationId: string) {
  return useQuery({
    queryKey: destinationsKey(ws, conversationId),
    queryFn: () => api.get<ConversationDestinations>(`${conversationPath(ws, conversationId)}/destinations`),
    refetchInterval: (query) => {
      const status = query.state.data?.publication?.status;
      return status === 'awaitingApproval' || status === 'publishing' ? SETTLING_POLL_MS : false;
    },
  });
}

/** The written title and body, fetched only when the operator opens the publish form. */
export function usePublishDraft(ws: string, conversationId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['ws', ws, 'publish-draft', conversationId] as const,
    queryFn: () => api.get<PublishDraft>(`${conversationPath(ws, conversationId)}/publish/draft`),
    enabled,
    staleTime: 0,
    gcTime: 0,
  });
}

function useDestinationsChanged(ws: string, conversationId: string) {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: destinationsKey(ws, conversationId) });
    // The approval it asked for shows among the conversation's pending approvals.
    void client.invalidateQueries({ queryKey: keys.approvals(ws) });
  };
}

export function usePublish(ws: string, conversationId: string) {
  const changed = useDestinationsChanged(ws, conversationId);
  return useMutation({ mutationFn: (body: PublishBody) => api.post<ConversationPublication>(`${conversationPath(ws, conversationId)}/publish`, body), onSuccess: changed });
}

export function useEditPublication(ws: string, conversationId: string) {
  const changed = useDestinationsChanged(ws, conversationId);
  return useMutation({ mutationFn: (body: EditPublicationBody) => api.patch<ConversationPublication>(`${conversationPath(ws, conversationId)}/publish`, body), onSuccess: changed });
}

export function useMerge(ws: string, conversationId: string) {
  const changed = useDestinationsChanged(ws, conversationId);
  return useMutation({ mutationFn: (body: MergeBody) => api.post<ConversationMerge>(`${conversationPath(ws, conversationId)}/merge`, body), onSuccess: changed });
}

export function useRefreshPublication(ws: string, conversationId: string) {
  const changed = useDestinationsChanged(ws, conversationId);
  return useMutation({ mutationFn: () => api.post<ConversationPublication>(`${conversationPath(ws, conversationId)}/publish/refresh`), onSuccess: changed });
}
