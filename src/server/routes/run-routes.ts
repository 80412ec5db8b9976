import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NotFoundError } from '../../errors/index.js';
import { nowIso } from '../../ids.js';
import { Approval, ApprovalStatus, DecideApprovalBody } from '../../schemas/approval.js';
import { ApiError } from '../../schemas/common.js';
import { OperatorHereBody, OperatorLeaveBody, OperatorPresenceList, Presence } from '../../schemas/presence.js';
import { AnswerQuestionBody, Question } from '../../schemas/question.js';
import { ConversationRunTree, Run, RunControlResponse, RunState, RunControls, RunDetail, RunSubtree, SteerRunBody } from '../../schemas/run.js';
import { UpdateWorkspaceSettingsBody, WorkspaceSettingsView } from '../../schemas/settings.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { actingPerson } from '../acting-person.js';
import { RunLog } from '../../services/runs/run-log.js';
import { conversationRunTree, runSubtree } from '../../services/runs/run-tree.js';
import { findRun, listRuns } from '../../store/repositories/run-repository.js';
import { WorkspaceParams } from './workspace-routes.js';

const RunParams = WorkspaceParams.extend({ runId: z.string().min(1) });
/** Run logs and run control (HAR-5, HAR-6), approvals (POL-7), questions (PLAN-4), presence (AG-4), settings. */
export function runRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/runs',
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['runs'],
          params: WorkspaceParams,
          querystring: z.strictObject({
            conversationId: z.string().optional(),
            agentId: z.string().optional(),
            spaceId: z.string().optional(),
            state: RunState.optional(),
            /** `true`: only turns (runs without a parent); subagent and delegate runs are in the run tree. */
            topLevel: z.enum(['true', 'false']).optional(),
            limit: z.coerce.number().int().min(1).max(500).optional(),
          }),
          response: { 200: z.object({ runs: z.array(Run) }), 404: ApiError },
        },
      },
      async (request) => {
        const { database } = await app.workspaces.handle(request.params.workspaceId);
        const { conversationId, agentId, spaceId, state, topLevel, limit } = request.query;
        return { runs: await listRuns(database.db, { conversationId, agentId, spaceId, state, topLevel: topLevel === 'true', limit: limit ?? 100 }) };
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/run-tree',
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['runs'],
          params: WorkspaceParams.extend({ conversationId: z.string().min(1) }),
          response: { 200: ConversationRunTree, 404: ApiError },
        },
      },
      async (request) => {
        await app.spaces.getConversation(request.params.workspaceId, request.params.conversationId);
        const { database } = await app.workspaces.handle(request.params.workspaceId);
        return { conversationId: request.params.conversationId, runs: await conversationRunTree(database.db, request.params.conversationId) };
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/runs/:runId/tree',
      { config: { role: 'viewer' }, schema: { tags: ['runs'], params: RunParams, response: { 200: RunSubtree, 404: ApiError } } },
      async (request) => {
        const { database } = await app.workspaces.handle(request.params.workspaceId);
        const run = await runSubtree(database.db, request.params.runId);
        if (!run) throw new NotFoundError('run', request.params.runId, 'runId');
        return { run };
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/runs/:runId',
      { config: { role: 'viewer' }, schema: { tags: ['runs'], params: RunParams, response: { 200: RunDetail, 404: ApiError } } },
      async (request) => {
        const { database } = await app.workspaces.handle(request.params.workspaceId);
        const run = await findRun(database.db, request.params.runId);
        if (!run) throw new NotFoundError('run', request.params.runId, 'runId');
        return {
          run,
          toolCalls: await RunLog.toolCalls(database, run.id),
          events: await RunLog.events(database, run.id),
        };
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/runs/:runId/controls',
      { config: { access: 'operator', role: 'viewer' }, schema: { tags: ['runs'], params: RunParams, response: { 200: RunControls, 404: ApiError } } },
      async (request) => app.liveViews.runControls(request.params.workspaceId, request.params.runId),
    );
    for (const action of ['cancel', 'pause', 'resume'] as const) {
      server.post(
        `/api/workspaces/:workspaceId/runs/:runId/${action}`,
        { config: { role: 'member' }, schema: { tags: ['runs'], params: RunParams, response: { 200: RunControlResponse, 404: ApiError, 409: ApiError } } },
        async (request) => {
          await app.runControl(request.params.workspaceId, request.params.runId, action);
          return { ok: true as const };
        },
      );
    }
    server.post(
      '/api/workspaces/:workspaceId/runs/:runId/steer',
      {
        config: { role: 'member' },
        schema: {
          tags: ['runs'],
          params: RunParams,
          body: SteerRunBody,
          response: { 200: RunControlResponse, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request) => {
        await app.steerRun(request.params.workspaceId, request.params.runId, request.body.text);
        return { ok: true as const };
      },
    );

    server.get(
      '/api/workspaces/:workspaceId/approvals',
      {
        config: { role: 'viewer' },
        schema: {
          tags: ['approvals'],
          params: WorkspaceParams,
          querystring: z.strictObject({ status: ApprovalStatus.optional(), conversationId: z.string().optional() }),
          response: { 200: z.object({ approvals: z.array(Approval) }), 404: ApiError },
        },
      },
      async (request) => ({
        approvals: await app.approvals.list(request.params.workspaceId, {
          ...(request.query.status ? { status: request.query.status } : {}),
          ...(request.query.conversationId ? { conversationId: request.query.conversationId } : {}),
        }),
      }),
    );
    server.post(
      '/api/workspaces/:workspaceId/approvals/:approvalId/decision',
      {
        config: { role: 'member' },
        schema: {
          tags: ['approvals'],
          params: WorkspaceParams.extend({ approvalId: z.string().min(1) }),
          body: DecideApprovalBody,
          response: { 200: Approval, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request) => app.approvals.decide(request.params.workspaceId, request.params.approvalId, request.body, operatorOf(request.principal), await actingPerson(app, request)),
    );

    server.get(
      '/api/workspaces/:workspaceId/questions',
      { config: { role: 'viewer' }, schema: { tags: ['questions'], params: WorkspaceParams, response: { 200: z.object({ questions: z.array(Question) }), 404: ApiError } } },
      async (request) => {
        await app.workspaces.get(request.params.workspaceId);
        return { questions: await app.liveViews.questions(request.params.workspaceId) };
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/questions/:questionId/answer',
      {
        config: { role: 'member' },
        schema: {
          tags: ['questions'],
          params: WorkspaceParams.extend({ questionId: z.string().min(1) }),
          body: AnswerQuestionBody,
          response: { 200: Question, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request) => app.answerQuestion(request.params.workspaceId, request.params.questionId, request.body.answers),
    );

    server.get(
      '/api/workspaces/:workspaceId/presence',
      { config: { role: 'viewer' }, schema: { tags: ['agents'], params: WorkspaceParams, response: { 200: z.object({ presence: z.array(Presence) }), 404: ApiError } } },
      async (request) => {
        await app.workspaces.get(request.params.workspaceId);
        return { presence: await app.liveViews.agentPresence(request.params.workspaceId) };
      },
    );

    server.get(
      '/api/workspaces/:workspaceId/presence/operators',
      { config: { access: 'operator', role: 'viewer' }, schema: { tags: ['agents'], params: WorkspaceParams, response: { 200: OperatorPresenceList, 404: ApiError } } },
      async (request) => {
        await app.workspaces.get(request.params.workspaceId);
        // Stamped before the read: never newer than what it lists (see OperatorPresenceList).
        const updatedAt = nowIso();
        return { operators: await app.operatorPresence.list(request.params.workspaceId), updatedAt };
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/presence/here',
      {
        config: { access: 'operator', role: 'viewer' },
        schema: { tags: ['agents'], params: WorkspaceParams, body: OperatorHereBody, response: { 200: OperatorPresenceList, 400: ApiError, 404: ApiError } },
      },
      async (request) => {
        const { workspaceId } = request.params;
        await app.workspaces.get(workspaceId);
        let spaceId = request.body.spaceId ?? null;
        const conversationId = request.body.conversationId ?? null;
        // AG-4: a place that does not exist is refused (404 naming the field), never recorded.
        if (conversationId) spaceId = (await app.spaces.getConversation(workspaceId, conversationId)).spaceId;
        else if (spaceId && !(await app.spaces.findSpace(workspaceId, spaceId))) throw new NotFoundError('space', spaceId, 'spaceId');
        const operator = operatorOf(request.principal);
        const updatedAt = nowIso();
        return { operators: await app.operatorPresence.here(workspaceId, operator.operatorId, request.body.clientId, { spaceId, conversationId }), updatedAt };
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/presence/leave',
      { config: { access: 'operator', role: 'viewer' }, schema: { tags: ['agents'], params: WorkspaceParams, body: OperatorLeaveBody, response: { 204: z.null(), 400: ApiError, 404: ApiError } } },
      async (request, reply) => {
        await app.workspaces.get(request.params.workspaceId);
        await app.operatorPresence.leave(request.params.workspaceId, operatorOf(request.principal).operatorId, request.body.clientId);
        return reply.code(204).send(null);
      },
    );

    server.get(
      '/api/workspaces/:workspaceId/settings',
      { config: { role: 'viewer' }, schema: { tags: ['workspaces'], params: WorkspaceParams, response: { 200: WorkspaceSettingsView, 404: ApiError } } },
      async (request) => app.settings.view(request.params.workspaceId),
    );
    server.patch(
      '/api/workspaces/:workspaceId/settings',
      { config: { role: 'admin' }, schema: { tags: ['workspaces'], params: WorkspaceParams, body: UpdateWorkspaceSettingsBody, response: { 200: WorkspaceSettingsView, 400: ApiError, 404: ApiError } } },
      async (request) => app.settings.update(request.params.workspaceId, request.body, await actingPerson(app, request)),
    );
  };
}
