import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PipelineRunDetail, PipelineRunSummary, PipelineView } from '@server/schemas/pipeline';
import { api } from '../api/client';
import { keys } from '../api/keys';

export type { PipelineRunDetail, PipelineRunSummary, PipelineView } from '@server/schemas/pipeline';
export type PipelineNodeView = PipelineRunDetail['nodes'][number];

const w = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;
/** Under `['ws', ws, 'pipelines']`: the `pipelineRun.updated` event refetches all of them (PIPE-1, live). */
const pipelineKey = (ws: string, ...rest: string[]) => [...keys.workspace(ws), 'pipelines', ...rest] as const;

export function usePipelines(ws: string) {
  return useQuery({ queryKey: pipelineKey(ws, 'list'), queryFn: () => api.get<{ pipelines: PipelineView[] }>(`${w(ws)}/pipelines`) });
}

/** Recent runs of every source: orchestrations' runs have no stored pipeline, so they appear only here. */
export function useRecentPipelineRuns(ws: string) {
  return useQuery({ queryKey: pipelineKey(ws, 'recent-runs'), queryFn: () => api.get<{ runs: PipelineRunSummary[] }>(`${w(ws)}/pipeline-runs?limit=30`) });
}

export function usePipelineRun(ws: string, runId: string) {
  return useQuery({ queryKey: pipelineKey(ws, 'run', runId), queryFn: () => api.get<PipelineRunDetail>(`${w(ws)}/pipeline-runs/${encodeURIComponent(runId)}`), retry: false });
}

export function useStartPipelineRun(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (pipelineId: string) => api.post<PipelineRunDetail>(`${w(ws)}/pipelines/${encodeURIComponent(pipelineId)}/runs`, {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: pipelineKey(ws) }),
  });
}

export function useCancelPipeline(ws: string, runId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (nodeKey: string | null) =>
      api.post<PipelineRunDetail>(`${w(ws)}/pipeline-runs/${encodeURIComponent(runId)}${nodeKey ? `/nodes/${encodeURIComponent(nodeKey)}` : ''}/cancel`, {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: pipelineKey(ws) }),
  });
}

export function usePipeline(ws: string, pipelineId: string | null) {
  return useQuery({
    queryKey: pipelineKey(ws, 'one', pipelineId ?? ''),
    queryFn: () => api.get<PipelineView>(`${w(ws)}/pipelines/${encodeURIComponent(pipelineId ?? '')}`),
    enabled: pipelineId !== null,
    retry: false,
  });
}

/** What the server's validation says of a definition: the save's own checks, nothing stored. */
export function validatePipeline(ws: string, definition: unknown): Promise<{ ok: true; warnings: PipelineView['warnings'] }> {
  return api.post(`${w(ws)}/pipelines/validate`, definition);
}

/** Creates (no id) or replaces (id) a pipeline's definition; the answer carries a new webhook's secret once. */
export function useSavePipeline(ws: string, pipelineId: string | null) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (definition: unknown) =>
      pipelineId === null
        ? api.post<{ pipeline: PipelineView; webhookSecret: string | null }>(`${w(ws)}/pipelines`, definition)
        : api.put<{ pipeline: PipelineView; webhookSecret: string | null }>(`${w(ws)}/pipelines/${encodeURIComponent(pipelineId)}`, definition),
    onSuccess: () => void client.invalidateQueries({ queryKey: pipelineKey(ws) }),
  });
}
