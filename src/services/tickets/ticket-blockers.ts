import type { Kysely } from 'kysely';
import type { Ticket, TicketWithBlockers } from '../../schemas/ticket.js';
import { findTicketsByIds, listPlanTickets } from '../../store/repositories/ticket-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/**
 * Adds what each ticket still waits on: the dependencies that are not done. Computed on the server
 * from the dependencies' own rows, so a dependency outside the list asked for (another project, a
 * status filter) is judged by its real status rather than counted as missing.
 *
 * Tickets of plans approved before plan tickets named their dependencies by ticket id carry the
 * steps' keys instead; those are resolved to the ids of the same plan's step tickets here.
 */
export async function withBlockers(db: Kysely<WorkspaceSchema>, tickets: readonly Ticket[]): Promise<TicketWithBlockers[]> {
  const known = new Map(tickets.map((ticket) => [ticket.id, ticket]));
  const missing = [...new Set(tickets.flatMap((ticket) => ticket.dependsOn))].filter((id) => !known.has(id));
  for (const ticket of await findTicketsByIds(db, missing)) known.set(ticket.id, ticket);

  const stepTicketsByPlan = new Map<string, Map<string, Ticket>>();
  const stepTickets = async (planId: string) => {
    let byKey = stepTicketsByPlan.get(planId);
    if (!byKey) {
      byKey = new Map((await listPlanTickets(db, planId)).filter((ticket) => ticket.nodeKey !== null).map((ticket) => [ticket.nodeKey!, ticket]));
      stepTicketsByPlan.set(planId, byKey);
    }
    return byKey;
  };

  const result: TicketWithBlockers[] = [];
  for (const ticket of tickets) {
    const dependencies: Ticket[] = [];
    const unresolved: string[] = [];
    for (const reference of ticket.dependsOn) {
      const dependency = known.get(reference) ?? (ticket.planId ? (await stepTickets(ticket.planId)).get(reference) : undefined);
      if (dependency) dependencies.push(dependency);
      else unresolved.push(reference);
    }
    result.push({
      ...ticket,
      dependsOn: [...dependencies.map((dependency) => dependency.id), ...unresolved],
      // A reference to no ticket at all cannot finish, so it keeps waiting (and shows as such).
      waitingOn: [...dependencies.filter((dependency) => dependency.status !== 'done').map((dependency) => dependency.id), ...unresolved],
    });
  }
  return result;
}
