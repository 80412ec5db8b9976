import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ForbiddenError } from '../../errors/index.js';
import { ApiError } from '../../schemas/common.js';
import { BrowserSession, CreatedInvitation, CreatedToken, CreateTokenBody, Invitation, InviteBody, Me, Person, PersonList, PersonToken, SetRoleBody, UpdateMeBody } from '../../schemas/people.js';
import type { ControlCenter } from '../../services/control-center.js';
import { SESSION_COOKIE } from '../../services/operator-sessions.js';
import { deliverInvitation } from '../../services/people/invitation-email.js';
import type { Actor } from '../../services/people/people-service.js';
import type { Principal } from '../../services/operator-auth.js';
import { cookieOf, operatorOf } from '../authenticate.js';
import { WorkspaceParams } from './workspace-routes.js';

const tags = ['people'];
const PersonParams = z.strictObject({ personId: z.string().min(1) });
const MemberParams = WorkspaceParams.extend({ personId: z.string().min(1) });

/**
 * The acting person. `changes`: the call changes something of theirs, which a read-only credential
 * (a viewer-capped token, or a session opened through one) may not do.
 */
export function actorOf(principal: Principal | null, changes = false): Actor {
  const operator = operatorOf(principal);
  if (changes && operator.readOnly === true) throw new ForbiddenError('this credential is read-only: it changes nothing', 'authorization');
  return { personId: operator.operatorId, readOnly: operator.readOnly === true };
}

/** The link an invitation code is redeemed at, on the host the inviter reached. */
function joinUrl(request: { protocol: string; hostname: string; headers: { host?: string | undefined } }, code: string): string {
  return `${request.protocol}://${request.headers.host ?? request.hostname}/auth/join?code=${encodeURIComponent(code)}`;
}

/**
 * TEAM-1/TEAM-2: people, their roles per workspace, invitations, and each person's own tokens and
 * browser sessions. Managing people is the owner's; inviting into a workspace is its admins' too.
 */
