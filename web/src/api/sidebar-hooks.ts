import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { keys } from './keys';
import type { Conversation } from './types';

/** Rename a conversation, or archive it (hidden behind "Show archived", never deleted) or bring it back. */
export function useUpdateConversation(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ conversationId, patch }: { conversationId: string; patch: { title?: string; archived?: boolean } }) =>
      api.patch<Conversation>(`/api/workspaces/${encodeURIComponent(ws)}/conversations/${encodeURIComponent(conversationId)}`, patch),
    onSuccess: (conversation) => {
      client.setQueryData(keys.conversation(ws, conversation.id), conversation);
      client.setQueryData<{ conversations: Conversation[] }>(keys.conversations(ws, conversation.spaceId), (old) =>
        old ? { conversations: old.conversations.map((entry) => (entry.id === conversation.id ? conversation : entry)) } : old,
      );
    },
  });
}
