import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, request } from './client';
import type { ConversationShare, CreatedConversationShare, SharedConversation } from './types';

/** RLY-3: a conversation's read-only share links, and the public view one opens. */
const sharesPath = (ws: string, conversationId: string) => `/api/workspaces/${encodeURIComponent(ws)}/conversations/${encodeURIComponent(conversationId)}/shares`;
const sharesKey = (ws: string, conversationId: string) => ['ws', ws, 'conversation', conversationId, 'shares'] as const;

export function useConversationShares(ws: string, conversationId: string, enabled: boolean) {
  return useQuery({ queryKey: sharesKey(ws, conversationId), queryFn: () => api.get<{ shares: ConversationShare[] }>(sharesPath(ws, conversationId)), enabled });
}

export function useCreateShare(ws: string, conversationId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<CreatedConversationShare>(sharesPath(ws, conversationId)),
    onSuccess: () => client.invalidateQueries({ queryKey: sharesKey(ws, conversationId) }),
  });
}

export function useRevokeShare(ws: string, conversationId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (shareId: string) => api.delete<ConversationShare>(`${sharesPath(ws, conversationId)}/${encodeURIComponent(shareId)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: sharesKey(ws, conversationId) }),
  });
}

/** The shared view needs no sign-in: the token in the link is the credential, so no operator token is sent. */
export function useSharedConversation(token: string) {
  return useQuery({ queryKey: ['share', token], queryFn: () => request<SharedConversation>('GET', `/api/share/${encodeURIComponent(token)}`, undefined, null) });
}
