/**
 * TEAM-1/TEAM-2 under attack: a viewer's token cannot approve, change policy, read keys or start runs
 * (403, nothing changed); nobody changes their own role; invitation links cannot be replayed or used
 * after expiry; removing a person or changing their role ends their sessions and closes their open
 * event stream at once; a read-only token cannot mint a stronger one; an agent's run token is never a
 * person; the MCP approval tools act with the caller's role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPendingApproval, workspaceApi } from '../support/harness-approvals.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { acceptInvitation, asPerson, invitePerson, type InvitedPerson } from '../support/people-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
let viewer: InvitedPerson;
let member: InvitedPerson;
let admin: InvitedPerson;
const ws = () => `/api/workspaces/${fixture.workspaceId}`;

beforeAll(async () => {
  fixture = await startHarnessFixture();
  viewer = await invitePerson(fixture.server, fixture.workspaceId, 'viewer', 'Vic');
  member = await invitePerson(fixture.server, fixture.workspaceId, 'member', 'Dana');
  admin = await invitePerson(fixture.server, fixture.workspaceId, 'admin', 'Ada');
}, 120_000);

afterAll(async () => {
  await fixture?.dispose();
});

/** Reads an open event stream until the server ends it; resolves with whether it ended (false: still open after `ms`). */
async function endsWithin(body: ReadableStream<Uint8Array>, ms: number): Promise<boolean> {
  const reader = body.getReader();
  const timeout = new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms));
  for (;;) {
    const next = await Promise.race([reader.read(), timeout]);
    if (next === 'open') {
      await reader.cancel();
      return false;
    }
    if (next.done) return true;
  }
}

/** An MCP tools/call over the server's streamable HTTP endpoint, as a person's MCP client sends it. */
async function mcpCall(token: string, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const response = await fetch(`${fixture.server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data: '))!.slice('data: '.length);
  const result = (JSON.parse(json) as { result: { isError?: boolean; content: Array<{ text: string }> } }).result;
  return { isError: result.isError === true, text: result.content[0]!.text };
}

describe('a viewer decides nothing (TEAM-2)', () => {
  it('cannot approve — by API or the MCP tool — change policy, read keys or start runs; a member approves, recorded as them', async () => {
    await fixture.server.api('PATCH', `${ws()}/settings`, { apiKeys: { anthropic: 'sk-ant-secret-key-value' } });
    fixture.model.script(reply().tool('bash', { command: 'rm -f draft.txt' }), reply().text('done'));
    const runId = await fixture.send('tidy up');
    const approval = await nextPendingApproval(fixture, new Set());
    const rulesBefore = (await workspaceApi(fixture, 'GET', '/policy/rules')).body;
    const messagesBefore = (await workspaceApi(fixture, 'GET', `/conversations/${fixture.conversationId}/messages`)).body;

    const decision = await asPerson(fixture.server, viewer.token, 'POST', `${ws()}/approvals/${approval.id}/decision`, { decision: 'approve' });
    expect(decision.status).toBe(403);
    expect(decision.body.error).toMatchObject({ code: 'forbidden', field: 'role' });
    const viaMcp = await mcpCall(viewer.token, 'decide_approval', { workspaceId: fixture.workspaceId, approvalId: approval.id, decision: 'approve' });
    expect(viaMcp).toMatchObject({ isError: true });
    expect(viaMcp.text).toContain('forbidden');
    const policy = await asPerson(fixture.server, viewer.token, 'POST', `${ws()}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'allow' });
    expect(policy.status).toBe(403);
    const message = await asPerson(fixture.server, viewer.token, 'POST', `${ws()}/conversations/${fixture.conversationId}/messages`, { text: 'run something' });
    expect(message.status).toBe(403);
    const settings = await asPerson(fixture.server, viewer.token, 'GET', `${ws()}/settings`);
    expect(settings.status).toBe(200);
    expect(JSON.stringify(settings.body)).not.toContain('sk-ant-secret-key-value');

    // Nothing changed: the approval still waits, the rules and the conversation are as they were.
    const pending = (await workspaceApi(fixture, 'GET', '/approvals?status=pending')).body.approvals as Array<{ id: string }>;
    expect(pending.map((entry) => entry.id)).toContain(approval.id);
    expect((await workspaceApi(fixture, 'GET', '/policy/rules')).body).toEqual(rulesBefore);
    expect((await workspaceApi(fixture, 'GET', `/conversations/${fixture.conversationId}/messages`)).body).toEqual(messagesBefore);

    // The member's MCP client decides as the member: the approval records who.
    const approved = await mcpCall(member.token, 'decide_approval', { workspaceId: fixture.workspaceId, approvalId: approval.id, decision: 'approve' });
    expect(approved.isError).toBe(false);
    await fixture.waitForRun(runId);
    const decided = (await workspaceApi(fixture, 'GET', '/approvals')).body.approvals.find((entry: { id: string }) => entry.id === approval.id);
    expect(decided).toMatchObject({ status: 'approved', decidedBy: member.personId });
    const people = (await asPerson(fixture.server, viewer.token, 'GET', `${ws()}/people`)).body.people as Array<{ id: string; name: string; role: string | null }>;
    expect(people.find((person) => person.id === decided.decidedBy)).toMatchObject({ name: 'Dana', role: 'member' });
  }, 60_000);
});

