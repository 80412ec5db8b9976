import { useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { useCreateConversation } from '../api/hooks';
import { keys } from '../api/keys';
import type { Space } from '../api/types';
import { lastChosenPicker } from '../app/picker';

/**
 * RLY-2: a new conversation starts with the mode last chosen in this browser (else Agent). The mode
 * lives on the space (MODE-1), so the choice is applied to the space when it differs.
 */
export function useStartConversation(ws: string) {
  const create = useCreateConversation(ws);
  const client = useQueryClient();
  const start = async (space: Space, title?: string) => {
    const conversation = await create.mutateAsync({ spaceId: space.id, ...(title ? { title } : {}) });
    const wanted = lastChosenPicker();
    if (space.mode !== 'review' && space.picker !== wanted) {
      try {
        const updated = await api.patch<Space>(`/api/workspaces/${ws}/spaces/${space.id}`, { picker: wanted });
        client.setQueryData(keys.space(ws, updated.id), updated);
        client.setQueryData<{ spaces: Space[] }>(keys.spaces(ws), (old) => (old ? { spaces: old.spaces.map((entry) => (entry.id === updated.id ? updated : entry)) } : old));
      } catch {
        // The conversation exists; the composer shows the space's actual mode.
      }
    }
    return conversation;
  };
  return { start, isPending: create.isPending, error: create.error };
}
