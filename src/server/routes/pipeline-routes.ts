import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { CreatedPipeline, PipelineIssueView, PipelineRunDetail, PipelineRunSummary, PipelineView, StartPipelineRunBody } from '../../schemas/pipeline.js';
import type { ControlCenter } from '../../services/control-center.js';
import { InvalidPipelineError } from '../../services/pipelines/pipeline-service.js';
import { WorkspaceParams } from './workspace-routes.js';

const PipelineParams = WorkspaceParams.extend({ pipelineId: z.string().min(1) });
const RunParams = WorkspaceParams.extend({ runId: z.string().min(1) });
const Validation = z.object({ ok: z.literal(true), errors: z.array(PipelineIssueView), warnings: z.array(PipelineIssueView) });

/** Every validator error in the error body's `issues`, each naming its node (PIPE-1). */
function invalidBody(error: InvalidPipelineError): ApiError {
  return {
    error: {
      code: 'invalid_pipeline',
      message: error.message,
      field: error.field ?? 'body',
      // `code` lets a client put each problem in its own words at the field it names (the pipeline editor).
      issues: error.issues.map((issue) => ({ field: issue.field || 'body', code: issue.code, message: issue.nodeKey ? `node ${issue.nodeKey}: ${issue.message}` : issue.message })),
    },
  };
}