describe('roles are changed by the owner, never by oneself (TEAM-2)', () => {
  it('an admin cannot raise or set their own role, nor anyone\'s; the owner cannot set their own', async () => {
    const own = await asPerson(fixture.server, admin.token, 'PUT', `${ws()}/people/${admin.personId}/role`, { role: 'admin' });
    expect(own.status).toBe(403);
    const other = await asPerson(fixture.server, admin.token, 'PUT', `${ws()}/people/${viewer.personId}/role`, { role: 'admin' });
    expect(other.status).toBe(403);
    const ownerId = (await fixture.server.api('GET', '/api/people/me')).body.id as string;
    const byOwner = await fixture.server.api('PUT', `${ws()}/people/${ownerId}/role`, { role: 'viewer' });
    expect(byOwner.status).toBe(403);
    expect(byOwner.body.error.field).toBe('personId');
    const roles = (await fixture.server.api('GET', `${ws()}/people`)).body.people as Array<{ id: string; role: string | null }>;
    expect(roles.find((person) => person.id === viewer.personId)?.role).toBe('viewer');
    expect(roles.find((person) => person.id === admin.personId)?.role).toBe('admin');
  });

  it('a bad role is refused naming the field, and changes nothing', async () => {
    const response = await fixture.server.api('PUT', `${ws()}/people/${viewer.personId}/role`, { role: 'owner' });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('role');
    const roles = (await fixture.server.api('GET', `${ws()}/people`)).body.people as Array<{ id: string; role: string | null }>;
    expect(roles.find((person) => person.id === viewer.personId)?.role).toBe('viewer');
  });
});

describe('invitations (TEAM-1)', () => {
  it('work once: a replayed link is refused and makes no second account', async () => {
    const invitation = await asPerson(fixture.server, admin.token, 'POST', `${ws()}/invitations`, { role: 'member', email: 'sam@example.com' });
    expect(invitation.status).toBe(201);
    expect((await acceptInvitation(fixture.server, invitation.body.url, { name: 'Sam' })).status).toBe(303);
    const replay = await acceptInvitation(fixture.server, invitation.body.url, { name: 'Mallory' });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: { field: string } }).error.field).toBe('code');
    const everyone = (await fixture.server.api('GET', '/api/people')).body.people as Array<{ name: string; email: string | null }>;
    expect(everyone.filter((person) => person.email === 'sam@example.com').map((person) => person.name)).toEqual(['Sam']);
    expect(everyone.some((person) => person.name === 'Mallory')).toBe(false);
  });

  it('expire: a link past its time is refused, and its form does not open', async () => {
    const invitation = await fixture.server.api('POST', `${ws()}/invitations`, { role: 'viewer' });
    await fixture.server.running.app.registry.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', invitation.body.id).execute();
    expect((await fetch(invitation.body.url)).status).toBe(400);
    expect((await acceptInvitation(fixture.server, invitation.body.url, { name: 'Late' })).status).toBe(400);
    const everyone = (await fixture.server.api('GET', '/api/people')).body.people as Array<{ name: string }>;
    expect(everyone.some((person) => person.name === 'Late')).toBe(false);
  });

  it('are made by admins and the owner, not by members or viewers', async () => {
    for (const person of [member, viewer]) {
      const refused = await asPerson(fixture.server, person.token, 'POST', `${ws()}/invitations`, { role: 'admin' });
      expect(refused.status).toBe(403);
    }
    expect((await fixture.server.api('GET', `${ws()}/invitations`)).body.invitations.every((entry: { role: string; invitedBy: string }) => entry.role !== 'admin' || entry.invitedBy !== member.personId)).toBe(true);
  });
});

