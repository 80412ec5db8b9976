import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ValidationError } from '../../errors/index.js';
import { ApiError } from '../../schemas/common.js';
import type { ControlCenter } from '../../services/control-center.js';
import { SESSION_COOKIE, SESSION_TTL_MS } from '../../services/operator-sessions.js';
import { cookieOf, operatorOf } from '../authenticate.js';

const OPERATOR = { access: 'operator' } as const;

/** The session cookie: HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it). */
function sessionCookie(value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
}

/**
 * Sign-in without copying a token (issue 17): the one-time link, the browser session it opens, the
 * single-use SSE ticket, and signing out. Minting codes and tickets is operator-only: an agent's run
 * token is refused by those routes like every operator route (SEC-1).
 */
export function authRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/auth/sign-in',
      {
        // Public by necessity: the code in the link IS the credential. It is single-use and short-lived.
        config: { access: 'public' },
        schema: { tags: ['auth'], querystring: z.object({ code: z.string().min(1).max(200) }), response: { 303: z.null(), 400: ApiError } },
      },
      async (request, reply) => {
        const redeemed = app.sessions.redeemSignInCode(request.query.code);
        if (!redeemed) throw new ValidationError('code', 'this sign-in link is unknown, already used or expired: run `control-center sign-in-link` (or restart `serve`) for a new one');
        return reply
          .code(303)
          .header('set-cookie', sessionCookie(redeemed.session, Math.floor(SESSION_TTL_MS / 1000)))
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .header('location', '/')
          .send(null);
      },
    );
    server.post(
      '/api/auth/sign-in-link',
      { config: OPERATOR, schema: { tags: ['auth'], response: { 201: z.object({ url: z.string(), expiresAt: z.string() }) } } },
      async (request, reply) => {
        const { code, expiresAt } = app.sessions.mintSignInCode(operatorOf(request.principal).operatorId);
        const origin = `${request.protocol}://${request.headers.host ?? request.hostname}`;
        return reply.code(201).send({ url: `${origin}/auth/sign-in?code=${encodeURIComponent(code)}`, expiresAt: new Date(expiresAt).toISOString() });
      },
    );
    server.post(
      '/api/auth/sse-ticket',
      { config: OPERATOR, schema: { tags: ['auth'], response: { 201: z.object({ ticket: z.string(), expiresAt: z.string() }) } } },
      async (request, reply) => {
        const { ticket, expiresAt } = app.sessions.mintSseTicket(operatorOf(request.principal).operatorId);
        return reply.code(201).header('cache-control', 'no-store').send({ ticket, expiresAt: new Date(expiresAt).toISOString() });
      },
    );
    server.get(
      '/api/auth/session',
      { config: OPERATOR, schema: { tags: ['auth'], response: { 200: z.object({ operatorId: z.string(), via: z.enum(['token', 'cookie']) }) } } },
      async (request) => ({ operatorId: operatorOf(request.principal).operatorId, via: request.headers.authorization ? ('token' as const) : ('cookie' as const) }),
    );
    server.post(
      '/api/auth/sign-out',
      { config: OPERATOR, schema: { tags: ['auth'], response: { 204: z.null() } } },
      async (request, reply) => {
        const session = cookieOf(request, SESSION_COOKIE);
        if (session) app.sessions.endSession(session);
        return reply.code(204).header('set-cookie', sessionCookie('', 0)).send(null);
      },
    );
  };
}
