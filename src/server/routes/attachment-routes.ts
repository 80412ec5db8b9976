import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import type { ControlCenter } from '../../services/control-center.js';
import { WorkspaceParams } from './workspace-routes.js';

/**
 * `GET …/conversations/:conversationId/attachments/:attachmentId` (TOOL-3): a file an operator
 * attached to a message, for the conversation's history (the session cookie authenticates the
 * `<img>`). Only through the conversation it belongs to; served with the type its bytes were judged
 * to be, `nosniff` and a CSP under which nothing in it can run.
 */
export function attachmentRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/attachments/:attachmentId',
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['conversations'],
          summary: 'A file attached to a message of the conversation',
          params: WorkspaceParams.extend({ conversationId: z.string().min(1), attachmentId: z.string().min(1) }),
          response: { 200: z.unknown().describe('the bytes (image/png, image/jpeg, image/webp, image/gif or text/plain)'), 404: ApiError },
        },
      },
      async (request, reply) => {
        const { workspaceId, conversationId, attachmentId } = request.params;
        const attachment = await app.attachments.read(workspaceId, conversationId, attachmentId);
        const contentType = attachment.kind === 'text' ? 'text/plain; charset=utf-8' : attachment.mediaType;
        return reply
          .header('content-type', contentType)
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(attachment.name)}`)
          .header('cache-control', 'private, max-age=31536000, immutable')
          .send(attachment.content);
      },
    );
  };
}
