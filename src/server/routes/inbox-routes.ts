import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '../../schemas/common.js';
import { Inbox } from '../../schemas/inbox.js';
import type { ControlCenter } from '../../services/control-center.js';
import { InboxService } from '../../services/inbox/inbox-service.js';
import { WorkspaceParams } from './workspace-routes.js';

/**
 * `GET …/inbox`: everything waiting for a person, of every kind, in one read — so the sidebar's badge
 * and the Inbox page count the same list (computing it in the web from six queries let a kind be
 * forgotten in one place and not the other). Operators only (SEC-1): it carries budget alerts and
 * orchestration proposals, which run tokens never read; viewers see it, members and admins decide.
 */
export function inboxRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  // Questions as every process on the database sees them: the run that asks may execute in another (NF-SCALE).
  const inbox = new InboxService({
    workspaces: app.workspaces,
    approvals: app.approvals,
    questions: { list: (workspaceId) => app.liveViews.questions(workspaceId) },
    plans: app.plans,
    orchestrations: app.orchestrations,
    budgets: app.budgets,
  });
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/inbox',
      {
        config: { access: 'operator', role: 'viewer' },
        schema: {
          tags: ['inbox'],
          summary: 'Every decision waiting for a person (approvals, publications, questions, plans, orchestrations, budget alerts), oldest first, and the conversations where runs are running',
          params: WorkspaceParams,
          response: { 200: Inbox, 404: ApiError },
        },
      },
      async (request) => inbox.read(request.params.workspaceId),
    );
  };
}
