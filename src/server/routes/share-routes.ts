import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { ConversationShare, CreatedConversationShare, SharedConversation } from '../../schemas/conversation-share.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { WorkspaceParams } from './workspace-routes.js';

const ConversationParams = WorkspaceParams.extend({ conversationId: z.string().min(1) });

/**
 * RLY-3: read-only share links. The operator creates, lists and revokes them; `GET /api/share/:token`
 * is public (the token is the credential) and answers only a title and message text.
 */
export function shareRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.post(
      '/api/workspaces/:workspaceId/conversations/:conversationId/shares',
      { config: { role: 'member' }, schema: { tags: ['conversations'], summary: 'Create a read-only share link (RLY-3); the token is shown once', params: ConversationParams, response: { 201: CreatedConversationShare, 404: ApiError } } },
      async (request, reply) => {
        const operator = operatorOf(request.principal);
        const created = await app.shares.create(request.params.workspaceId, request.params.conversationId, operator.operatorId);
        return reply.code(201).header('cache-control', 'no-store').send(created);
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/shares',
      { config: { role: 'viewer' }, schema: { tags: ['conversations'], summary: "A conversation's share links, revoked ones included (never their tokens)", params: ConversationParams, response: { 200: z.object({ shares: z.array(ConversationShare) }), 404: ApiError } } },
      async (request) => ({ shares: await app.shares.list(request.params.workspaceId, request.params.conversationId) }),
    );
    server.delete(
      '/api/workspaces/:workspaceId/conversations/:conversationId/shares/:shareId',
      { config: { role: 'member' }, schema: { tags: ['conversations'], summary: 'Revoke a share link: it answers 404 from now on', params: ConversationParams.extend({ shareId: z.string().min(1) }), response: { 200: ConversationShare, 404: ApiError } } },
      async (request) => app.shares.revoke(request.params.workspaceId, request.params.conversationId, request.params.shareId),
    );
    server.get(
      '/api/share/:token',
      {
        // Public by necessity: the token in the link is the credential (256 random bits, stored hashed).
        config: { access: 'public' },
        schema: { tags: ['conversations'], summary: 'A shared conversation, read-only: title and message text only', params: z.object({ token: z.string().max(200) }), response: { 200: SharedConversation, 404: ApiError } },
      },
      async (request, reply) => {
        const shared = await app.shares.open(request.params.token);
        return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send(shared);
      },
    );
  };
}
