import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { ApproveOrchestrationBody, DecideOrchestrationBody, Orchestration, OrchestrationBudgetBody, OrchestrationRevisionDiff } from '../../schemas/orchestration.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { actingPerson } from '../acting-person.js';
import { WorkspaceParams } from './workspace-routes.js';

const OrchestrationParams = WorkspaceParams.extend({ orchestrationId: z.string().min(1).max(100) });
const operatorOnly = { access: 'operator' as const };

/**
 * Orchestrations (ORC-1..4). Every route is operator-only (SEC-1): an agent proposes through its
 * orchestrate-mode verb and never reaches these, so it can never approve its own proposal (ORC-2).
 */
export function orchestrationRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/orchestrations',
      {
        config: { ...operatorOnly, role: 'viewer' },
        schema: {
          tags: ['orchestrations'],
          params: WorkspaceParams,
          querystring: z.strictObject({ conversationId: z.string().max(100).optional() }),
          response: { 200: z.object({ orchestrations: z.array(Orchestration) }), 404: ApiError },
        },
      },
      async (request) => ({ orchestrations: await app.orchestrations.list(request.params.workspaceId, request.query.conversationId ? { conversationId: request.query.conversationId } : {}) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/orchestrations/:orchestrationId',
      { config: { ...operatorOnly, role: 'viewer' }, schema: { tags: ['orchestrations'], params: OrchestrationParams, response: { 200: Orchestration, 404: ApiError } } },
      async (request) => app.orchestrations.get(request.params.workspaceId, request.params.orchestrationId),
    );
    server.get(
      '/api/workspaces/:workspaceId/orchestrations/:orchestrationId/diff',
      {
        config: { ...operatorOnly, role: 'viewer' },
        schema: {
          tags: ['orchestrations'],
          params: OrchestrationParams,
          querystring: z.strictObject({ to: z.coerce.number().int().min(1), from: z.coerce.number().int().min(1).optional() }),
          response: { 200: OrchestrationRevisionDiff, 400: ApiError, 404: ApiError },
        },
      },
      async (request) => app.orchestrations.diff(request.params.workspaceId, request.params.orchestrationId, request.query.to, request.query.from),
    );
    server.post(
      '/api/workspaces/:workspaceId/orchestrations/:orchestrationId/approve',
      {
        config: { ...operatorOnly, role: 'member' },
        schema: { tags: ['orchestrations'], params: OrchestrationParams, body: ApproveOrchestrationBody, response: { 200: Orchestration, 400: ApiError, 404: ApiError, 409: ApiError } },
      },
      async (request) =>
        app.orchestrations.approve(request.params.workspaceId, request.params.orchestrationId, operatorOf(request.principal), {
          revision: request.body.revision,
          subTicketKeys: request.body.subTicketKeys,
        }, await actingPerson(app, request)),
    );
    server.post(
      '/api/workspaces/:workspaceId/orchestrations/:orchestrationId/reject',
      {
        config: { ...operatorOnly, role: 'member' },
        schema: { tags: ['orchestrations'], params: OrchestrationParams, body: DecideOrchestrationBody.nullish(), response: { 200: Orchestration, 400: ApiError, 404: ApiError, 409: ApiError } },
      },
      async (request) => app.orchestrations.reject(request.params.workspaceId, request.params.orchestrationId, operatorOf(request.principal), request.body?.reason, await actingPerson(app, request)),
    );
    server.post(
      '/api/workspaces/:workspaceId/orchestrations/:orchestrationId/cancel',
      {
        config: { ...operatorOnly, role: 'member' },
        schema: { tags: ['orchestrations'], params: OrchestrationParams, body: DecideOrchestrationBody.nullish(), response: { 200: Orchestration, 400: ApiError, 404: ApiError, 409: ApiError } },
      },
      async (request) => app.orchestrations.cancel(request.params.workspaceId, request.params.orchestrationId, operatorOf(request.principal), request.body?.reason, await actingPerson(app, request)),
    );
    server.post(
      '/api/workspaces/:workspaceId/orchestrations/:orchestrationId/budget',
      {
        config: { ...operatorOnly, role: 'admin' },
        schema: { tags: ['orchestrations'], params: OrchestrationParams, body: OrchestrationBudgetBody, response: { 200: Orchestration, 400: ApiError, 404: ApiError, 409: ApiError } },
      },
      async (request) => app.orchestrations.setBudget(request.params.workspaceId, request.params.orchestrationId, request.body.maxUsd),
    );
  };
}
