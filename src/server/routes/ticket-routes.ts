import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, DisplayName } from '../../schemas/common.js';
import { Project } from '../../schemas/project.js';
import { TICKET_STATUSES, Ticket, TicketComment, TicketWithBlockers } from '../../schemas/ticket.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { WorkspaceParams } from './workspace-routes.js';

const TicketParams = WorkspaceParams.extend({ ticketId: z.string().min(1) });
const OPERATOR = { access: 'operator' } as const;
/** AG-4: the person who owns a ticket (a person id of this workspace); null takes the ticket from them. */
const AssigneePersonId = z.string().min(1).max(200).nullable().optional().describe('The person who owns the ticket (replaces an agent owner); null unassigns');

/** Tickets (CAP-3's ticket tools, as people see and change them). */
export function ticketRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/tickets',
      {
        config: { ...OPERATOR, role: 'viewer' },
        schema: {
          tags: ['tickets'],
          params: WorkspaceParams,
          querystring: z.strictObject({
            reviewId: z.string().optional(),
            projectId: z.string().optional(),
            status: z.enum(TICKET_STATUSES).optional(),
            assigneePersonId: z.string().min(1).max(200).optional().describe('Only tickets this person owns; "me" for the caller'),
          }),
          response: { 200: z.object({ tickets: z.array(TicketWithBlockers) }), 400: ApiError, 404: ApiError },
        },
      },
      async (request) => {
        const { assigneePersonId, ...filter } = request.query;
        // "me" is the calling person, so the board's "Mine" needs no id of its own.
        const owner = assigneePersonId === 'me' ? operatorOf(request.principal).operatorId : assigneePersonId;
        return { tickets: await app.tickets.list(request.params.workspaceId, { ...filter, ...(owner ? { assigneePersonId: owner } : {}) }) };
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/tickets',
      {
        config: { ...OPERATOR, role: 'member' },
        schema: {
          tags: ['tickets'],
          params: WorkspaceParams,
          body: z.strictObject({
            title: DisplayName(300),
            description: z.string().max(20_000).default(''),
            dependsOn: z.array(z.string()).max(100).optional(),
            assigneeAgentId: z.string().nullable().optional(),
            assigneePersonId: AssigneePersonId,
            projectId: z.string().max(200).nullable().optional(),
            reviewId: z.string().nullable().optional(),
          }),
          response: { 201: Ticket, 400: ApiError, 404: ApiError },
        },
      },
      async (request, reply) => {
        const { workspaceId } = request.params;
        if (request.body.reviewId) await app.reviews.get(workspaceId, request.body.reviewId);
        const ticket = await app.tickets.create(workspaceId, { ...request.body, createdBy: { kind: 'operator', id: operatorOf(request.principal).operatorId } });
        return reply.code(201).send(ticket);
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/tickets/:ticketId',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['tickets'], params: TicketParams, response: { 200: z.object({ ticket: TicketWithBlockers, comments: z.array(TicketComment) }), 404: ApiError } } },
      async (request) => {
        const { workspaceId, ticketId } = request.params;
        return { ticket: await app.tickets.view(workspaceId, ticketId), comments: await app.tickets.comments(workspaceId, ticketId) };
      },
    );
    server.patch(
      '/api/workspaces/:workspaceId/tickets/:ticketId',
      {
        config: { ...OPERATOR, role: 'member' },
        schema: {
          tags: ['tickets'],
          params: TicketParams,
          body: z.strictObject({ title: DisplayName(300).optional(), description: z.string().max(20_000).optional(), status: z.enum(TICKET_STATUSES).optional(), assigneeAgentId: z.string().nullable().optional(), assigneePersonId: AssigneePersonId }),
          response: { 200: Ticket, 400: ApiError, 404: ApiError },
        },
      },
      async (request) => app.tickets.update(request.params.workspaceId, request.params.ticketId, request.body),
    );
    server.get(
      '/api/workspaces/:workspaceId/projects',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['tickets'], params: WorkspaceParams, response: { 200: z.object({ projects: z.array(Project) }), 404: ApiError } } },
      async (request) => ({ projects: await app.tickets.projects(request.params.workspaceId) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/projects/:projectId',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['tickets'], params: WorkspaceParams.extend({ projectId: z.string().min(1) }), response: { 200: Project, 404: ApiError } } },
      async (request) => app.tickets.project(request.params.workspaceId, request.params.projectId),
    );
    server.post(
      '/api/workspaces/:workspaceId/tickets/:ticketId/comments',
      { config: { ...OPERATOR, role: 'member' }, schema: { tags: ['tickets'], params: TicketParams, body: z.strictObject({ body: z.string().min(1).max(20_000) }), response: { 201: TicketComment, 400: ApiError, 404: ApiError } } },
      async (request, reply) =>
        reply.code(201).send(await app.tickets.comment(request.params.workspaceId, request.params.ticketId, { kind: 'operator', id: operatorOf(request.principal).operatorId }, request.body.body)),
    );
  };
}