describe('access ends at once (TEAM-2)', () => {
  it('a changed role ends the person\'s browser sessions and closes their open event stream; the token follows the new role', async () => {
    const person = await invitePerson(fixture.server, fixture.workspaceId, 'admin', 'Rory');
    const stream = await fetch(`${fixture.server.url}${ws()}/events`, { headers: { cookie: person.cookie } });
    expect(stream.status).toBe(200);
    expect((await fixture.server.api('PUT', `${ws()}/people/${person.personId}/role`, { role: 'viewer' })).status).toBe(200);
    expect(await endsWithin(stream.body!, 30_000)).toBe(true);
    expect((await fetch(`${fixture.server.url}/api/people/me`, { headers: { cookie: person.cookie } })).status).toBe(401);
    expect((await asPerson(fixture.server, person.token, 'GET', `${ws()}/agents`)).status).toBe(200);
    expect((await asPerson(fixture.server, person.token, 'POST', `${ws()}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'allow' })).status).toBe(403);
  }, 60_000);

  it('removing a person revokes their tokens, ends their sessions and closes their open event stream', async () => {
    const person = await invitePerson(fixture.server, fixture.workspaceId, 'member', 'Kim');
    const ticket = (await asPerson(fixture.server, person.token, 'POST', '/api/auth/sse-ticket')).body.ticket as string;
    const stream = await fetch(`${fixture.server.url}${ws()}/events?ticket=${encodeURIComponent(ticket)}`);
    expect(stream.status).toBe(200);
    expect((await fixture.server.api('DELETE', `/api/people/${person.personId}`)).status).toBe(204);
    expect(await endsWithin(stream.body!, 30_000)).toBe(true);
    expect((await asPerson(fixture.server, person.token, 'GET', '/api/people/me')).status).toBe(401);
    expect((await fetch(`${fixture.server.url}/api/people/me`, { headers: { cookie: person.cookie } })).status).toBe(401);
    expect((await fixture.server.api('DELETE', `/api/people/${(await fixture.server.api('GET', '/api/people/me')).body.id}`)).status).toBe(403);
  }, 60_000);
});

describe('credentials are no more than what made them', () => {
  it('a read-only token reads, changes nothing, and can only make read-only tokens and sessions', async () => {
    const made = await asPerson(fixture.server, admin.token, 'POST', '/api/people/me/tokens', { name: 'dashboards', readOnly: true });
    expect(made.status).toBe(201);
    const readOnly = made.body.token as string;
    expect((await asPerson(fixture.server, readOnly, 'GET', `${ws()}/policy/rules`)).status).toBe(200);
    expect((await asPerson(fixture.server, readOnly, 'PATCH', `${ws()}/settings`, { delegationDepth: 3 })).status).toBe(403);
    const stronger = await asPerson(fixture.server, readOnly, 'POST', '/api/people/me/tokens', { name: 'escalate', readOnly: false });
    expect(stronger.status).toBe(201);
    expect(stronger.body.readOnly).toBe(true);
    expect((await asPerson(fixture.server, stronger.body.token, 'PATCH', `${ws()}/settings`, { delegationDepth: 3 })).status).toBe(403);
    const link = (await asPerson(fixture.server, readOnly, 'POST', '/api/auth/sign-in-link')).body.url as string;
    const signedIn = await fetch(link, { redirect: 'manual' });
    const cookie = /cc_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')![0];
    const viaSession = await fetch(`${fixture.server.url}${ws()}/settings`, { method: 'PATCH', headers: { cookie, origin: fixture.server.url, 'content-type': 'application/json' }, body: JSON.stringify({ delegationDepth: 3 }) });
    expect(viaSession.status).toBe(403);
  });

  it('an agent\'s run token is never a person', async () => {
    const runToken = fixture.server.running.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId: 'run_attacker', agentId: Object.values(fixture.agents)[0]!.id });
    expect((await asPerson(fixture.server, runToken, 'GET', '/api/people/me')).status).toBe(401);
    expect((await asPerson(fixture.server, runToken, 'POST', `${ws()}/invitations`, { role: 'admin' })).status).toBe(401);
    const viaMcp = await mcpCall(runToken, 'decide_approval', { workspaceId: fixture.workspaceId, approvalId: 'ap_0000000000', decision: 'approve' });
    expect(viaMcp.isError).toBe(true);
  });
});

describe('a person\'s own credentials (TEAM-1)', () => {
  it('lists their browser sessions and ends one: that cookie stops working, the others keep theirs', async () => {
    const person = await invitePerson(fixture.server, fixture.workspaceId, 'member', 'Sol');
    const second = (await asPerson(fixture.server, person.token, 'POST', '/api/auth/sign-in-link')).body.url as string;
    const otherCookie = /cc_session=[^;]+/.exec((await fetch(second, { redirect: 'manual' })).headers.get('set-cookie') ?? '')![0];
    const listed = await fetch(`${fixture.server.url}/api/people/me/sessions`, { headers: { cookie: person.cookie } });
    const sessions = ((await listed.json()) as { sessions: Array<{ id: string; current: boolean }> }).sessions;
    expect(sessions).toHaveLength(2);
    const current = sessions.find((session) => session.current)!;
    const ended = await asPerson(fixture.server, person.token, 'DELETE', `/api/people/me/sessions/${current.id}`);
    expect(ended.status).toBe(204);
    expect((await fetch(`${fixture.server.url}/api/people/me`, { headers: { cookie: person.cookie } })).status).toBe(401);
    expect((await fetch(`${fixture.server.url}/api/people/me`, { headers: { cookie: otherCookie } })).status).toBe(200);
    // Another person's session id is not theirs to end: the same 404 as an unknown one.
    const others = await asPerson(fixture.server, viewer.token, 'DELETE', `/api/people/me/sessions/${sessions.find((session) => !session.current)!.id}`);
    expect(others.status).toBe(404);
    expect((await fetch(`${fixture.server.url}/api/people/me`, { headers: { cookie: otherCookie } })).status).toBe(200);
  });

  it('revokes a token at once, lists tokens without their values, and refuses bad input naming the field', async () => {
    const made = await asPerson(fixture.server, member.token, 'POST', '/api/people/me/tokens', { name: 'laptop' });
    expect(made.status).toBe(201);
    const listed = await asPerson(fixture.server, member.token, 'GET', '/api/people/me/tokens');
    expect(listed.body.tokens.map((token: { name: string }) => token.name)).toContain('laptop');
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    expect((await asPerson(fixture.server, made.body.token, 'GET', '/api/people/me')).status).toBe(200);
    expect((await asPerson(fixture.server, member.token, 'DELETE', `/api/people/me/tokens/${made.body.id}`)).status).toBe(204);
    expect((await asPerson(fixture.server, made.body.token, 'GET', '/api/people/me')).status).toBe(401);
    // Another person's token id is not theirs to revoke.
    expect((await asPerson(fixture.server, viewer.token, 'DELETE', `/api/people/me/tokens/${made.body.id}`)).status).toBe(404);

    const noName = await asPerson(fixture.server, member.token, 'POST', '/api/people/me/tokens', { name: '' });
    expect(noName.status).toBe(400);
    expect(JSON.stringify(noName.body)).toContain('name');
    const badEmail = await asPerson(fixture.server, member.token, 'PATCH', '/api/people/me', { email: 'not an email' });
    expect(badEmail.status).toBe(400);
    expect(JSON.stringify(badEmail.body)).toContain('email');
    const taken = await asPerson(fixture.server, member.token, 'PATCH', '/api/people/me', { email: 'sam@example.com' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.field).toBe('email');
    expect((await asPerson(fixture.server, member.token, 'GET', '/api/people/me')).body).toMatchObject({ name: 'Dana', email: null });
  });
});

describe('what a person sees of other workspaces (TEAM-2)', () => {
  it('lists only the workspaces they hold a role in; the owner lists all', async () => {
    const other = await fixture.server.api('POST', '/api/workspaces', { name: 'Elsewhere' });
    expect(other.status).toBe(201);
    await fixture.server.running.app.seeding.settle();
    const seen = (await asPerson(fixture.server, viewer.token, 'GET', '/api/workspaces')).body.workspaces as Array<{ id: string }>;
    expect(seen.map((workspace) => workspace.id)).toEqual([fixture.workspaceId]);
    const all = (await fixture.server.api('GET', '/api/workspaces')).body.workspaces as Array<{ id: string }>;
    expect(all.map((workspace) => workspace.id)).toContain(other.body.id);
  });

  it('the invitation form shows a hostile workspace name as text, under a policy that runs no script', async () => {
    const hostile = await fixture.server.api('POST', '/api/workspaces', { name: '<img src=x onerror=alert(1)>"' });
    expect(hostile.status).toBe(201);
    await fixture.server.running.app.seeding.settle();
    const invitation = await fixture.server.api('POST', `/api/workspaces/${hostile.body.id}/invitations`, { role: 'viewer' });
    const page = await fetch(invitation.body.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#34;');
    // Showing the form does not use the link up.
    expect((await acceptInvitation(fixture.server, invitation.body.url, { name: 'Pat' })).status).toBe(303);
  });
});

