import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../schemas/common.js';
import type { OperatorAuth, OperatorPrincipal, Principal } from '../services/operator-auth.js';
import type { RunTokens } from '../services/runs/run-tokens.js';
import { accessOf } from './route-access.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The operator behind a request; routes for operators only call this (the hook already ensured it). */
export function operatorOf(principal: Principal | null): OperatorPrincipal {
  if (principal?.kind !== 'operator') throw new Error('operator route reached without an operator principal');
  return principal;
}

function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return null;
  const token = header.slice('Bearer '.length).trim();
  return token === '' ? null : token;
}

/**
 * SEC-1, authentication by default. Runs as an `onRequest` hook, i.e. after the router has matched
 * the request, and decides on the matched route's declared access (`config.access`, see
 * route-access.ts) — never on the raw URL, which the router decodes and a prefix check would read
 * differently (`/%61pi/...` once reached every route without a token). A route that declares nothing
 * is operator-only. Unmatched requests go to the 404 handler, which answers the same JSON 404 to
 * everyone and touches no data. Failures get 401 with `{error:{code,message,field}}` and run no handler.
 */
export function createAuthenticateHook(auth: OperatorAuth, runTokens: RunTokens) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.principal = null;
    if (request.is404) return;
    const config = request.routeOptions.config;
    const access = accessOf(config);
    if (access === 'public') return;
    let token = bearerOf(request);
    if (!token && config.tokenInQuery === true) {
      const query = request.query as Record<string, unknown> | undefined;
      token = typeof query?.token === 'string' && query.token !== '' ? query.token : null;
    }
    // SEC-6: Anthropic SDKs (Claude Code) send their API key — here the run token — as x-api-key.
    const apiKey = request.headers['x-api-key'];
    if (!token && config.apiKeyHeader === true && typeof apiKey === 'string') token = apiKey.trim() || null;
    let principal: Principal | null = null;
    if (token) {
      if (access === 'operator' || access === 'operatorOrAgent') principal = auth.authenticate(token);
      if (!principal && (access === 'agent' || access === 'operatorOrAgent')) principal = runTokens.authenticate(token);
    }
    if (!principal) {
      const body: ApiError = {
        error: {
          code: 'unauthorized',
          message: !token
            ? 'missing bearer token: send Authorization: Bearer <token>'
            : access === 'agent'
              ? 'this route takes a run token'
              : access === 'operator'
                ? 'invalid bearer token: this route takes the operator token'
                : 'invalid bearer token',
          field: 'authorization',
        },
      };
      await reply.code(401).send(body);
      return;
    }
    request.principal = principal;
  };
}
