import type { Kysely } from 'kysely';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { TICKET_STATUSES, type Ticket, type TicketComment, type TicketWithBlockers } from '../../schemas/ticket.js';
import {
  findTicket,
  insertTicket,
  insertTicketComment,
  listTicketComments,
  listTickets,
  updateTicketRow,
  type NewTicketRow,
} from '../../store/repositories/ticket-repository.js';
import { agentExists } from '../../store/repositories/agent-repository.js';
import { findProject, listProjects } from '../../store/repositories/project-repository.js';
import type { Project } from '../../schemas/project.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventCause } from '../../schemas/events.js';
import type { EventBus } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { withBlockers } from './ticket-blockers.js';

export type CreateTicketInput = NewTicketRow;

/** Who may own a ticket besides agents (AG-4): a person holding a role in the workspace. */
export interface TicketPeople {
  isIn(workspaceId: string, personId: string): Promise<boolean>;
}

/** A change of owner in one request: an agent or a person, never both (the one named replaces the other). */
interface OwnerChange {
  assigneeAgentId?: string | null;
  assigneePersonId?: string | null;
}

function assertStatus(status: string | undefined): void {
  if (status !== undefined && !(TICKET_STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError('status', `status ${JSON.stringify(status)} must be one of ${TICKET_STATUSES.join(', ')}`);
  }
}

function assertText(value: string | undefined, field: string, max: number): void {
  if (value === undefined) return;
  if (value.trim() === '') throw new ValidationError(field, `${field} must not be empty`);
  if (value.length > max) throw new ValidationError(field, `${field} is longer than ${max} characters`);
}

/**
 * Creates one ticket in a workspace database (the seam other services use: orchestration, plans,
 * review). `dependsOn` must name existing tickets; the status defaults to `open`.
 */
export async function createTicket(db: Kysely<WorkspaceSchema>, input: CreateTicketInput): Promise<Ticket> {
  assertText(input.title, 'title', 300);
  if (input.description.length > 20_000) throw new ValidationError('description', 'description is longer than 20000 characters');
  assertStatus(input.status);
  for (const [index, dependency] of (input.dependsOn ?? []).entries()) {
    if (!(await findTicket(db, dependency))) throw new ValidationError(`dependsOn.${index}`, `dependsOn names no ticket ${JSON.stringify(dependency)}`);
  }
  if (input.assigneeAgentId) {
    if (!(await agentExists(db, input.assigneeAgentId))) throw new ValidationError('assigneeAgentId', `no agent ${JSON.stringify(input.assigneeAgentId)} in this workspace`);
  }
  return insertTicket(db, input);
}

/** Tickets as a service (CAP-3's ticket tools and the API): create, update, comment, list. */
export class TicketService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
    private readonly people: TicketPeople,
  ) {}

  /**
   * AG-4: a ticket has one owner, an agent or a person. Naming both is refused; naming one clears
   * the other, so a ticket handed from an agent to a person (or back) never keeps two owners. The
   * person must hold a role in this workspace.
   */
  private async ownerChange(workspaceId: string, change: OwnerChange): Promise<OwnerChange> {
    const { assigneeAgentId, assigneePersonId } = change;
    if (assigneeAgentId && assigneePersonId) throw new ValidationError('assigneePersonId', 'a ticket is owned by an agent or a person, not both: give assigneeAgentId or assigneePersonId');
    if (assigneePersonId) {
      if (!(await this.people.isIn(workspaceId, assigneePersonId))) throw new ValidationError('assigneePersonId', `no person ${JSON.stringify(assigneePersonId)} in this workspace`);
      return { assigneePersonId, assigneeAgentId: null };
    }
    if (assigneeAgentId) return { assigneeAgentId, assigneePersonId: null };
    return { ...(assigneeAgentId !== undefined ? { assigneeAgentId } : {}), ...(assigneePersonId !== undefined ? { assigneePersonId } : {}) };
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }

  async create(workspaceId: string, input: CreateTicketInput): Promise<Ticket> {
    const ticket = await createTicket(await this.db(workspaceId), { ...input, ...(await this.ownerChange(workspaceId, input)) });
    this.events.publish(workspaceId, 'ticket.created', ticket);
    return ticket;
  }

  async get(workspaceId: string, ticketId: string): Promise<Ticket> {
    const ticket = await findTicket(await this.db(workspaceId), ticketId);
    if (!ticket) throw new NotFoundError('ticket', ticketId, 'ticketId');
    return ticket;
  }

  /** Tickets as the board and the API read them: with what each still waits on. */
  async list(workspaceId: string, filter: { reviewId?: string; projectId?: string; status?: string; assigneePersonId?: string } = {}): Promise<TicketWithBlockers[]> {
    const db = await this.db(workspaceId);
    return withBlockers(db, await listTickets(db, filter));
  }

  /** One ticket with what it still waits on. */
  async view(workspaceId: string, ticketId: string): Promise<TicketWithBlockers> {
    const [ticket] = await withBlockers(await this.db(workspaceId), [await this.get(workspaceId, ticketId)]);
    return ticket!;
  }

  /** `cause`: the agent tool call that made the change, carried on the event (pipeline triggers ignore such events). */
  async update(workspaceId: string, ticketId: string, change: { title?: string; description?: string; status?: string } & OwnerChange, cause?: EventCause): Promise<Ticket> {
    const db = await this.db(workspaceId);
    await this.get(workspaceId, ticketId);
    assertText(change.title, 'title', 300);
    assertStatus(change.status);
    if (change.assigneeAgentId) {
      if (!(await agentExists(db, change.assigneeAgentId))) throw new ValidationError('assigneeAgentId', `no agent ${JSON.stringify(change.assigneeAgentId)} in this workspace`);
    }
    await updateTicketRow(db, ticketId, { ...change, ...(await this.ownerChange(workspaceId, change)) });
    const ticket = await this.get(workspaceId, ticketId);
    this.events.publish(workspaceId, 'ticket.updated', ticket, cause);
    return ticket;
  }

  async comment(workspaceId: string, ticketId: string, author: { kind: string; id: string }, body: string, cause?: EventCause): Promise<TicketComment> {
    await this.get(workspaceId, ticketId);
    assertText(body, 'body', 20_000);
    const comment = await insertTicketComment(await this.db(workspaceId), { ticketId, author, body });
    this.events.publish(workspaceId, 'ticket.commented', comment, cause);
    return comment;
  }

  /** The projects tickets are grouped by (the tickets board). */
  async projects(workspaceId: string): Promise<Project[]> {
    return listProjects(await this.db(workspaceId));
  }

  async project(workspaceId: string, projectId: string): Promise<Project> {
    const project = await findProject(await this.db(workspaceId), projectId);
    if (!project) throw new NotFoundError('project', projectId, 'projectId');
    return project;
  }

  async comments(workspaceId: string, ticketId: string): Promise<TicketComment[]> {
    await this.get(workspaceId, ticketId);
    return listTicketComments(await this.db(workspaceId), ticketId);
  }
}
