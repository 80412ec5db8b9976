import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ConflictError, ForbiddenError, UnauthorizedError, ValidationError } from '../../errors/index.js';
import { MODEL_PROXY_PATH } from '../../llm/model-proxy-url.js';
import type { ControlCenter } from '../../services/control-center.js';

/**
 * Model requests carry whole conversations (and images): far above the API's 5 MB default, still
 * bounded (SEC-10). A larger body is refused with 413 before the handler runs: nothing is forwarded.
 */
export const MODEL_PROXY_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * The provider segment, the rest of the path (still encoded) and the query of a model proxy URL as
 * the runner sent it. The router only chose this route; the provider is taken from the raw URL too,
 * so `%61nthropic` is no provider at all rather than a second spelling of one.
 */
function splitProxyUrl(url: string): { provider: string; rawPath: string; rawQuery: string } {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const rawQuery = queryAt < 0 ? '' : url.slice(queryAt + 1);
  const prefix = `${MODEL_PROXY_PATH}/`;
  if (!path.startsWith(prefix)) throw new ValidationError('path', `the model proxy path must start with ${prefix}; nothing was forwarded`);
  const afterPrefix = path.slice(prefix.length);
  const slash = afterPrefix.indexOf('/');
  return slash < 0 ? { provider: afterPrefix, rawPath: '', rawQuery } : { provider: afterPrefix.slice(0, slash), rawPath: afterPrefix.slice(slash), rawQuery };
}

/**
 * `/api/model-proxy/<provider>/…` (SEC-6): the loopback model endpoint external runners call with
 * their run token (as `x-api-key` or `Authorization: Bearer`, whichever their SDK sends) instead of
 * the real key. Agent-only: an operator token is refused (403), no token, an unknown or a revoked run
 * token gets 401 from the authentication hook. A paused run's request waits until it is resumed
 * (HAR-5, the pause of a runner transport that declares one). Bodies pass through as bytes once the
 * provider-side tools they name were allowed by the run's policy, answers stream back as they arrive;
 * see `ModelBroker` for what is forwarded (SEC-8: an allowlist, the run's own provider, client-side
 * betas, a header allowlist both ways) and metered.
 */
export function modelProxyRoutes(app: ControlCenter): FastifyPluginAsync {
  return async (server) => {
    // Raw bytes in, whatever the content type: the broker forwards them untouched.
    server.removeAllContentTypeParsers();
    server.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MODEL_PROXY_BODY_LIMIT }, (_request, body, done) => done(null, body));

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const principal = request.principal;
      if (!principal) throw new UnauthorizedError('missing run token: send it as x-api-key or Authorization: Bearer', 'authorization');
      if (principal.kind !== 'agent') throw new ForbiddenError('the model proxy serves run tokens only, not operator tokens', 'authorization');
      // SEC-8: everything is decided on the URL exactly as the runner sent it (the router's decoded
      // parameters are not used), and before a paused run waits: a refused request never waits, and
      // nothing reaches the upstream that was not admitted here.
      const { provider, rawPath, rawQuery } = splitProxyUrl(request.raw.url ?? request.url);
      const admitted = app.modelBroker.admit({ principal, provider, method: request.method, rawPath, rawQuery, headers: request.headers, body: Buffer.isBuffer(request.body) ? request.body : undefined });
      // SEC-8: provider-side tools the body names (web search, MCP servers, code execution) are decided
      // by the run's policy now; a refused one is answered here and never waits or leaves.
      const call = await app.modelBroker.screen(admitted);
      // BUD-1: a call over a spend limit is refused here in the provider's own words, whatever the
      // runtime does next; the budget decision waits in the Inbox.
      if (call.kind === 'upstream') {
        const refusal = await app.spendGate.refusalAtProxy(principal, call.provider.protocol);
        if (refusal) return reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
      }
      const hungUp = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) hungUp.abort();
      });
      // HAR-5: a paused run's next model request waits here until it is resumed — the runner cannot
      // get another answer while paused, whatever it does. Cancel (the run's abort) or the runner
      // hanging up ends the wait; the request is then not forwarded.
      const run = app.activeRuns.get(principal.runId);
      if (call.kind === 'upstream' && run?.paused) {
        const stop = AbortSignal.any([hungUp.signal, run.controller.signal]);
        await app.activeRuns.waitWhilePaused(principal.runId, stop);
        if (stop.aborted) throw new ConflictError('runId', `run ${principal.runId} ended while paused; the model request was not sent`);
      }
      const answer = await app.modelBroker.forward(call, hungUp.signal);
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    };
    // SEC-1/SEC-6: run tokens only, also as `x-api-key` (how Anthropic SDKs send their key).
    const config = { access: 'agent', apiKeyHeader: true } as const;
    for (const url of [`${MODEL_PROXY_PATH}/:provider`, `${MODEL_PROXY_PATH}/:provider/*`]) {
      server.route({ method: ['GET', 'HEAD', 'POST'], url, exposeHeadRoute: false, config, schema: { hide: true }, handler });
    }
  };
}
