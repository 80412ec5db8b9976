/**
 * TEAM-1, OpenID Connect sign-in against a real provider (oidc-provider) run locally: the owner
 * configures it, a person signs in through the provider's own pages over real HTTP, lands in the app
 * with a browser session, and the group → role mapping decides their roles on every sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcBrowser } from '../support/oidc-browser.js';
import { signInWithProvider } from '../support/oidc-sign-in-flow.js';
import { startLocalOidcProvider, type LocalOidcProvider } from '../support/local-oidc-provider.js';
import { acceptInvitation, sessionCookieOf } from '../support/people-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let provider: LocalOidcProvider;
let engineering: string;
let operations: string;
let handGiven: string;

async function me(cookie: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/people/me`, { headers: { cookie } });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  server = await startTestServer();
  engineering = (await createSeededWorkspace(server, 'Engineering')).id;
  operations = (await createSeededWorkspace(server, 'Operations')).id;
  handGiven = (await createSeededWorkspace(server, 'Side project')).id;
  provider = await startLocalOidcProvider(`${server.url}/auth/oidc/callback`, {
    dana: { name: 'Dana Lead', email: 'dana@example.com', email_verified: true, groups: ['eng'] },
    sam: { name: 'Sam Elsewhere', email: 'sam@example.com', email_verified: true, groups: ['marketing'] },
    pat: { name: 'Pat Invited', email: 'pat@example.com', email_verified: true, groups: [] },
  });
  const configured = await server.api('PATCH', '/api/oidc', {
    enabled: true,
    providerName: 'Acme SSO',
    issuerUrl: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    roleMappings: [
      { group: 'eng', workspaceId: engineering, role: 'member' },
      { group: 'leads', workspaceId: engineering, role: 'admin' },
      { group: 'ops', workspaceId: operations, role: 'viewer' },
    ],
  });
  if (configured.status !== 200) throw new Error(`configure failed: ${JSON.stringify(configured.body)}`);
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await server?.dispose();
});

describe('OpenID Connect sign-in (TEAM-1)', () => {
  it('shows the settings to the owner with the secret write-only, and offers the provider on the sign-in page', async () => {
    const settings = await server.api('GET', '/api/oidc');
    expect(settings.status).toBe(200);
    expect(settings.body).toMatchObject({ enabled: true, providerName: 'Acme SSO', issuerUrl: provider.issuer, clientId: provider.clientId, clientSecret: 'set', redirectUri: `${server.url}/auth/oidc/callback`, groupsClaim: 'groups' });
    expect(settings.body.scopes).toContain('openid');
    expect(JSON.stringify(settings.body)).not.toContain(provider.clientSecret);
    const option = await fetch(`${server.url}/api/auth/oidc`);
    expect(await option.json()).toEqual({ enabled: true, providerName: 'Acme SSO' });
  });

  it('signs a person in through the provider: a new account, the mapped role, a session, landing where they were going', async () => {
    const browser = new OidcBrowser();
    const callback = await signInWithProvider(browser, server.url, 'dana', `/w/${engineering}/inbox?tab=mine`);
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe(`/w/${engineering}/inbox?tab=mine`);
    const setCookie = callback.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/cc_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
    const cookie = `cc_session=${browser.cookiesFor(server.url).get('cc_session')}`;
    const who = await me(cookie);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ name: 'Dana Lead', email: 'dana@example.com', owner: false, readOnly: false, roles: [{ workspaceId: engineering, role: 'member' }] });
    // The session is a real one: it reads the workspace its role reaches, and not another.
    expect((await fetch(`${server.url}/api/workspaces/${engineering}/agents`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${server.url}/api/workspaces/${operations}/agents`, { headers: { cookie } })).status).toBe(404);
  });

  it('applies the mapping on every sign-in: a group given raises the role, a group taken away removes it; roles given by hand elsewhere stay', async () => {
    const first = new OidcBrowser();
    await signInWithProvider(first, server.url, 'dana');
    const danaId = (await me(`cc_session=${first.cookiesFor(server.url).get('cc_session')}`)).body.id as string;
    expect((await server.api('PUT', `/api/workspaces/${handGiven}/people/${danaId}/role`, { role: 'viewer' })).status).toBe(200);

    provider.accounts.get('dana')!.groups = ['eng', 'leads', 'ops'];
    const second = new OidcBrowser();
    await signInWithProvider(second, server.url, 'dana');
    const raised = await me(`cc_session=${second.cookiesFor(server.url).get('cc_session')}`);
    expect(raised.body.id).toBe(danaId);
    expect(raised.body.roles).toEqual(
      expect.arrayContaining([
        { workspaceId: engineering, role: 'admin' },
        { workspaceId: operations, role: 'viewer' },
        { workspaceId: handGiven, role: 'viewer' },
      ]),
    );

    provider.accounts.get('dana')!.groups = [];
    const third = new OidcBrowser();
    const callback = await signInWithProvider(third, server.url, 'dana');
    expect(callback.status).toBe(303);
    const lowered = await me(`cc_session=${third.cookiesFor(server.url).get('cc_session')}`);
    expect(lowered.body.roles).toEqual([{ workspaceId: handGiven, role: 'viewer' }]);
    // A role change ends the person's other sessions (TEAM-2), as it does when the owner makes it.
    expect((await me(`cc_session=${second.cookiesFor(server.url).get('cc_session')}`)).status).toBe(401);
    const members = await server.api('GET', `/api/workspaces/${engineering}/people`);
    expect(members.body.people.map((person: { id: string }) => person.id)).not.toContain(danaId);
  });

  it('writes each role a sign-in changed into the audit log: old role → new role and the group that decided (TEAM-3)', async () => {
    const browser = new OidcBrowser();
    provider.accounts.get('dana')!.groups = ['eng'];
    await signInWithProvider(browser, server.url, 'dana');
    const danaId = (await me(`cc_session=${browser.cookiesFor(server.url).get('cc_session')}`)).body.id as string;
    const changes = async (workspaceId: string) => {
      const page = await server.api('GET', `/api/workspaces/${workspaceId}/audit?kind=person.role_changed_by_provider&person=${danaId}&limit=500`);
      expect(page.status).toBe(200);
      return (page.body.entries as Array<{ actor: { kind: string; id: string; name: string }; subject: { id: string }; summary: string; details: Record<string, unknown> }>).reverse();
    };
    // Engineering saw: none → member (eng), member → admin (leads), admin → none, and this sign-in's none → member (eng).
    const engineeringChanges = await changes(engineering);
    expect(engineeringChanges.map((entry) => [entry.details.previousRole, entry.details.role, entry.details.group])).toEqual([
      [null, 'member', 'eng'],
      ['member', 'admin', 'leads'],
      ['admin', null, null],
      [null, 'member', 'eng'],
    ]);
    for (const entry of engineeringChanges) {
      expect(entry.actor).toEqual({ kind: 'person', id: danaId, name: 'Dana Lead' });
      expect(entry.subject.id).toBe(danaId);
      expect(entry.details.issuer).toBe(provider.issuer);
    }
    expect(engineeringChanges[1]!.summary).toBe("Acme SSO sign-in: Dana Lead's role member → admin (group leads)");
    expect(engineeringChanges[2]!.summary).toContain('took Dana Lead out of the workspace (was admin');
    expect((await changes(operations)).map((entry) => [entry.details.previousRole, entry.details.role, entry.details.group])).toEqual([
      [null, 'viewer', 'ops'],
      ['viewer', null, null],
    ]);
    // A sign-in that changes nothing writes nothing; a workspace the mapping does not name has no entry.
    await signInWithProvider(new OidcBrowser(), server.url, 'dana');
    expect(await changes(engineering)).toHaveLength(4);
    expect(await changes(handGiven)).toEqual([]);
  });

  it('gives someone whose groups map to nothing a clear page and no session, and makes no account for them', async () => {
    const browser = new OidcBrowser();
    const callback = await signInWithProvider(browser, server.url, 'sam');
    expect(callback.status).toBe(403);
    expect(callback.headers.get('content-type')).toContain('text/html');
    expect(callback.body).toContain('No workspace for you here');
    expect(callback.body).toContain('Sam Elsewhere');
    expect(callback.headers.getSetCookie().join('\n')).not.toContain('cc_session=');
    const everyone = await server.api('GET', '/api/people');
    expect(everyone.body.people.map((person: { name: string }) => person.name)).not.toContain('Sam Elsewhere');
  });

  it('links a provider account to the person invited with that verified email, instead of making a second account', async () => {
    const invitation = await server.api('POST', `/api/workspaces/${handGiven}/invitations`, { role: 'member' });
    const accepted = await acceptInvitation(server, invitation.body.url, { name: 'Pat', email: 'pat@example.com' });
    expect(accepted.status).toBe(303);
    const patId = (await me(sessionCookieOf(accepted))).body.id as string;
    const browser = new OidcBrowser();
    const callback = await signInWithProvider(browser, server.url, 'pat');
    expect(callback.status).toBe(303);
    const signedIn = await me(`cc_session=${browser.cookiesFor(server.url).get('cc_session')}`);
    expect(signedIn.body).toMatchObject({ id: patId, roles: [{ workspaceId: handGiven, role: 'member' }] });
  });

  it('refuses settings that could not work, naming the field, and changes nothing', async () => {
    const before = await server.api('GET', '/api/oidc');
    const cases: Array<[unknown, string]> = [
      [{ issuerUrl: 'http://idp.example.com' }, 'issuerUrl'],
      [{ issuerUrl: 'ftp://idp.example.com' }, 'issuerUrl'],
      [{ roleMappings: [{ group: 'eng', workspaceId: 'ws_nope', role: 'member' }] }, 'roleMappings.0.workspaceId'],
      [{ roleMappings: [{ group: 'eng', workspaceId: engineering, role: 'owner' }] }, 'roleMappings.0.role'],
      [{ groupsClaim: 'has space' }, 'groupsClaim'],
      [{ clientSecret: '' }, 'clientSecret'],
    ];
    for (const [body, field] of cases) {
      const refused = await server.api('PATCH', '/api/oidc', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(refused.body.error), JSON.stringify(body)).toContain(field);
    }
    expect(await server.api('GET', '/api/oidc')).toEqual(before);
  });
});
