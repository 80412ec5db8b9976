import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** A ticket made from one step of an approved plan (PLAN-7). Tickets are written here, read by nothing yet. */
export interface NewTicket {
  id: string;
  planId: string;
  nodeKey: string;
  title: string;
  description: string;
  status: string;
  dependsOn: readonly string[];
  assigneeAgentId: string | null;
  at: string;
}

export async function insertTicket(db: Kysely<WorkspaceSchema>, ticket: NewTicket): Promise<void> {
  await db
    .insertInto('tickets')
    .values({
      id: ticket.id,
      plan_id: ticket.planId,
      node_key: ticket.nodeKey,
      title: ticket.title,
      description: ticket.description,
      status: ticket.status,
      depends_on: JSON.stringify(ticket.dependsOn),
      assignee_agent_id: ticket.assigneeAgentId,
      created_at: ticket.at,
      updated_at: ticket.at,
    })
    .execute();
}

/** Sets the status of the ticket of one plan step. */
export async function setPlanTicketStatus(db: Kysely<WorkspaceSchema>, planId: string, nodeKey: string, status: string, updatedAt: string): Promise<void> {
  await db.updateTable('tickets').set({ status, updated_at: updatedAt }).where('plan_id', '=', planId).where('node_key', '=', nodeKey).execute();
}
