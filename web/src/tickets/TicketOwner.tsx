import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../api/client';
import { keys } from '../api/keys';
import { useWorkspacePeople } from '../settings/people/people-hooks';
import { FieldError } from '../ui/states';
import type { Ticket } from './tickets-api';

/** AG-4: gives a ticket to a person of the workspace, or takes it from them (null); the server checks they are in it. */
function useAssignTicketToPerson(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ ticketId, personId }: { ticketId: string; personId: string | null }) =>
      api.patch<Ticket>(`/api/workspaces/${encodeURIComponent(ws)}/tickets/${encodeURIComponent(ticketId)}`, { assigneePersonId: personId }),
    onSuccess: () => void client.invalidateQueries({ queryKey: keys.tickets(ws) }),
  });
}

/**
 * Who owns a ticket (AG-4): a person or an agent. Those who may change tickets (members and up)
 * pick a person here; choosing "its agent" leaves an agent owner as it is, "nobody" takes the ticket
 * from its person. Others read the owner's name.
 */
export function TicketOwner({ ws, ticket, agentName, canChange }: { ws: string; ticket: Ticket; agentName: string | null; canChange: boolean }) {
  const people = useWorkspacePeople(ws).data?.people ?? [];
  const assign = useAssignTicketToPerson(ws);
  const personName = ticket.assigneePersonId ? (people.find((person) => person.id === ticket.assigneePersonId)?.name ?? 'someone') : null;
  const owner = personName ?? agentName;
  if (!canChange) return owner ? <div className="muted small" data-testid="ticket-owner">{owner}</div> : null;
  return (
    <>
      <label className="inline small">
        Owner
        <select
          aria-label={`Owner of ${ticket.title}`}
          data-testid="ticket-owner"
          value={ticket.assigneePersonId ?? ''}
          disabled={assign.isPending}
          onChange={(event) => assign.mutate({ ticketId: ticket.id, personId: event.target.value || null })}
        >
          <option value="">{ticket.assigneePersonId === null && agentName ? `${agentName} (agent)` : 'Nobody'}</option>
          {people.map((person) => (
            <option key={person.id} value={person.id}>
              {person.name}
            </option>
          ))}
        </select>
      </label>
      {assign.isError ? <FieldError message={errorMessage(assign.error)} /> : null}
    </>
  );
}
