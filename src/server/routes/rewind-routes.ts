import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { ConversationRewind, RewindBody } from '../../schemas/rewind.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { WorkspaceParams } from './workspace-routes.js';

const ConversationParams = WorkspaceParams.extend({ conversationId: z.string().min(1) });

/** CTX-3: rewinding a conversation to before a turn, listing its rewinds, restoring one. */
export function rewindRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/rewinds',
      { config: { role: 'viewer' }, schema: { tags: ['conversations'], params: ConversationParams, response: { 200: z.object({ rewinds: z.array(ConversationRewind) }), 404: ApiError } } },
      async (request) => ({ rewinds: await app.rewinds.list(request.params.workspaceId, request.params.conversationId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/conversations/:conversationId/rewind',
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: 'Rewind the conversation to before a message: the checkout returns to that turn’s checkpoint and later messages are archived (409 while a run is active)',
          params: ConversationParams,
          body: RewindBody,
          response: { 200: ConversationRewind, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request) => app.rewinds.rewind(request.params.workspaceId, request.params.conversationId, request.body.messageId, operatorOf(request.principal).operatorId),
    );
    server.post(
      '/api/workspaces/:workspaceId/conversations/:conversationId/rewinds/:rewindId/restore',
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: 'Undo a rewind: its messages return to the history and the checkout to where it was before the rewind',
          params: ConversationParams.extend({ rewindId: z.string().min(1) }),
          response: { 200: ConversationRewind, 404: ApiError, 409: ApiError },
        },
      },
      async (request) => app.rewinds.restore(request.params.workspaceId, request.params.conversationId, request.params.rewindId),
    );
  };
}
