import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearerToken } from '../bearer-token.js';
import type { ControlCenter } from '../../services/control-center.js';
import { GIT_PUSH_PATH, GitPushProxy, type ProxyResponse } from '../../git/git-push-proxy.js';

const RemoteParams = z.object({ remoteId: z.string().regex(/^[0-9a-f]{16}$/) });

/**
 * The git push proxy's smart-HTTP endpoints (POL-6): `GET /api/git-push/<remote>/info/refs` and
 * `POST /api/git-push/<remote>/git-receive-pack`, authenticated with the run's bearer token (sent by
 * git through `http.extraHeader`). Fetches are not served: only pushes are routed here.
 */
export function gitPushRoutes(app: ControlCenter, proxy: GitPushProxy = new GitPushProxy(app.hookSessions)): FastifyPluginAsyncZod {
  return async (server) => {
    for (const type of ['application/x-git-receive-pack-request', 'application/x-git-upload-pack-request']) {
      server.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: 2 * 1024 * 1024 * 1024 - 1 }, (_request, body, done) => done(null, body));
    }
    const send = (reply: FastifyReply, response: ProxyResponse) => {
      void reply.code(response.status);
      for (const [name, value] of Object.entries(response.headers)) void reply.header(name, value);
      return reply.send(response.body);
    };
    // SEC-1: the proxy is for a run's git only; the operator pushes to the remote directly.
    const config = { access: 'agent' } as const;
    const unauthorized = { status: 401, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ error: { code: 'unauthorized', message: 'missing bearer token', field: 'authorization' } })) };

    server.get(
      `${GIT_PUSH_PATH}/:remoteId/info/refs`,
      { config, schema: { hide: true, params: RemoteParams, querystring: z.object({ service: z.string().optional() }) } },
      async (request, reply) => {
        const token = bearerToken(request.headers.authorization);
        if (!token) return send(reply, unauthorized);
        return send(reply, await proxy.advertise(token, request.params.remoteId, request.query.service));
      },
    );
    server.post(
      `${GIT_PUSH_PATH}/:remoteId/git-receive-pack`,
      { config, schema: { hide: true, params: RemoteParams }, bodyLimit: 2 * 1024 * 1024 * 1024 - 1 },
      async (request, reply) => {
        const token = bearerToken(request.headers.authorization);
        if (!token) return send(reply, unauthorized);
        const controller = new AbortController();
        // The client hung up (git was killed): stop waiting for an approval on its behalf.
        reply.raw.on('close', () => {
          if (!reply.raw.writableFinished) controller.abort();
        });
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = (name: string) => (typeof request.headers[name] === 'string' ? (request.headers[name] as string) : undefined);
        return send(
          reply,
          await proxy.receivePack(token, request.params.remoteId, body, { contentType: header('content-type'), contentEncoding: header('content-encoding') }, controller.signal),
        );
      },
    );
    server.post(`${GIT_PUSH_PATH}/:remoteId/git-upload-pack`, { config, schema: { hide: true, params: RemoteParams } }, async (_request, reply) =>
      reply.code(403).send({ error: { code: 'forbidden', message: 'the push proxy serves pushes only; fetch from the remote directly' } }),
    );
  };
}
