import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { writeFresherConversation } from './fresher-write';
import type { Conversation } from './types';

/** Rename a conversation, or archive it (hidden behind "Show archived", never deleted) or bring it back. */
export function useUpdateConversation(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ conversationId, patch }: { conversationId: string; patch: { title?: string; archived?: boolean } }) =>
      api.patch<Conversation>(`/api/workspaces/${encodeURIComponent(ws)}/conversations/${encodeURIComponent(conversationId)}`, patch),
    onSuccess: (conversation) => {
      writeFresherConversation(client, ws, conversation);
    },
  });
}
