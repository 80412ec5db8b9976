import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../schemas/common.js';
import type { OperatorAuth, OperatorPrincipal, Principal } from '../services/operator-auth.js';
import type { RunTokens } from '../services/run-tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Paths a run-scoped agent token may call (everything else under /api is for operators only). */
const AGENT_PATHS = ['/mcp', '/api/hooks/', '/api/git-push/', '/api/model-proxy/'];

/** The operator behind a request; routes for operators only call this (the hook already ensured it). */
export function operatorOf(principal: Principal | null): OperatorPrincipal {
  if (principal?.kind !== 'operator') throw new Error('operator route reached without an operator principal');
  return principal;
}

/** Paths anyone may read: the OpenAPI document and the liveness probe. */
const PUBLIC_PATHS = new Set(['/openapi.json', '/healthz']);

/**
 * Every `/api` and `/mcp` request needs `Authorization: Bearer <token>`. EventSource cannot set
 * headers, so the SSE route also accepts `?token=`. Failures get 401 and run no handler.
 */
export function createAuthenticateHook(auth: OperatorAuth, runTokens: RunTokens) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.principal = null;
    const path = request.url.split('?')[0] ?? '';
    if (PUBLIC_PATHS.has(path) || !(path.startsWith('/api') || path.startsWith('/mcp'))) return;
    const header = request.headers.authorization;
    let token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : null;
    if (!token && path.endsWith('/events')) {
      const query = request.query as Record<string, unknown> | undefined;
      token = typeof query?.token === 'string' ? query.token : null;
    }
    const agentAllowed = AGENT_PATHS.some((prefix) => path === prefix || path.startsWith(prefix));
    // SEC-6: Anthropic SDKs (Claude Code) send their API key, here the run token, as x-api-key.
    const apiKey = request.headers['x-api-key'];
    if (!token && agentAllowed && path.startsWith('/api/model-proxy/') && typeof apiKey === 'string') token = apiKey.trim() || null;
    const principal: Principal | null = token ? (auth.authenticate(token) ?? (agentAllowed ? runTokens.authenticate(token) : null)) : null;
    if (!principal) {
      const body: ApiError = {
        error: {
          code: 'unauthorized',
          message: token ? 'invalid bearer token' : 'missing bearer token: send Authorization: Bearer <operator token>',
          field: 'authorization',
        },
      };
      await reply.code(401).send(body);
      return;
    }
    request.principal = principal;
  };
}
