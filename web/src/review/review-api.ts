import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AxisAssessment, Finding, ForgeLink, GateResult, Review, ReviewPublication, VerdictView } from '@server/schemas/review';
import type { Ticket } from '@server/schemas/ticket';
import { api, getToken, request } from '../api/client';
import { keys } from '../api/keys';

export type { AxisAssessment, Finding, GateProgress, GateResult, Review, VerdictView } from '@server/schemas/review';
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

/** The pull request a review came from and its publication. */
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
    mutationFn: ({ command, body }: { command: 'finalize' | 'dispatch'; body?: unknown }) => api.post<unknown>(`${r(ws, reviewId)}/${command}`, body ?? {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.reviews(ws) }),
  });
}

export interface GateConfig {
  name: string;
  command: string;
}

/** A repository's configured gates (its gated axes: tests, lint, type-check…). */
export function useGateConfig(ws: string, repoPath: string) {
  return useQuery({
    queryKey: [...keys.reviews(ws), 'gate-config', repoPath],
    queryFn: () => api.get<{ repoPath: string; gates: GateConfig[] }>(`${w(ws)}/review-gates?repoPath=${encodeURIComponent(repoPath)}`),
  });
}

export function useSaveGates(ws: string, repoPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (gates: GateConfig[]) => request<{ repoPath: string; gates: GateConfig[] }>('PUT', `${w(ws)}/review-gates`, { repoPath, gates }),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.reviews(ws) }),
  });
}

/** The gate results recorded for the review's current head. */
export function useGateResults(ws: string, reviewId: string) {
  return useQuery({ queryKey: [...keys.reviews(ws), reviewId, 'gates'], queryFn: () => api.get<{ results: GateResult[] }>(`${r(ws, reviewId)}/gates`) });
}

export function useRunGates(ws: string, reviewId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<{ results: GateResult[] }>(`${r(ws, reviewId)}/gates/run`, {}),
    onSettled: () => void client.invalidateQueries({ queryKey: keys.reviews(ws) }),
  });
}

/** The explicit axis assessments of the review's current head (the evidence an agent axis needs). */
export function useAssessments(ws: string, reviewId: string) {
  return useQuery({ queryKey: [...keys.reviews(ws), reviewId, 'assessments'], queryFn: () => api.get<{ assessments: AxisAssessment[] }>(`${r(ws, reviewId)}/assessments`) });
}

export function useRecordAssessment(ws: string, reviewId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { axis: string; assessment: 'pass' | 'fail'; basis: string }) => api.post<AxisAssessment>(`${r(ws, reviewId)}/assessments`, body),
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
