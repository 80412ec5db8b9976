import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { ConversationDestinations, ConversationMerge, ConversationPublication, EditPublicationBody, MergeBody, PublishBody, PublishDraft } from '../../schemas/publish.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { WorkspaceParams } from './workspace-routes.js';

const ConversationParams = WorkspaceParams.extend({ conversationId: z.string().min(1) });
const errors = { 400: ApiError, 403: ApiError, 404: ApiError, 409: ApiError };

/** CHG-2: where a conversation's work goes — a pull request on the forge, or a merge into a local branch. */
export function publishRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    const base = '/api/workspaces/:workspaceId/conversations/:conversationId';
    server.get(
      `${base}/destinations`,
      { config: { role: 'viewer' }, schema: { tags: ['conversations'], summary: "Where the conversation's work went: its pull request and its local merges", params: ConversationParams, response: { 200: ConversationDestinations, 404: ApiError } } },
      async (request) => app.publications.destinations(request.params.workspaceId, request.params.conversationId),
    );
    server.get(
      `${base}/publish/draft`,
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['conversations'],
          summary: 'The forge repository and the pull request title and body written from the conversation, to edit before publishing',
          params: ConversationParams,
          querystring: z.object({ base: z.string().min(1).max(255).optional() }),
          response: { 200: PublishDraft, ...errors },
        },
      },
      async (request) => app.publications.draft(request.params.workspaceId, request.params.conversationId, request.query.base),
    );
    server.post(
      `${base}/publish`,
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: "Push the conversation's branch to the forge and open or update its pull request — one approval for both (gitPush, prPublish); 202 while it waits for approval",
          params: ConversationParams,
          body: PublishBody,
          response: { 200: ConversationPublication, 202: ConversationPublication, ...errors },
        },
      },
      async (request, reply) => {
        const publication = await app.publications.publish(request.params.workspaceId, request.params.conversationId, request.body, operatorOf(request.principal));
        return reply.code(publication.status === 'awaitingApproval' ? 202 : 200).send(publication);
      },
    );
    server.patch(
      `${base}/publish`,
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: 'Edit the title or body of a publish waiting for its approval',
          params: ConversationParams,
          body: EditPublicationBody,
          response: { 200: ConversationPublication, ...errors },
        },
      },
      async (request) => app.publications.edit(request.params.workspaceId, request.params.conversationId, request.body),
    );
    server.post(
      `${base}/publish/refresh`,
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: "Read the pull request's state (open, closed, merged) and head from the forge again",
          params: ConversationParams,
          response: { 200: ConversationPublication, ...errors },
        },
      },
      async (request) => app.publications.refresh(request.params.workspaceId, request.params.conversationId),
    );
    server.post(
      `${base}/merge`,
      {
        config: { role: 'member' },
        schema: {
          tags: ['conversations'],
          summary: "Fast-forward or merge the conversation's branch into a branch of the user's repository; refused (409) on conflicts (files listed), a moved target or a dirty checked-out tree — never forced",
          params: ConversationParams,
          body: MergeBody,
          response: { 200: ConversationMerge, ...errors },
        },
      },
      async (request) => app.merges.merge(request.params.workspaceId, request.params.conversationId, request.body, operatorOf(request.principal)),
    );
  };
}
