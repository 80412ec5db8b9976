import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ValidationError } from '../../errors/index.js';
import { ApiError } from '../../schemas/common.js';
import type { ControlCenter } from '../../services/control-center.js';
import { SESSION_COOKIE, SESSION_TTL_MS } from '../../services/operator-sessions.js';
import { AcceptInvitationBody } from '../../schemas/people.js';
import { sessionCredential } from '../../services/people/credential-revocations.js';
import { cookieOf, operatorOf } from '../authenticate.js';
import { joinPage } from './join-page.js';

const OPERATOR = { access: 'operator' } as const;

/** The session cookie: HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it). */
export function sessionCookie(value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
}

/**
 * Sign-in without copying a token: the one-time link, the browser session it opens, the
 * single-use SSE ticket, and signing out. Minting codes and tickets is operator-only: an agent's run
 * token is refused by those routes like every operator route (SEC-1).
 */
export function authRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    // The invitation form posts form-encoded fields; only this plugin's routes read that type.
    server.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
    });
    server.get(
      '/auth/sign-in',
      {
        // Public by necessity: the code in the link IS the credential. It is single-use and short-lived.
        config: { access: 'public' },
        schema: { tags: ['auth'], querystring: z.object({ code: z.string().min(1).max(200) }), response: { 303: z.null(), 400: ApiError } },
      },
      async (request, reply) => {
        const redeemed = await app.sessions.redeemSignInCode(request.query.code);
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
    // TEAM-1: invitation links. Public by necessity like the sign-in link: the code is the credential,
    // it works once and expires. GET only shows the form (link previewers fetch links and must not use
    // them up); the form's POST makes the account, opens a session and lands in the app.
    server.get(
      '/auth/join',
      { config: { access: 'public' }, schema: { tags: ['auth'], querystring: z.object({ code: z.string().min(1).max(200) }), response: { 200: z.string(), 400: ApiError } } },
      async (request, reply) => {
        const invitation = await app.people.pendingInvitation(request.query.code);
        if (!invitation) throw new ValidationError('code', 'this invitation link is unknown, already used or expired: ask for a new one');
        const workspace = await app.workspaces.get(invitation.workspaceId);
        return reply
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
          .send(joinPage({ code: request.query.code, workspaceName: workspace.name, role: invitation.role, email: invitation.email }));
      },
    );
    server.post(
      '/auth/join',
      { config: { access: 'public' }, schema: { tags: ['auth'], body: AcceptInvitationBody, response: { 303: z.null(), 400: ApiError, 403: ApiError, 409: ApiError } } },
      async (request, reply) => {
        // A browser's form post names its origin: one from another site is refused (no signing a visitor into someone else's account).
        const origin = request.headers.origin;
        if (typeof origin === 'string' && origin !== 'null' && new URL(origin).host !== request.headers.host) {
          return reply.code(403).send({ error: { code: 'forbidden', message: "an invitation is accepted from this server's own page (Origin)", field: 'origin' } });
        }
        const person = await app.people.accept(request.body.code, request.body.name, request.body.email);
        const { session } = await app.sessions.openSession({ operatorId: person.id, readOnly: false });
        return reply
          .code(303)
          .header('set-cookie', sessionCookie(session, Math.floor(SESSION_TTL_MS / 1000)))
          .header('cache-control', 'no-store')
          .header('location', '/')
          .send(null);
      },
    );
    server.post(
      '/api/auth/sign-in-link',
      { config: { ...OPERATOR, role: 'signedIn' }, schema: { tags: ['auth'], response: { 201: z.object({ url: z.string(), expiresAt: z.string() }) } } },
      async (request, reply) => {
        const person = operatorOf(request.principal);
        // A read-only credential's link opens a read-only session: a link is never more than what minted it.
        const { code, expiresAt } = await app.sessions.mintSignInCode(person.operatorId, person.readOnly === true);
        const origin = `${request.protocol}://${request.headers.host ?? request.hostname}`;
        return reply.code(201).send({ url: `${origin}/auth/sign-in?code=${encodeURIComponent(code)}`, expiresAt: new Date(expiresAt).toISOString() });
      },
    );
    server.post(
      '/api/auth/sse-ticket',
      { config: { ...OPERATOR, role: 'signedIn' }, schema: { tags: ['auth'], response: { 201: z.object({ ticket: z.string(), expiresAt: z.string() }) } } },
      async (request, reply) => {
        const person = operatorOf(request.principal);
        // The stream it opens remembers this credential: revoking the session or token closes it.
        const { ticket, expiresAt } = await app.sessions.mintSseTicket(person.operatorId, person.readOnly === true, person.credential ?? null);
        return reply.code(201).header('cache-control', 'no-store').send({ ticket, expiresAt: new Date(expiresAt).toISOString() });
      },
    );
    server.get(
      '/api/auth/session',
      { config: { ...OPERATOR, role: 'signedIn' }, schema: { tags: ['auth'], response: { 200: z.object({ operatorId: z.string(), via: z.enum(['token', 'cookie']) }) } } },
      async (request) => ({ operatorId: operatorOf(request.principal).operatorId, via: request.headers.authorization ? ('token' as const) : ('cookie' as const) }),
    );
    server.post(
      '/api/auth/sign-out',
      { config: { ...OPERATOR, role: 'signedIn' }, schema: { tags: ['auth'], response: { 204: z.null() } } },
      async (request, reply) => {
        const session = cookieOf(request, SESSION_COOKIE);
        // Signing out ends the session everywhere, and the streams it opened on every process.
        const ended = session ? await app.sessions.endSession(session) : null;
        if (ended) await app.revocations.announce({ personId: ended.operatorId, credential: sessionCredential(ended.id) });
        return reply.code(204).header('set-cookie', sessionCookie('', 0)).send(null);
      },
    );
  };
}