/** Pipelines (PIPE-1): definitions, manual runs, run state with its nodes, cancel run / node. Operators only. */
export function pipelineRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/pipelines',
      { config: { access: 'operator', role: 'viewer' }, schema: { tags: ['pipelines'], params: WorkspaceParams, response: { 200: z.object({ pipelines: z.array(PipelineView) }), 404: ApiError } } },
      async (request) => ({ pipelines: await app.pipelines.list(request.params.workspaceId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/pipelines',
      {
        config: { access: 'operator', role: 'admin' },
        schema: { tags: ['pipelines'], params: WorkspaceParams, body: z.record(z.string(), z.unknown()), response: { 201: CreatedPipeline, 400: ApiError, 404: ApiError } },
      },
      async (request, reply) => {
        try {
          return reply.code(201).send(await app.pipelines.create(request.params.workspaceId, request.body));
        } catch (error) {
          if (error instanceof InvalidPipelineError) return reply.code(400).send(invalidBody(error));
          throw error;
        }
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/pipelines/validate',
      {
        config: { access: 'operator', role: 'viewer' },
        schema: {
          description: 'Runs the exact validation a save runs and stores nothing: 200 when the definition would save (with its warnings), else 400 with every problem at its field.',
          tags: ['pipelines'],
          params: WorkspaceParams,
          body: z.record(z.string(), z.unknown()),
          response: { 200: Validation, 400: ApiError, 404: ApiError },
        },
      },
      async (request, reply) => {
        const result = await app.pipelines.check(request.params.workspaceId, request.body);
        if (!result.definition) return reply.code(400).send(invalidBody(new InvalidPipelineError(result.errors)));
        return { ok: true as const, errors: [], warnings: result.warnings };
      },
    );
    server.put(
      '/api/workspaces/:workspaceId/pipelines/:pipelineId',
      {
        config: { access: 'operator', role: 'admin' },
        schema: {
          description: 'Replaces the definition and triggers of a pipeline created through the API, after the same validation as create; a kept webhook keeps its secret.',
          tags: ['pipelines'],
          params: PipelineParams,
          body: z.record(z.string(), z.unknown()),
          response: { 200: CreatedPipeline, 400: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request, reply) => {
        try {
          return await app.pipelines.update(request.params.workspaceId, request.params.pipelineId, request.body);
        } catch (error) {
          if (error instanceof InvalidPipelineError) return reply.code(400).send(invalidBody(error));
          throw error;
        }
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/pipelines/sync-files',
      {
        config: { access: 'operator', role: 'admin' },
        schema: {
          tags: ['pipelines'],
          params: WorkspaceParams,
          response: { 200: z.object({ files: z.array(z.object({ file: z.string(), pipelineId: z.string().nullable(), errors: z.array(PipelineIssueView), warnings: z.array(PipelineIssueView) })) }), 404: ApiError },
        },
      },
      async (request) => ({ files: await app.pipelines.syncFiles(request.params.workspaceId) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/pipelines/:pipelineId',
      { config: { access: 'operator', role: 'viewer' }, schema: { tags: ['pipelines'], params: PipelineParams, response: { 200: PipelineView, 404: ApiError } } },
      async (request) => app.pipelines.get(request.params.workspaceId, request.params.pipelineId),
    );
    server.get(
      '/api/workspaces/:workspaceId/pipelines/:pipelineId/runs',
      { config: { access: 'operator', role: 'viewer' }, schema: { tags: ['pipelines'], params: PipelineParams, response: { 200: z.object({ runs: z.array(PipelineRunSummary) }), 404: ApiError } } },
      async (request) => ({ runs: await app.pipelines.listRuns(request.params.workspaceId, request.params.pipelineId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/pipelines/:pipelineId/runs',
      {
        config: { access: 'operator', role: 'member' },
        schema: { tags: ['pipelines'], params: PipelineParams, body: StartPipelineRunBody.nullish(), response: { 201: PipelineRunDetail, 400: ApiError, 404: ApiError, 409: ApiError } },
      },
      async (request, reply) => {
        const run = await app.pipelines.startRun(request.params.workspaceId, request.params.pipelineId, { type: 'manual', payload: request.body?.payload ?? {} }, request.body?.idempotencyKey);
        return reply.code(201).send(run);
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/pipeline-runs',
      {
        config: { access: 'operator', role: 'viewer' },
        schema: {
          tags: ['pipelines'],
          params: WorkspaceParams,
          querystring: z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
          response: { 200: z.object({ runs: z.array(PipelineRunSummary) }), 400: ApiError, 404: ApiError },
        },
      },
      async (request) => ({ runs: await app.pipelines.listRecentRuns(request.params.workspaceId, request.query.limit) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/pipeline-runs/:runId',
      { config: { access: 'operator', role: 'viewer' }, schema: { tags: ['pipelines'], params: RunParams, response: { 200: PipelineRunDetail, 404: ApiError } } },
      async (request) => app.pipelines.getRun(request.params.workspaceId, request.params.runId),
    );
    server.post(
      '/api/workspaces/:workspaceId/pipeline-runs/:runId/cancel',
      { config: { access: 'operator', role: 'member' }, schema: { tags: ['pipelines'], params: RunParams, response: { 200: PipelineRunDetail, 404: ApiError, 409: ApiError } } },
      async (request) => app.pipelines.cancelRun(request.params.workspaceId, request.params.runId),
    );
    server.post(
      '/api/workspaces/:workspaceId/pipeline-runs/:runId/nodes/:key/cancel',
      { config: { access: 'operator', role: 'member' }, schema: { tags: ['pipelines'], params: RunParams.extend({ key: z.string().min(1) }), response: { 200: PipelineRunDetail, 404: ApiError, 409: ApiError } } },
      async (request) => app.pipelines.cancelNode(request.params.workspaceId, request.params.runId, request.params.key),
    );

    // PIPE-1 webhook trigger: no token — the HMAC-SHA256 signature over the raw body is the authentication.
    await server.register(async (hooks) => {
      // The signature is over the exact bytes received: this scope keeps the body as text.
      hooks.removeAllContentTypeParsers();
      hooks.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, typeof body === 'string' ? body : body.toString('utf8')));
      hooks.post(
        '/api/hooks/pipelines/:pipelineId',
        {
          config: { access: 'public' },
          schema: {
            tags: ['pipelines'],
            params: z.strictObject({ pipelineId: z.string().min(1).max(100) }),
            headers: z.object({ 'x-cc-signature': z.string().max(200).optional(), 'x-cc-timestamp': z.string().max(20).optional() }),
            body: z.string().optional(),
            response: { 202: z.object({ runId: z.string() }), 400: ApiError, 401: ApiError },
          },
        },
        async (request, reply) => {
          const params = request.params as { pipelineId: string };
          const header = (name: string) => {
            const value = request.headers[name];
            return typeof value === 'string' ? value : undefined;
          };
          const result = await app.pipelines.deliverWebhook(params.pipelineId, { signature: header('x-cc-signature'), timestamp: header('x-cc-timestamp') }, typeof request.body === 'string' ? request.body : '');
          return reply.code(202).send(result);
        },
      );
    });
  };
}