export function peopleRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get('/api/people/me', { config: { role: 'signedIn' }, schema: { tags, summary: 'Who this credential stands for, and their roles', response: { 200: Me } } }, async (request) =>
      app.people.me(actorOf(request.principal)),
    );
    server.patch(
      '/api/people/me',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'Change your own name, email or avatar (never your role)', body: UpdateMeBody, response: { 200: Me, 400: ApiError, 403: ApiError, 409: ApiError } } },
      async (request) => app.people.updateMe(actorOf(request.principal, true), request.body),
    );
    server.get('/api/people', { config: { role: 'owner' }, schema: { tags, summary: 'Everyone with an account (the owner manages people)', response: { 200: PersonList } } }, async () => ({
      people: await app.people.list(),
    }));
    server.delete(
      '/api/people/:personId',
      { config: { role: 'owner' }, schema: { tags, summary: 'Remove a person: their tokens, sessions and open streams end at once', params: PersonParams, response: { 204: z.null(), 403: ApiError, 404: ApiError } } },
      async (request, reply) => {
        await app.people.remove(actorOf(request.principal, true), request.params.personId);
        return reply.code(204).send(null);
      },
    );

    server.get(
      '/api/workspaces/:workspaceId/people',
      { config: { role: 'viewer' }, schema: { tags, summary: 'The people of a workspace with their roles (the owner included)', params: WorkspaceParams, response: { 200: PersonList, 404: ApiError } } },
      async (request) => {
        await app.workspaces.get(request.params.workspaceId);
        return { people: await app.people.list(request.params.workspaceId) };
      },
    );
    server.put(
      '/api/workspaces/:workspaceId/people/:personId/role',
      {
        config: { role: 'owner' },
        schema: { tags, summary: "Set a person's role in a workspace (never your own); their browser sessions end", params: MemberParams, body: SetRoleBody, response: { 200: Person, 400: ApiError, 403: ApiError, 404: ApiError } },
      },
      async (request) => {
        await app.workspaces.get(request.params.workspaceId);
        return app.people.setRole(actorOf(request.principal, true), request.params.workspaceId, request.params.personId, request.body.role);
      },
    );
    server.delete(
      '/api/workspaces/:workspaceId/people/:personId',
      { config: { role: 'owner' }, schema: { tags, summary: 'Take a person out of a workspace; their browser sessions end', params: MemberParams, response: { 204: z.null(), 403: ApiError, 404: ApiError } } },
      async (request, reply) => {
        await app.workspaces.get(request.params.workspaceId);
        await app.people.removeFromWorkspace(actorOf(request.principal, true), request.params.workspaceId, request.params.personId);
        return reply.code(204).send(null);
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/invitations',
      {
        config: { role: 'admin' },
        schema: { tags, summary: 'Invite someone into this workspace with a role: a one-time link that expires (shown once)', params: WorkspaceParams, body: InviteBody, response: { 201: CreatedInvitation, 400: ApiError, 404: ApiError, 409: ApiError } },
      },
      async (request, reply) => {
        const workspace = await app.workspaces.get(request.params.workspaceId);
        const actor = actorOf(request.principal, true);
        const { code, ...invitation } = await app.people.invite(actor, request.params.workspaceId, request.body.role, request.body.email);
        const url = joinUrl(request, code);
        const letter = invitation.email
          ? { email: invitation.email, url, role: invitation.role, workspaceName: workspace.name, inviterName: (await app.people.person(actor.personId)).name, expiresAt: invitation.expiresAt }
          : null;
        const delivery = await deliverInvitation(app.notifications, letter);
        return reply.code(201).header('cache-control', 'no-store').send({ ...invitation, url, delivery });
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/invitations',
      { config: { role: 'admin' }, schema: { tags, summary: "This workspace's invitations, used and expired ones included (never their codes)", params: WorkspaceParams, response: { 200: z.object({ invitations: z.array(Invitation) }), 404: ApiError } } },
      async (request) => ({ invitations: await app.people.invitations(request.params.workspaceId) }),
    );

    server.get('/api/people/me/tokens', { config: { role: 'signedIn' }, schema: { tags, summary: 'Your personal API tokens (never their values)', response: { 200: z.object({ tokens: z.array(PersonToken) }) } } }, async (request) => ({
      tokens: await app.people.tokens(actorOf(request.principal)),
    }));
    server.post(
      '/api/people/me/tokens',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'Make a personal API token, optionally read-only (acts as a viewer); shown once', body: CreateTokenBody, response: { 201: CreatedToken, 400: ApiError, 403: ApiError } } },
      async (request, reply) => {
        const actor = actorOf(request.principal);
        // A read-only credential may make a token, but only a read-only one: it cannot mint more power than it has.
        const created = await app.people.createToken(actor, request.body.name, request.body.readOnly);
        return reply.code(201).header('cache-control', 'no-store').send(created);
      },
    );
    server.delete(
      '/api/people/me/tokens/:tokenId',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'Revoke one of your tokens: it stops working at once', params: z.strictObject({ tokenId: z.string().min(1) }), response: { 204: z.null(), 403: ApiError, 404: ApiError } } },
      async (request, reply) => {
        await app.people.revokeToken(actorOf(request.principal, true), request.params.tokenId);
        return reply.code(204).send(null);
      },
    );
    server.get(
      '/api/people/me/sessions',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'Your open browser sessions', response: { 200: z.object({ sessions: z.array(BrowserSession) }) } } },
      async (request) => {
        const actor = actorOf(request.principal);
        const cookie = cookieOf(request, SESSION_COOKIE);
        const current = cookie ? app.sessions.sessionIdOf(cookie) : null;
        return {
          sessions: (await app.sessions.sessionsOf(actor.personId)).map((session) => ({
            id: session.id,
            createdAt: new Date(session.createdAt).toISOString(),
            expiresAt: new Date(session.expiresAt).toISOString(),
            lastSeenAt: new Date(session.lastSeenAt).toISOString(),
            current: session.id === current,
          })),
        };
      },
    );
    server.delete(
      '/api/people/me/sessions/:sessionId',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'End one of your browser sessions', params: z.strictObject({ sessionId: z.string().min(1).max(64) }), response: { 204: z.null(), 404: ApiError } } },
      async (request, reply) => {
        const actor = actorOf(request.principal);
        if (!(await app.people.endSession(actor, request.params.sessionId))) {
          return reply.code(404).send({ error: { code: 'not_found', message: `session '${request.params.sessionId}' not found`, field: 'sessionId' } });
        }
        return reply.code(204).send(null);
      },
    );
  };
}
