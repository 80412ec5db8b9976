import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Project } from '@server/schemas/project';
import type { TICKET_STATUSES, TicketWithBlockers as Ticket } from '@server/schemas/ticket';
import { api } from '../api/client';
import { keys } from '../api/keys';

export type { Project } from '@server/schemas/project';
/** A ticket as the board reads it: with `waitingOn`, its dependencies that are not done (computed by the server). */
export type { TicketWithBlockers as Ticket } from '@server/schemas/ticket';

/** The board's columns: the server's ticket statuses, in order (the type keeps the two the same). */
export const TICKET_COLUMNS: typeof TICKET_STATUSES = ['open', 'inProgress', 'blocked', 'done', 'failed', 'cancelled'];

const w = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;

/** Under `keys.tickets`: every `ticket.*` event refetches the board (live). */
export function useTickets(ws: string, projectId: string | null) {
  return useQuery({
    queryKey: [...keys.tickets(ws), 'board', projectId ?? 'all'],
    queryFn: () => api.get<{ tickets: Ticket[] }>(`${w(ws)}/tickets${projectId ? `?projectId=${encodeURIComponent(projectId)}` : ''}`),
  });
}

/** Projects change with orchestrations; their events also refetch this. */
export function useProjects(ws: string) {
  return useQuery({ queryKey: [...keys.workspace(ws), 'orchestrations', 'projects'], queryFn: () => api.get<{ projects: Project[] }>(`${w(ws)}/projects`) });
}

/** An operator moves a ticket: through the tickets service (validation, `ticket.updated`, PIPE-1's ticket.done trigger). */
export function useMoveTicket(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ ticketId, status }: { ticketId: string; status: string }) => api.patch<Ticket>(`${w(ws)}/tickets/${encodeURIComponent(ticketId)}`, { status }),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.tickets(ws) }),
  });
}
