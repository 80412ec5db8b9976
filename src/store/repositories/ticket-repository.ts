import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { newId, nowIso } from '../../ids.js';
import type { Ticket, TicketComment } from '../../schemas/ticket.js';
import type { TicketCommentTable, TicketTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';

const parseDependsOn = jsonColumn('tickets', 'depends_on', z.array(z.string()));

/** The one mapper from a `tickets` row to the domain object. */
export function toTicket(row: Selectable<TicketTable>): Ticket {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    dependsOn: parseDependsOn(row.depends_on, row.id),
    assigneeAgentId: row.assignee_agent_id,
    assigneePersonId: row.assignee_person_id ?? null,
    planId: row.plan_id,
    nodeKey: row.node_key,
    projectId: row.project_id ?? null,
    reviewId: row.review_id ?? null,
    findingId: row.finding_id ?? null,
    createdBy: row.created_by_kind && row.created_by_id ? { kind: row.created_by_kind, id: row.created_by_id } : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toTicketComment(row: Selectable<TicketCommentTable>): TicketComment {
  return { id: row.id, ticketId: row.ticket_id, author: { kind: row.author_kind, id: row.author_id }, body: row.body, createdAt: row.created_at };
}

export interface NewTicketRow {
  /** Given when the caller links the id elsewhere in the same transaction (a plan node); otherwise made here. */
  id?: string;
  /** The transaction's timestamp, when the caller has one. */
  at?: string;
  title: string;
  description: string;
  status?: string;
  dependsOn?: readonly string[];
  assigneeAgentId?: string | null;
  assigneePersonId?: string | null;
  projectId?: string | null;
  planId?: string | null;
  nodeKey?: string | null;
  reviewId?: string | null;
  findingId?: string | null;
  /** The orchestration whose materializer made it (ORC-4). */
  orchestrationId?: string | null;
  createdBy?: { kind: string; id: string } | null;
}

export async function insertTicket(db: Kysely<WorkspaceSchema>, input: NewTicketRow): Promise<Ticket> {
  const now = input.at ?? nowIso();
  const row: TicketTable = {
    id: input.id ?? newId('tkt'),
    plan_id: input.planId ?? null,
    node_key: input.nodeKey ?? null,
    title: input.title,
    description: input.description,
    status: input.status ?? 'open',
    depends_on: JSON.stringify(input.dependsOn ?? []),
    assignee_agent_id: input.assigneeAgentId ?? null,
    assignee_person_id: input.assigneePersonId ?? null,
    project_id: input.projectId ?? null,
    review_id: input.reviewId ?? null,
    finding_id: input.findingId ?? null,
    orchestration_id: input.orchestrationId ?? null,
    created_by_kind: input.createdBy?.kind ?? null,
    created_by_id: input.createdBy?.id ?? null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('tickets').values(row).execute();
  return toTicket(row as Selectable<TicketTable>);
}

export async function findTicket(db: Kysely<WorkspaceSchema>, ticketId: string): Promise<Ticket | null> {
  const row = await db.selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirst();
  return row ? toTicket(row) : null;
}

/** The tickets with these ids (any that exist). */
export async function findTicketsByIds(db: Kysely<WorkspaceSchema>, ticketIds: readonly string[]): Promise<Ticket[]> {
  if (ticketIds.length === 0) return [];
  return (await db.selectFrom('tickets').selectAll().where('id', 'in', [...ticketIds]).execute()).map(toTicket);
}

/** The tickets of one plan's steps (each carries its step's key). */
export async function listPlanTickets(db: Kysely<WorkspaceSchema>, planId: string): Promise<Ticket[]> {
  return (await db.selectFrom('tickets').selectAll().where('plan_id', '=', planId).execute()).map(toTicket);
}

export async function listTickets(db: Kysely<WorkspaceSchema>, filter: { reviewId?: string; projectId?: string; status?: string; assigneePersonId?: string } = {}): Promise<Ticket[]> {
  let query = db.selectFrom('tickets').selectAll();
  if (filter.assigneePersonId) query = query.where('assignee_person_id', '=', filter.assigneePersonId);
  if (filter.reviewId) query = query.where('review_id', '=', filter.reviewId);
  if (filter.projectId) query = query.where('project_id', '=', filter.projectId);
  if (filter.status) query = query.where('status', '=', filter.status);
  return (await query.orderBy('created_at').orderBy('id').execute()).map(toTicket);
}

export async function updateTicketRow(
  db: Kysely<WorkspaceSchema>,
  ticketId: string,
  change: { title?: string; description?: string; status?: string; assigneeAgentId?: string | null; assigneePersonId?: string | null; dependsOn?: string[] },
): Promise<void> {
  await db
    .updateTable('tickets')
    .set({
      ...(change.title !== undefined ? { title: change.title } : {}),
      ...(change.description !== undefined ? { description: change.description } : {}),
      ...(change.status !== undefined ? { status: change.status } : {}),
      ...(change.assigneeAgentId !== undefined ? { assignee_agent_id: change.assigneeAgentId } : {}),
      ...(change.assigneePersonId !== undefined ? { assignee_person_id: change.assigneePersonId } : {}),
      ...(change.dependsOn !== undefined ? { depends_on: JSON.stringify(change.dependsOn) } : {}),
      updated_at: nowIso(),
    })
    .where('id', '=', ticketId)
    .execute();
}

export async function insertTicketComment(db: Kysely<WorkspaceSchema>, input: { ticketId: string; author: { kind: string; id: string }; body: string }): Promise<TicketComment> {
  const row: TicketCommentTable = { id: newId('tcm'), ticket_id: input.ticketId, author_kind: input.author.kind, author_id: input.author.id, body: input.body, created_at: nowIso() };
  await db.insertInto('ticket_comments').values(row).execute();
  return toTicketComment(row);
}

export async function listTicketComments(db: Kysely<WorkspaceSchema>, ticketId: string): Promise<TicketComment[]> {
  return (await db.selectFrom('ticket_comments').selectAll().where('ticket_id', '=', ticketId).orderBy('created_at').orderBy('id').execute()).map(toTicketComment);
}

/** Sets one ticket's status (a pipeline's ticketWork node moves it through inProgress → done/failed). */
export async function setTicketStatus(db: Kysely<WorkspaceSchema>, ticketId: string, status: string, updatedAt: string): Promise<void> {
  await db.updateTable('tickets').set({ status, updated_at: updatedAt }).where('id', '=', ticketId).execute();
}

/** Sets the status of the ticket of one plan step. */
export async function setPlanTicketStatus(db: Kysely<WorkspaceSchema>, planId: string, nodeKey: string, status: string, updatedAt: string): Promise<void> {
  await db.updateTable('tickets').set({ status, updated_at: updatedAt }).where('plan_id', '=', planId).where('node_key', '=', nodeKey).execute();
}

/** PLAN-8 resume: the tickets of the steps that run again are open again. */
export async function reopenPlanTickets(db: Kysely<WorkspaceSchema>, planId: string, nodeKeys: readonly string[], updatedAt: string): Promise<void> {
  if (nodeKeys.length === 0) return;
  await db.updateTable('tickets').set({ status: 'open', updated_at: updatedAt }).where('plan_id', '=', planId).where('node_key', 'in', [...nodeKeys]).execute();
}
