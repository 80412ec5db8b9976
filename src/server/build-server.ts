import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ControlCenter } from '../services/control-center.js';
import { createAuthenticateHook } from './authenticate.js';
import { trackRouteAccess } from './route-access.js';
import { BodyEncodingError } from './bounded-body.js';
import { MAX_JSON_NESTING, nestsDeeperThan } from './json-nesting.js';
import { jsonBreadthProblem } from './json-breadth.js';
import { handleError } from './error-handler.js';
import { registerMcpServer } from './mcp-server.js';
import { recordRouteResponses } from './route-response-schemas.js';
import { DEFAULT_WEB_DIST_DIR, registerWebApp } from './web-app.js';
import { agentRoutes } from './routes/agent-routes.js';
import { eventRoutes } from './routes/event-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { peopleRoutes } from './routes/people-routes.js';
import { oidcRoutes } from './routes/oidc-routes.js';
import { notificationRoutes } from './routes/notification-routes.js';
import { conversationRoutes } from './routes/conversation-routes.js';
import { attachmentRoutes } from './routes/attachment-routes.js';
import { rewindRoutes } from './routes/rewind-routes.js';
import { publishRoutes } from './routes/publish-routes.js';
import { changeRoutes } from './routes/change-routes.js';
import { shareRoutes } from './routes/share-routes.js';
import { gitPushRoutes } from './routes/git-push-routes.js';
import { honestyRoutes } from './routes/honesty-routes.js';
import { inboxRoutes } from './routes/inbox-routes.js';
import { imageRoutes } from './routes/image-routes.js';
import { operationsRoutes } from './routes/operations-routes.js';
import { hookRoutes } from './routes/hook-routes.js';
import { modelProxyRoutes } from './routes/model-proxy-routes.js';
import { budgetRoutes } from './routes/budget-routes.js';
import { reviewRoutes } from './routes/review-routes.js';
import { ticketRoutes } from './routes/ticket-routes.js';
import { orchestrationRoutes } from './routes/orchestration-routes.js';
import { pipelineRoutes } from './routes/pipeline-routes.js';
import { planRoutes } from './routes/plan-routes.js';
import { policyRoutes } from './routes/policy-routes.js';
import { auditRoutes } from './routes/audit-routes.js';
import { skillRoutes } from './routes/skill-routes.js';
import { mcpServerRoutes } from './routes/mcp-server-routes.js';
import { spaceRepositoryRoutes } from './routes/space-repository-routes.js';
import { runRoutes } from './routes/run-routes.js';
import { spaceRoutes } from './routes/space-routes.js';
import { workspaceRoutes } from './routes/workspace-routes.js';

export interface BuildServerOptions {
  /** web/dist to serve; null turns the UI off. */
  webDistDir?: string | null;
  /**
   * `all` (default): the whole API. `runner`: only what a run's own processes call back on — Claude
   * Code's hooks, the git push proxy, the model proxy and the Control Center MCP server, all
   * authenticated by run tokens — for a worker, which serves no API but executes runs.
   */
  routes?: 'all' | 'runner';
}

/** The HTTP API: thin routes (parse → call a service → serialize) over the composition root. */
export async function buildServer(app: ControlCenter, options: BuildServerOptions = {}): Promise<FastifyInstance> {
  // The composition root's logger (created at start): requests and services log to the same place.
  // Typed as Fastify's base logger so the instance keeps the default logger type every plugin expects.
  const logger: FastifyBaseLogger = app.logger;
  const server = Fastify({
    loggerInstance: logger,
    // SSE streams never end on their own; closing the server must not wait for them.
    forceCloseConnections: true,
    bodyLimit: 5 * 1024 * 1024,
  }).withTypeProvider<ZodTypeProvider>();
  server.setValidatorCompiler(validatorCompiler);
  server.setSerializerCompiler(serializerCompiler);
  server.setErrorHandler(handleError);
  // SEC-1: before any route exists, so every route's declared access is checked and recorded.
  trackRouteAccess(server);
  recordRouteResponses(server);
  server.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 'not_found', message: `no route for ${request.method} ${request.url.split('?')[0]}` } }),
  );
  // DELETE with a JSON body is allowed; a DELETE without one should not fail on an empty body.
  // SEC-10: JSON bodies are capped at `bodyLimit` wire bytes and never decompressed (Fastify does not
  // decode Content-Encoding); a compressed one is refused by name rather than parsed as garbage, and
  // a deeply nested one before JSON.parse spends seconds on it.
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') return done(new BodyEncodingError(encoding, ['identity']), undefined);
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text)) {
      return done(Object.assign(new Error(`request body nests arrays and objects deeper than ${MAX_JSON_NESTING} levels`), { statusCode: 400 }), undefined);
    }
    // An agent's body is also bounded in width: parsing and validating 5 MiB of keys held the loop for seconds.
    const tooWide = request.principal?.kind === 'agent' ? jsonBreadthProblem(text) : null;
    if (tooWide) return done(Object.assign(new Error(tooWide), { statusCode: 400 }), undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = Object.assign(new Error('request body is not valid JSON'), { statusCode: 400 });
      done(error, undefined);
    }
  });

  await server.register(fastifySwagger, {
    openapi: {
      info: { title: 'Control Center API', version: '0.1.0', description: 'Control plane for teams of AI coding agents.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });

  server.addHook('onRequest', createAuthenticateHook(app.auth, app.runTokens, app.sessions, app.people));
  // The public list (SEC-1): these two, and the web app's static handler. Everything else needs a principal.
  server.get('/healthz', { schema: { hide: true }, config: { access: 'public' } }, async () => ({ ok: true }));
  server.get('/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => server.swagger());

  if (options.routes === 'runner') {
    await registerRunnerRoutes(server, app);
    return server;
  }
  await server.register(operationsRoutes(app));
  await server.register(workspaceRoutes(app));
  await server.register(agentRoutes(app));
  await server.register(spaceRoutes(app));
  await server.register(conversationRoutes(app));
  await server.register(attachmentRoutes(app));
  await server.register(rewindRoutes(app));
  await server.register(publishRoutes(app));
  await server.register(changeRoutes(app));
  await server.register(shareRoutes(app));
  await server.register(runRoutes(app));
  await server.register(policyRoutes(app));
  await server.register(skillRoutes(app));
  await server.register(mcpServerRoutes(app));
  await server.register(spaceRepositoryRoutes(app));
  await server.register(planRoutes(app));
  await server.register(reviewRoutes(app));
  await server.register(ticketRoutes(app));
  await server.register(orchestrationRoutes(app));
  await server.register(pipelineRoutes(app));
  await server.register(inboxRoutes(app));
  await registerRunnerRoutes(server, app);
  await server.register(honestyRoutes(app));
  await server.register(imageRoutes(app));
  await server.register(eventRoutes(app));
  await server.register(authRoutes(app));
  await server.register(peopleRoutes(app));
  await server.register(auditRoutes(app));
  await server.register(oidcRoutes(app));
  await server.register(notificationRoutes(app));
  // Last: the web app's catch-all never shadows /api, /mcp, /openapi.json or /healthz.
  if (options.webDistDir !== null) await registerWebApp(server, options.webDistDir ?? DEFAULT_WEB_DIST_DIR);
  return server;
}

/** The routes a run's runner processes call back on (hooks, push proxy, model proxy, MCP). */
async function registerRunnerRoutes(server: FastifyInstance, app: ControlCenter): Promise<void> {
  await server.register(hookRoutes(app));
  await server.register(gitPushRoutes(app));
  await server.register(modelProxyRoutes(app));
  await server.register(budgetRoutes(app));
  registerMcpServer(server, app);
}
