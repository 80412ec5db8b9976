import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { LinkRepositoryBody, SpaceRepositoryLink } from '../../schemas/skill.js';
import type { ControlCenter } from '../../services/control-center.js';
import { WorkspaceParams } from './workspace-routes.js';

/**
 * The repositories a space links besides its own (SKL-4): list, link, unlink. Each is checked out
 * under `repos/<name>/` of a conversation's worktree on its next run. Operator only: an agent cannot
 * widen what it is given (SEC-1).
 */
export function spaceRepositoryRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    // TEAM-2: everyone in the workspace reads these; changing them is an admin's.
    const read = { access: 'operator', role: 'viewer' } as const;
    const config = { access: 'operator', role: 'admin' } as const;
    const base = '/api/workspaces/:workspaceId/spaces/:spaceId/repositories';
    const tags = ['spaces'];
    const params = WorkspaceParams.extend({ spaceId: z.string().min(1) });

    server.get(base, { config: read, schema: { tags, params, response: { 200: z.object({ repositories: z.array(SpaceRepositoryLink) }), 404: ApiError } } }, async (request) => ({
      repositories: await app.spaceRepositories.list(request.params.workspaceId, request.params.spaceId),
    }));
    server.post(
      base,
      { config, schema: { tags, params, body: LinkRepositoryBody, response: { 201: SpaceRepositoryLink, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request, reply) => reply.code(201).send(await app.spaceRepositories.link(request.params.workspaceId, request.params.spaceId, request.body)),
    );
    server.delete(
      `${base}/:name`,
      { config, schema: { tags, params: params.extend({ name: z.string().min(1).max(64) }), response: { 204: z.null(), 404: ApiError, 409: ApiError } } },
      async (request, reply) => {
        await app.spaceRepositories.unlink(request.params.workspaceId, request.params.spaceId, request.params.name);
        return reply.code(204).send(null);
      },
    );
  };
}
