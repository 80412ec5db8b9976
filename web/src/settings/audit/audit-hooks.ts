import { useInfiniteQuery } from '@tanstack/react-query';
import type { AuditEntry, AuditPage } from '@server/schemas/audit';
import { api, ApiError, getToken } from '../../api/client';
import { keys } from '../../api/keys';

export type { AuditEntry };

/** The filters the Audit log page offers; empty strings mean "any". */
export interface AuditFilterValues {
  person: string;
  kind: string;
  space: string;
  /** `datetime-local` values (the browser's local time); sent as ISO UTC. */
  from: string;
  to: string;
}

/** The query string of the filters, as the API takes them (times in UTC). */
export function auditQuery(filters: AuditFilterValues): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.person) query.set('person', filters.person);
  if (filters.kind.trim()) query.set('kind', filters.kind.trim());
  if (filters.space) query.set('space', filters.space);
  if (filters.from) query.set('from', new Date(filters.from).toISOString());
  if (filters.to) query.set('to', new Date(filters.to).toISOString());
  return query;
}

const base = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;

/** TEAM-3: the workspace's audit log, newest first, a page of 50 at a time ("Show older"). */
export function useAuditLog(ws: string, filters: AuditFilterValues) {
  return useInfiniteQuery({
    queryKey: [...keys.workspace(ws), 'audit', filters] as const,
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => {
      const query = auditQuery(filters);
      query.set('limit', '50');
      if (pageParam) query.set('cursor', pageParam);
      return api.get<AuditPage>(`${base(ws)}/audit?${query.toString()}`);
    },
    getNextPageParam: (page) => page.nextCursor,
    retry: false,
  });
}

/**
 * Downloads the JSON Lines export of the filtered log. Fetched with the page's credential (a bearer
 * token when the browser holds one, else the session cookie), then saved from a blob URL.
 */
export async function downloadAuditJsonLines(ws: string, filters: AuditFilterValues): Promise<void> {
  const token = getToken();
  const response = await fetch(`${base(ws)}/audit.jsonl?${auditQuery(filters).toString()}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) throw new ApiError(response.status, 'http_error', `the export failed: HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = `audit-${ws}.jsonl`;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has handed the blob to the download; the URL itself is no longer needed.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
