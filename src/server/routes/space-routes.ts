import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { BranchConversationBody, Conversation, CreateConversationBody, CreateSpaceBody, Space, UpdateConversationBody, UpdateSpaceBody } from '../../schemas/space.js';
import type { ControlCenter } from '../../services/control-center.js';
import { WorkspaceParams } from './workspace-routes.js';

const SpaceParams = WorkspaceParams.extend({ spaceId: z.string().min(1) });
const ConversationParams = WorkspaceParams.extend({ conversationId: z.string().min(1) });

/** Spaces and conversations (MODE-1..6): mode and autonomy live on the space. */
export function spaceRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/spaces',
      { config: { role: 'viewer' }, schema: { tags: ['spaces'], params: WorkspaceParams, response: { 200: z.object({ spaces: z.array(Space) }), 404: ApiError } } },
      async (request) => ({ spaces: await app.spaces.list(request.params.workspaceId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/spaces',
      { config: { role: 'admin' }, schema: { tags: ['spaces'], params: WorkspaceParams, body: CreateSpaceBody, response: { 201: Space, 400: ApiError, 404: ApiError } } },
      async (request, reply) => reply.code(201).send(await app.spaces.create(request.params.workspaceId, request.body)),
    );
    server.get(
      '/api/workspaces/:workspaceId/spaces/:spaceId',
      { config: { role: 'viewer' }, schema: { tags: ['spaces'], params: SpaceParams, response: { 200: Space, 404: ApiError } } },
      async (request) => app.spaces.get(request.params.workspaceId, request.params.spaceId),
    );
    server.patch(
      '/api/workspaces/:workspaceId/spaces/:spaceId',
      { config: { role: 'admin' }, schema: { tags: ['spaces'], params: SpaceParams, body: UpdateSpaceBody, response: { 200: Space, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request) =>
        app.spaces.update(request.params.workspaceId, request.params.spaceId, request.body, {
          cause: request.body.picker !== undefined ? { kind: 'picker', picker: request.body.picker } : { kind: 'spaceSettings' },
          operatorId: request.principal?.kind === 'operator' ? request.principal.operatorId : null,
        }),
    );
    server.get(
      '/api/workspaces/:workspaceId/spaces/:spaceId/conversations',
      { config: { role: 'viewer' }, schema: { tags: ['conversations'], params: SpaceParams, response: { 200: z.object({ conversations: z.array(Conversation) }), 404: ApiError } } },
      async (request) => ({ conversations: await app.spaces.listConversations(request.params.workspaceId, request.params.spaceId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/spaces/:spaceId/conversations',
      { config: { role: 'member' }, schema: { tags: ['conversations'], params: SpaceParams, body: CreateConversationBody.nullish(), response: { 201: Conversation, 400: ApiError, 404: ApiError } } },
      async (request, reply) =>
        reply.code(201).send(await app.spaces.createConversation(request.params.workspaceId, request.params.spaceId, request.body ?? {})),
    );
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId',
      { config: { role: 'viewer' }, schema: { tags: ['conversations'], params: ConversationParams, response: { 200: Conversation, 404: ApiError } } },
      async (request) => app.spaces.getConversation(request.params.workspaceId, request.params.conversationId),
    );
    server.patch(
      '/api/workspaces/:workspaceId/conversations/:conversationId',
      {
        config: { access: 'operator', role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: 'Rename a conversation, or archive it (hidden from the sidebar, never deleted) or bring it back',
          params: ConversationParams,
          body: UpdateConversationBody,
          response: { 200: Conversation, 400: ApiError, 404: ApiError },
        },
      },
      async (request) => app.spaces.updateConversation(request.params.workspaceId, request.params.conversationId, request.body),
    );
    server.post(
      '/api/workspaces/:workspaceId/conversations/:conversationId/branches',
      { config: { role: 'member' }, schema: { tags: ['conversations'], params: ConversationParams, body: BranchConversationBody.nullish(), response: { 201: Conversation, 400: ApiError, 404: ApiError } } },
      async (request, reply) =>
        reply.code(201).send(await app.spaces.branchConversation(request.params.workspaceId, request.params.conversationId, request.body ?? {})),
    );
  };
}
