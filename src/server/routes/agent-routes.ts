import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Agent, CreateAgentBody, UpdateAgentBody } from '../../schemas/agent.js';
import { ApiError } from '../../schemas/common.js';
import { Run } from '../../schemas/run.js';
import type { ControlCenter } from '../../services/control-center.js';
import { actingPerson } from '../acting-person.js';
import { WorkspaceParams } from './workspace-routes.js';

const AgentParams = WorkspaceParams.extend({ agentId: z.string().min(1) });

/** Agents (AG-1..3): CRUD with every field validated; JSON carries the derived `state`. */
export function agentRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/agents',
      { config: { role: 'viewer' }, schema: { tags: ['agents'], params: WorkspaceParams, response: { 200: z.object({ agents: z.array(Agent) }), 404: ApiError } } },
      async (request) => ({ agents: await app.agents.list(request.params.workspaceId) }),
    );

    server.post(
      '/api/workspaces/:workspaceId/agents',
      { config: { role: 'admin' }, schema: { tags: ['agents'], params: WorkspaceParams, body: CreateAgentBody.nullish(), response: { 201: Agent, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request, reply) => reply.code(201).send(await app.agents.create(request.params.workspaceId, request.body ?? {}, await actingPerson(app, request))),
    );

    server.get(
      '/api/workspaces/:workspaceId/agents/:agentId',
      { config: { role: 'viewer' }, schema: { tags: ['agents'], params: AgentParams, response: { 200: Agent, 404: ApiError } } },
      async (request) => app.agents.get(request.params.workspaceId, request.params.agentId),
    );

    server.patch(
      '/api/workspaces/:workspaceId/agents/:agentId',
      { config: { role: 'admin' }, schema: { tags: ['agents'], params: AgentParams, body: UpdateAgentBody, response: { 200: Agent, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request) => app.agents.update(request.params.workspaceId, request.params.agentId, request.body, await actingPerson(app, request)),
    );

    server.delete(
      '/api/workspaces/:workspaceId/agents/:agentId',
      { config: { role: 'admin' }, schema: { tags: ['agents'], params: AgentParams, response: { 204: z.null(), 404: ApiError, 409: ApiError } } },
      async (request, reply) => {
        await app.agents.delete(request.params.workspaceId, request.params.agentId, await actingPerson(app, request));
        return reply.code(204).send(null);
      },
    );

    server.get(
      '/api/workspaces/:workspaceId/agents/:agentId/runs',
      { config: { role: 'viewer' }, schema: { tags: ['agents'], params: AgentParams, response: { 200: z.object({ runs: z.array(Run) }), 404: ApiError } } },
      async (request) => {
        const agent = await app.agents.get(request.params.workspaceId, request.params.agentId);
        const handle = await app.workspaces.handle(request.params.workspaceId);
        return { runs: await app.runs.listForAgent(handle.database.db, agent.id) };
      },
    );
  };
}
