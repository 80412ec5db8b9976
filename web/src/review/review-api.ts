import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Finding, ForgeLink, Review, ReviewPublication, VerdictView } from '@server/schemas/review';
import type { Ticket } from '@server/schemas/ticket';
import { api, getToken } from '../api/client';
import { keys } from '../api/keys';

export type { Finding, GateResult, Review, VerdictView } from '@server/schemas/review';
export type { Ticket } from '@server/schemas/ticket';

const w = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;
const r = (ws: string, reviewId: string) => `${w(ws)}/reviews/${encodeURIComponent(reviewId)}`;

export function useReviews(ws: string) {
  return useQuery({ queryKey: [...keys.reviews(ws), 'list'], queryFn: () => api.get<{ reviews: Review[] }>(`${w(ws)}/reviews`) });
}

export function useReview(ws: string, reviewId: string) {
  return useQuery({ queryKey: [...keys.reviews(ws), reviewId], queryFn: () => api.get<Review>(r(ws, reviewId)) });
}

export function useReviewDiff(ws: string, reviewId: string, headSha: string | undefined) {
  return useQuery({ queryKey: [...keys.reviews(ws), reviewId, 'diff', headSha], queryFn: () => api.get<{ diff: string }>(`${r(ws, reviewId)}/diff`), enabled: Boolean(headSha), staleTime: Infinity });
}

export function useFindings(ws: string, reviewId: string) {
  return useQuery({ queryKey: [...keys.reviews(ws), reviewId, 'findings'], queryFn: () => api.get<{ findings: Finding[]; dropped: number }>(`${r(ws, reviewId)}/findings`) });
}

export function useVerdict(ws: string, reviewId: string) {
  return useQuery({ queryKey: [...keys.reviews(ws), reviewId, 'verdict'], queryFn: () => api.get<{ current: VerdictView; published: VerdictView | null }>(`${r(ws, reviewId)}/verdict`) });
}

export function useReviewTickets(ws: string, reviewId: string) {
  return useQuery({ queryKey: [...keys.tickets(ws), reviewId], queryFn: () => api.get<{ tickets: Ticket[] }>(`${w(ws)}/tickets?reviewId=${encodeURIComponent(reviewId)}`) });
}

export function useOpenReview(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ({ repoPath: string; base: string; head: string } | { prUrl: string }) & { title?: string; reviewers?: string[] }) =>
      api.post<{ review: Review; created: boolean; reReview: boolean }>(`${w(ws)}/reviews`, body),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.reviews(ws) }),
  });
}

/** The pull request a review came from and its publication (issue 12). */
export function usePublication(ws: string, reviewId: string) {
  return useQuery({ queryKey: [...keys.reviews(ws), reviewId, 'publication'], queryFn: () => api.get<{ pullRequest: ForgeLink | null; publication: ReviewPublication | null }>(`${r(ws, reviewId)}/publication`),
    // Sending happens after the approval is decided, with no event of its own: poll while it is under way.
    refetchInterval: (query) => (['awaitingApproval', 'publishing'].includes(query.state.data?.publication?.status ?? '') ? 3000 : false),
  });
}

export function usePublish(ws: string, reviewId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<{ publication: ReviewPublication; created: boolean }>(`${r(ws, reviewId)}/publish`, {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.reviews(ws) }),
  });
}

export type FindingAction = 'confirm' | 'dismiss' | 'contest' | 'resolve';

export function useFindingAction(ws: string, reviewId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ findingId, action, reason }: { findingId: string; action: FindingAction; reason?: string }) =>
      api.post<Finding>(`${r(ws, reviewId)}/findings/${encodeURIComponent(findingId)}/${action}`, reason ? { reason } : {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.reviews(ws) }),
  });
}

export function useReviewCommand(ws: string, reviewId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ command, body }: { command: 'finalize' | 'dispatch' | 'gates/run'; body?: unknown }) => api.post<unknown>(`${r(ws, reviewId)}/${command}`, body ?? {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.reviews(ws) }),
  });
}

/** Downloads an export with the operator token (a plain link cannot send the Authorization header). */
export async function downloadExport(ws: string, reviewId: string, format: 'sarif' | 'md'): Promise<void> {
  const response = await fetch(`${r(ws, reviewId)}/export.${format}`, { headers: { authorization: `Bearer ${getToken() ?? ''}` } });
  if (!response.ok) throw new Error(`export failed: HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `review-${reviewId}.${format}`;
  link.click();
  URL.revokeObjectURL(url);
}
