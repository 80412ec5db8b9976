import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { Plan, RejectPlanBody } from '../../schemas/plan.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { actingPerson } from '../acting-person.js';
import { WorkspaceParams } from './workspace-routes.js';

const PlanParams = WorkspaceParams.extend({ planId: z.string().min(1) });

/** Plans (PLAN-3, PLAN-7, PLAN-8): rows, Plan Studio data, approve/reject (operators only), cancel, resume. */
export function planRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/plans',
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['plans'],
          params: WorkspaceParams,
          querystring: z.strictObject({ conversationId: z.string().optional() }),
          response: { 200: z.object({ plans: z.array(Plan) }), 404: ApiError },
        },
      },
      async (request) => ({ plans: await app.plans.list(request.params.workspaceId, request.query.conversationId) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/plans/:planId',
      { config: { role: 'viewer' }, schema: { tags: ['plans'], params: PlanParams, response: { 200: Plan, 404: ApiError } } },
      async (request) => app.plans.get(request.params.workspaceId, request.params.planId),
    );
    server.post(
      '/api/workspaces/:workspaceId/plans/:planId/approve',
      { config: { role: 'member' }, schema: { tags: ['plans'], params: PlanParams, response: { 200: Plan, 404: ApiError, 409: ApiError } } },
      async (request) => app.plans.approve(request.params.workspaceId, request.params.planId, operatorOf(request.principal), await actingPerson(app, request)),
    );
    server.post(
      '/api/workspaces/:workspaceId/plans/:planId/reject',
      { config: { role: 'member' }, schema: { tags: ['plans'], params: PlanParams, body: RejectPlanBody.nullish(), response: { 200: Plan, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request) => app.plans.reject(request.params.workspaceId, request.params.planId, operatorOf(request.principal), request.body?.reason, await actingPerson(app, request)),
    );
    server.post(
      '/api/workspaces/:workspaceId/plans/:planId/cancel',
      { config: { role: 'member' }, schema: { tags: ['plans'], params: PlanParams, response: { 200: Plan, 404: ApiError, 409: ApiError } } },
      async (request) => app.plans.cancel(request.params.workspaceId, request.params.planId),
    );
    server.post(
      '/api/workspaces/:workspaceId/plans/:planId/resume',
      { config: { role: 'member' }, schema: { tags: ['plans'], params: PlanParams, response: { 200: Plan, 404: ApiError, 409: ApiError } } },
      async (request) => app.plans.resume(request.params.workspaceId, request.params.planId),
    );
    server.post(
      '/api/workspaces/:workspaceId/plans/:planId/nodes/:key/cancel',
      { config: { role: 'member' }, schema: { tags: ['plans'], params: PlanParams.extend({ key: z.string().min(1) }), response: { 200: Plan, 404: ApiError, 409: ApiError } } },
      async (request) => app.plans.cancelNode(request.params.workspaceId, request.params.planId, request.params.key),
    );
  };
}
