import { UNTITLED_CHAT_SPACE } from '@server/core/chat-space-name';
import { DEFAULT_AUTONOMY } from '@server/core/modes';
import { pickerToSpaceMode } from '@server/core/picker';
import { useCreateConversation, useCreateSpace } from '../api/hooks';
import type { Autonomy, Mode, Space } from '../api/types';
import { lastChosenPicker } from '../app/picker';

/**
 * A new conversation inside an existing space takes that space's mode and never changes it (RLY-2 as
 * decided to keep MODE-1: every conversation of a space shares its mode, so applying the browser's
 * last choice here would silently change the mode of every other conversation in the space).
 */
export function useStartConversation(ws: string) {
  const create = useCreateConversation(ws);
  const start = async (space: Space, title?: string) => create.mutateAsync({ spaceId: space.id, ...(title ? { title } : {}) });
  return { start, isPending: create.isPending, error: create.error };
}

/** The (mode, autonomy) a new space starts with: the mode last chosen in this browser, else Agent (RLY-2). */
export function newSpaceMode(): { mode: Mode; autonomy: Autonomy } {
  return pickerToSpaceMode(lastChosenPicker(), DEFAULT_AUTONOMY);
}

/** RLY-2: a new chat is a new space in the browser's last mode, with one conversation. */
export function useStartChat(ws: string) {
  const createSpace = useCreateSpace(ws);
  const createConversation = useCreateConversation(ws);
  const start = async () => {
    // Named "New chat" until its conversation has a title (its first message, or a rename): the
    // server then names the space after it, instead of seven spaces called by their creation time.
    const space = await createSpace.mutateAsync({ name: UNTITLED_CHAT_SPACE, ...newSpaceMode() });
    return createConversation.mutateAsync({ spaceId: space.id });
  };
  return { start, isPending: createSpace.isPending || createConversation.isPending, error: createSpace.error ?? createConversation.error };
}
