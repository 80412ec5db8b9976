import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../schemas/common.js';
import type { OperatorAuth, OperatorPrincipal, Principal } from '../services/operator-auth.js';
import { SESSION_COOKIE, type OperatorSessions, type SecretHolder } from '../services/operator-sessions.js';
import type { PeopleService } from '../services/people/people-service.js';
import { rankOf } from '../services/people/role-rank.js';
import type { RunTokens } from '../services/runs/run-tokens.js';
import { accessOf, roleOf } from './route-access.js';

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

/** The value of one cookie of the request, or null. */
export function cookieOf(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}

/** Methods that change nothing: a cookie alone authenticates these without the CSRF check. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF: a request authenticated by the session cookie that may change state must come from
 * this server's own pages — an `Origin` header naming the host the request was sent to. SameSite=Strict
 * already keeps the cookie off cross-site requests; this is the second lock (an old browser, a
 * same-site sibling host). Bearer-token requests need neither: a page cannot make a browser add one.
 */
function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (typeof origin !== 'string' || typeof host !== 'string') return false;
  try {
    return new URL(origin).host === host && (origin.startsWith('http://') || origin.startsWith('https://'));
  } catch {
    return false;
  }
}

/**
 * SEC-1, authentication by default. Runs as an `onRequest` hook, i.e. after the router has matched
 * the request, and decides on the matched route's declared access (`config.access`, see
 * route-access.ts) — never on the raw URL, which the router decodes and a prefix check would read
 * differently (`/%61pi/...` once reached every route without a token). A route that declares nothing
 * is operator-only. Unmatched requests go to the 404 handler, which answers the same JSON 404 to
 * everyone and touches no data. Failures get 401 with `{error:{code,message,field}}` and run no handler.
 */
export function createAuthenticateHook(auth: OperatorAuth, runTokens: RunTokens, sessions: OperatorSessions, people: PeopleService) {
  const asPrincipal = (holder: SecretHolder | null): OperatorPrincipal | null => (holder ? { kind: 'operator', operatorId: holder.operatorId, readOnly: holder.readOnly, credential: holder.credential ?? null } : null);
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.principal = null;
    if (request.is404) return;
    const config = request.routeOptions.config;
    const access = accessOf(config);
    if (access === 'public') return;
    let token = bearerOf(request);
    // SEC-6: Anthropic SDKs (Claude Code) send their API key — here the run token — as x-api-key.
    const apiKey = request.headers['x-api-key'];
    if (!token && config.apiKeyHeader === true && typeof apiKey === 'string') token = apiKey.trim() || null;
    let principal: Principal | null = null;
    if (token) {
      if (access === 'operator' || access === 'operatorOrAgent') principal = await auth.authenticate(token);
      if (!principal && (access === 'agent' || access === 'operatorOrAgent')) principal = runTokens.authenticate(token);
    }
    const operatorRoute = access === 'operator' || access === 'operatorOrAgent';
    // The event stream takes a single-use ticket in its URL (EventSource sends no headers),
    // never the operator token; only an operator can mint one.
    if (!token && !principal && operatorRoute && config.ticketInQuery === true) {
      const query = request.query as Record<string, unknown> | undefined;
      const ticket = typeof query?.ticket === 'string' && query.ticket !== '' ? query.ticket : null;
      principal = asPrincipal(ticket ? await sessions.redeemSseTicket(ticket) : null);
      if (ticket) token = ticket;
    }
    // A browser signed in through the one-time link carries a session cookie.
    const session = !token && operatorRoute ? cookieOf(request, SESSION_COOKIE) : null;
    if (session) {
      const holder = await sessions.sessionHolder(session);
      if (holder && !SAFE_METHODS.has(request.method) && !sameOrigin(request)) {
        const body: ApiError = { error: { code: 'forbidden', message: 'a cookie-authenticated request that changes state must come from this server\'s own pages (Origin)', field: 'origin' } };
        await reply.code(403).send(body);
        return;
      }
      principal = asPrincipal(holder);
      token = session;
    }
    if (!principal) {
      const body: ApiError = {
        error: {
          code: 'unauthorized',
          message: !token
            ? 'missing bearer token: send Authorization: Bearer <token> (or sign in through the link `serve` prints)'
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
    if (principal.kind === 'operator') {
      const refusal = await refuseBelowRole(people, principal, roleOf(config), request.params);
      if (refusal) {
        await reply.code(refusal.status).send(refusal.body);
        return;
      }
    }
    request.principal = principal;
  };
}

/**
 * TEAM-2: the person must hold the route's declared role. In a workspace they are not in, the answer
 * is the same 404 an unknown workspace gets (whether it exists is not theirs to learn); holding a
 * lower role gets 403 naming the role needed. Either way no handler runs, so nothing changes.
 */
async function refuseBelowRole(
  people: PeopleService,
  principal: OperatorPrincipal,
  required: ReturnType<typeof roleOf>,
  params: unknown,
): Promise<{ status: number; body: ApiError } | null> {
  const workspaceParam = (params as Record<string, unknown> | undefined)?.workspaceId;
  const workspaceId = typeof workspaceParam === 'string' ? workspaceParam : null;
  const held = await people.effectiveRole(principal.operatorId, principal.readOnly === true, workspaceId, principal.activePerson);
  if (held === null) {
    return workspaceId === null
      ? { status: 401, body: { error: { code: 'unauthorized', message: 'this credential no longer stands for anyone', field: 'authorization' } } }
      : { status: 404, body: { error: { code: 'not_found', message: `workspace '${workspaceId}' not found`, field: 'workspaceId' } } };
  }
  if (rankOf(held) >= rankOf(required)) return null;
  const where = workspaceId === null ? '' : ' in this workspace';
  const capped = principal.readOnly === true ? ' (this credential is read-only, so it acts as a viewer)' : '';
  return { status: 403, body: { error: { code: 'forbidden', message: `this needs the ${required} role${where}; you hold ${held === 'signedIn' ? 'no role' : held}${capped}`, field: 'role' } } };
}
