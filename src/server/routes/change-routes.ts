import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ChangeDiff, ChangeDiffQuery, ChangesQuery, ChangesReview, ChangesReviewBody, ConversationChanges } from '../../schemas/changes.js';
import { ApiError } from '../../schemas/common.js';
import type { ControlCenter } from '../../services/control-center.js';
import { WorkspaceParams } from './workspace-routes.js';

const ConversationParams = WorkspaceParams.extend({ conversationId: z.string().min(1) });

/** CHG-1: a conversation's changes against its base, per turn and in total, a file's diff, and a review of them. */
export function changeRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/changes',
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['conversations'],
          summary: 'Files the conversation changed against its base (uncommitted work included), in total or for one turn; one page of files, totals for all',
          params: ConversationParams,
          querystring: ChangesQuery,
          response: { 200: ConversationChanges, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request) => app.changes.changes(request.params.workspaceId, request.params.conversationId, request.query),
    );
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/changes/diff',
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['conversations'],
          summary: 'The unified diff between the two objects a changes listing gave (from, to), of one file or all; cut at 256 KiB or 4,000 lines, and says so',
          params: ConversationParams,
          querystring: ChangeDiffQuery,
          response: { 200: ChangeDiff, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request) => app.changes.diff(request.params.workspaceId, request.params.conversationId, request.query),
    );
    server.post(
      '/api/workspaces/:workspaceId/conversations/:conversationId/changes/review',
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: 'Open a review of the conversation’s branch against its base (a new round when one is open); uncommitted work is counted, not reviewed',
          params: ConversationParams,
          body: ChangesReviewBody.nullish(),
          response: { 200: ChangesReview, 201: ChangesReview, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request, reply) => {
        const opened = await app.changes.openReview(request.params.workspaceId, request.params.conversationId, request.body?.reviewers);
        return reply.code(opened.created ? 201 : 200).send(opened);
      },
    );
  };
}
