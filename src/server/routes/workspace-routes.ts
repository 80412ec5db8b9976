import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { CreateWorkspaceBody, DeleteWorkspaceBody, RenameWorkspaceBody, Workspace } from '../../schemas/workspace.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';

export const WorkspaceParams = z.strictObject({ workspaceId: z.string().min(1) });

/** Workspaces (WS-1, WS-2): list, create (seeds in the background), get, rename, delete by name. */
export function workspaceRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    // TEAM-2: a person sees the workspaces they hold a role in; the owner sees all.
    server.get('/api/workspaces', { config: { role: 'signedIn' }, schema: { tags: ['workspaces'], response: { 200: z.object({ workspaces: z.array(Workspace) }) } } }, async (request) => ({
      workspaces: await app.people.visibleWorkspaces(operatorOf(request.principal), await app.workspaces.list()),
    }));

    server.post(
      '/api/workspaces',
      { config: { role: 'owner' }, schema: { tags: ['workspaces'], body: CreateWorkspaceBody, response: { 201: Workspace, 400: ApiError, 409: ApiError } } },
      async (request, reply) => {
        const workspace = await app.workspaces.create(request.body.name);
        void app.seeding.seedInBackground(workspace.id);
        return reply.code(201).send(workspace);
      },
    );

    server.get(
      '/api/workspaces/:workspaceId',
      { config: { role: 'viewer' }, schema: { tags: ['workspaces'], params: WorkspaceParams, response: { 200: Workspace, 404: ApiError } } },
      async (request) => app.workspaces.get(request.params.workspaceId),
    );

    server.patch(
      '/api/workspaces/:workspaceId',
      { config: { role: 'admin' }, schema: { tags: ['workspaces'], params: WorkspaceParams, body: RenameWorkspaceBody, response: { 200: Workspace, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request) => app.workspaces.rename(request.params.workspaceId, request.body.name),
    );

    server.delete(
      '/api/workspaces/:workspaceId',
      { config: { role: 'owner' }, schema: { tags: ['workspaces'], params: WorkspaceParams, body: DeleteWorkspaceBody, response: { 204: z.null(), 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request, reply) => {
        await app.workspaces.delete(request.params.workspaceId, request.body.confirmName);
        return reply.code(204).send(null);
      },
    );

    server.post(
      '/api/workspaces/:workspaceId/seed',
      { config: { role: 'admin' }, schema: { tags: ['workspaces'], params: WorkspaceParams, response: { 200: Workspace, 404: ApiError } } },
      async (request) => {
        await app.seeding.seed(request.params.workspaceId);
        return app.workspaces.get(request.params.workspaceId);
      },
    );
  };
}
