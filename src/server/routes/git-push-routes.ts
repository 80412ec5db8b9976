import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearerToken } from '../bearer-token.js';
import type { ControlCenter } from '../../services/control-center.js';
import { GIT_PUSH_PATH, GitPushProxy, PUSH_PACK_BYTES, type ProxyResponse } from '../../git/git-push-proxy.js';
import { BodyEncodingError, BodyLimitError, bodyErrorJson, boundedBody, discardRest, type BodyLimits } from '../bounded-body.js';

/** A request header git sent once, or undefined. */
function singleHeader(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

const RemoteParams = z.object({ remoteId: z.string().regex(/^[0-9a-f]{16}$/) });

/**
 * A push's body caps (SEC-10): git sends large packs uncompressed (only small requests are gzipped),
 * so the wire cap and the decoded cap are the same size; a gzip bomb meets the decoded cap.
 */
const PUSH_BODY_LIMITS = { compressedBytes: PUSH_PACK_BYTES, decompressedBytes: PUSH_PACK_BYTES };

/**
 * A fetch request's caps: it holds only the client's wants and haves (git gzips it), a few MiB for a
 * repository with a very long history; the pack flows the other way.
 */
const FETCH_BODY_LIMITS = { compressedBytes: 16 * 1024 * 1024, decompressedBytes: 64 * 1024 * 1024 };

/**
 * The git push proxy's smart-HTTP endpoints (POL-6): `GET /api/git-push/<remote>/info/refs` and
 * `POST /api/git-push/<remote>/git-receive-pack`, authenticated with the run's bearer token (sent by
 * git through `http.extraHeader`). `POST …/git-upload-pack` serves fetches of a remote on a
 * configured forge, which the proxy reads with the workspace's forge token; any other remote's fetch
 * is refused (403).
 */
export function gitPushRoutes(
  app: ControlCenter,
  proxy: GitPushProxy = new GitPushProxy(app.hookSessions, { forgeSettings: (workspaceId) => app.settings.get(workspaceId) }),
  limits: BodyLimits = PUSH_BODY_LIMITS,
): FastifyPluginAsyncZod {
  return async (server) => {
    // SEC-10: the body stays a stream: the proxy reads the command section, decides, and only then
    // streams the pack to git; Fastify must not buffer it first.
    for (const type of ['application/x-git-receive-pack-request', 'application/x-git-upload-pack-request']) {
      server.addContentTypeParser(type, (_request, payload, done) => done(null, payload));
    }
    const send = (reply: FastifyReply, response: ProxyResponse) => {
      void reply.code(response.status);
      // An answer given before the body was read (a refusal, a cap): the rest is dropped unread, at
      // most one cap's worth, so git still shows the reason.
      if (!reply.request.raw.complete) discardRest(reply.request.raw, limits.compressedBytes);
      for (const [name, value] of Object.entries(response.headers)) void reply.header(name, value);
      return reply.send(response.body);
    };
    // SEC-1: the proxy is for a run's git only; the operator pushes to the remote directly.
    const config = { access: 'agent' } as const;
    const json = (status: number, body: unknown): ProxyResponse => ({ status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
    /** The answer to a body that broke a cap or could not be decoded; anything else is the server's own failure, thrown on. */
    const bodyFailure = (error: unknown): ProxyResponse => {
      if (error instanceof BodyLimitError || error instanceof BodyEncodingError) return json(error.statusCode, bodyErrorJson(error));
      // zlib's errors (a corrupt gzip stream) carry a code.
      if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && (error as NodeJS.ErrnoException).code!.startsWith('Z_')) {
        return json(400, { error: { code: 'bad_request', message: `the body could not be decoded: ${error.message}`, field: 'content-encoding' } });
      }
      throw error;
    };
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
      { config, schema: { hide: true, params: RemoteParams } },
      async (request, reply) => {
        const token = bearerToken(request.headers.authorization);
        if (!token) return send(reply, unauthorized);
        const controller = new AbortController();
        // The client hung up (git was killed): stop waiting for an approval on its behalf.
        reply.raw.on('close', () => {
          if (!reply.raw.writableFinished) controller.abort();
        });
        const header = (name: string) => singleHeader(request.headers, name);
        try {
          const body = boundedBody(request.raw, { contentLength: header('content-length'), contentEncoding: header('content-encoding') }, limits);
          return send(reply, await proxy.receivePack(token, request.params.remoteId, body, { contentType: header('content-type') }, controller.signal));
        } catch (error) {
          return send(reply, bodyFailure(error));
        }
      },
    );
    server.post(
      `${GIT_PUSH_PATH}/:remoteId/git-upload-pack`,
      { config, schema: { hide: true, params: RemoteParams } },
      async (request, reply) => {
        const token = bearerToken(request.headers.authorization);
        if (!token) return send(reply, unauthorized);
        const header = (name: string) => singleHeader(request.headers, name);
        try {
          const body = boundedBody(request.raw, { contentLength: header('content-length'), contentEncoding: header('content-encoding') }, FETCH_BODY_LIMITS);
          return send(reply, await proxy.uploadPack(token, request.params.remoteId, body, { contentType: header('content-type') }));
        } catch (error) {
          return send(reply, bodyFailure(error));
        }
      },
    );
  };
}
