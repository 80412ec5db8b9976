import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { Message, PostMessageBody, PostMessageResponse } from '../../schemas/message.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { WorkspaceParams } from './workspace-routes.js';
import { processLatencies, secondsSince } from '../../services/operations/process-latencies.js';

const ConversationParams = WorkspaceParams.extend({ conversationId: z.string().min(1) });

/** Messages of a conversation; posting one starts a turn (HAR-1, MODE-2, MODE-4). */
export function conversationRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/messages',
      { config: { role: 'viewer' }, schema: { tags: ['conversations'], params: ConversationParams, response: { 200: z.object({ messages: z.array(Message) }), 404: ApiError } } },
      async (request) => {
        await app.spaces.getConversation(request.params.workspaceId, request.params.conversationId);
        return { messages: await app.messages.list(request.params.workspaceId, request.params.conversationId) };
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/conversations/:conversationId/messages',
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          params: ConversationParams,
          body: PostMessageBody,
          response: { 202: PostMessageResponse, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request, reply) => {
        const operator = operatorOf(request.principal);
        const startedAt = performance.now();
        // Posting also names an untitled conversation after its first message (TurnService.post).
        // NF-SCALE, bursts: run starts yield to acceptance while this turn is being accepted.
        const result = await app.executor.startQueue.whileAccepting(() => app.turns.post(request.params.workspaceId, request.params.conversationId, request.body, operator.operatorId));
        processLatencies.turnAccept.observe(secondsSince(startedAt));
        return reply.code(202).send(result);
      },
    );
  };
}
