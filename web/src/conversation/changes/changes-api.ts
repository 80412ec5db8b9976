import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChangeDiff, ChangesReview, ConversationChanges } from '@server/schemas/changes';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export type { ChangeDiff, ChangedFile, ChangesReview, ConversationChanges } from '@server/schemas/changes';

/** Files per page of the Changes view: enough to scroll, small enough to paint at once for a 2,000-file change. */
export const CHANGES_PAGE = 200;

const base = (ws: string, conversationId: string) => `/api/workspaces/${encodeURIComponent(ws)}/conversations/${encodeURIComponent(conversationId)}/changes`;

/** Every changes query of a conversation (listing pages and diffs), so one invalidation refreshes them all. */
export const changesKey = (ws: string, conversationId: string) => [...keys.conversation(ws, conversationId), 'changes'] as const;

function changesQuery(ws: string, conversationId: string, turn: number | null, offset: number) {
  return {
    queryKey: [...changesKey(ws, conversationId), 'list', turn, offset],
    queryFn: () => api.get<ConversationChanges>(`${base(ws, conversationId)}?${new URLSearchParams({ offset: String(offset), limit: String(CHANGES_PAGE), ...(turn ? { turn: String(turn) } : {}) })}`),
    // Each read snapshots the checkout in its sandbox: the prefetched page is not read again as the
    // view mounts. A run's events invalidate it whatever its age (live-changes.ts).
    staleTime: 2000,
  };
}

/** One page of the conversation's changes, in total (`turn` null) or of one turn. */
export function useChanges(ws: string, conversationId: string, turn: number | null, offset: number) {
  // A live refresh keeps the list on screen instead of flashing a spinner.
  return useQuery({ ...changesQuery(ws, conversationId, turn, offset), placeholderData: keepPreviousData });
}

/**
 * Starts reading the first page of the total as the view is asked for, so the request runs while the
 * view's code (and its highlighter) is still being fetched rather than after it.
 */
export function usePrefetchChanges(ws: string, conversationId: string): () => void {
  const client = useQueryClient();
  return () => void client.prefetchQuery(changesQuery(ws, conversationId, null, 0));
}

/** One file's diff between the two objects its listing gave; the same objects always give the same diff. */
export function useChangeDiff(ws: string, conversationId: string, file: { from: string; to: string; path: string; oldPath: string | null } | null) {
  return useQuery({
    queryKey: [...changesKey(ws, conversationId), 'diff', file?.from, file?.to, file?.path, file?.oldPath],
    queryFn: () => {
      const query = new URLSearchParams({ from: file!.from, to: file!.to, path: file!.path, ...(file!.oldPath ? { oldPath: file!.oldPath } : {}) });
      return api.get<ChangeDiff>(`${base(ws, conversationId)}/diff?${query}`);
    },
    enabled: file !== null,
    staleTime: Infinity,
  });
}

/** Opens a review of the conversation's branch against its base. */
export function useOpenChangesReview(ws: string, conversationId: string) {
  return useMutation({ mutationFn: () => api.post<ChangesReview>(`${base(ws, conversationId)}/review`, {}) });
}
