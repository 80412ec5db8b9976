import type { Transaction } from 'kysely';
import { newId } from '../../ids.js';
import { insertTicket } from '../../store/repositories/ticket-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

export interface OrchestrationTicketInput {
  key: string;
  title: string;
  description: string;
  /** Keys of the sub-tickets this one waits for. */
  dependsOnKeys: string[];
  assigneeAgentId: string;
}

/**
 * The one place orchestrations write tickets (ORC-4): one real ticket per approved sub-ticket, in the
 * materializer's transaction, with its dependencies as the ids of the tickets it waits for. Written through
 * the ticket repository, the same rows the ticket service and review tools write. Returns key → id.
 */
export async function insertOrchestrationTickets(
  trx: Transaction<WorkspaceSchema>,
  input: { orchestrationId: string; projectId: string; tickets: readonly OrchestrationTicketInput[]; now: string },
): Promise<Map<string, string>> {
  const ids = new Map(input.tickets.map((ticket) => [ticket.key, newId('tkt')]));
  for (const ticket of input.tickets) {
    await insertTicket(trx, {
      id: ids.get(ticket.key)!,
      at: input.now,
      nodeKey: ticket.key,
      title: ticket.title,
      description: ticket.description,
      dependsOn: ticket.dependsOnKeys.map((key) => ids.get(key)).filter((id): id is string => id !== undefined),
      assigneeAgentId: ticket.assigneeAgentId,
      projectId: input.projectId,
      orchestrationId: input.orchestrationId,
    });
  }
  return ids;
}

/** Moves an orchestration's ticket along with its pipeline node (done / failed / cancelled). */
export async function setOrchestrationTicketStatus(trx: Transaction<WorkspaceSchema>, input: { orchestrationId: string; key: string; status: string; now: string }): Promise<void> {
  await trx
    .updateTable('tickets')
    .set({ status: input.status, updated_at: input.now })
    .where('orchestration_id', '=', input.orchestrationId)
    .where('node_key', '=', input.key)
    .execute();
}
