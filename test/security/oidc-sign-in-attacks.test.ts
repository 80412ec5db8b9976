/**
 * TEAM-1, OpenID Connect sign-in under attack: replayed, forged and stolen state, an expired code,
 * the provider's own refusal, ID tokens for another issuer or audience, with a wrong nonce, expired or
 * signed by a stranger, a removed person, and open redirects through `returnTo`. Every refusal is a
 * 400/403 naming what was wrong, and no browser session is opened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileOidcProvider, type HostileOidcProvider, type IdTokenForgery } from '../support/hostile-oidc-provider.js';
import { startLocalOidcProvider, type LocalOidcProvider } from '../support/local-oidc-provider.js';
import { OidcBrowser, type Hop } from '../support/oidc-browser.js';
import { callbackFromProvider, signInWithProvider } from '../support/oidc-sign-in-flow.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let provider: LocalOidcProvider;
let hostile: HostileOidcProvider;
let workspaceId: string;

function expectRefused(hop: Hop, status: number, field: string): void {
  expect(hop.status, hop.body).toBe(status);
  expect(JSON.parse(hop.body).error.field, hop.body).toBe(field);
  expect(hop.headers.getSetCookie().join('\n')).not.toMatch(/cc_session=[^;]/);
}

async function pendingSignIns(): Promise<number> {
  return (await server.running.app.registry.db.selectFrom('oidc_pending_sign_ins').select('state_hash').execute()).length;
}

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Engineering')).id;
  provider = await startLocalOidcProvider(`${server.url}/auth/oidc/callback`, {
    dana: { name: 'Dana', groups: ['eng'] },
    remy: { name: 'Remy', groups: ['eng'] },
  });
  hostile = await startHostileOidcProvider();
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await hostile?.close();
  await server?.dispose();
});

describe('through a real provider', () => {
  beforeAll(async () => {
    const configured = await server.api('PATCH', '/api/oidc', {
      enabled: true,
      issuerUrl: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      roleMappings: [{ group: 'eng', workspaceId, role: 'member' }],
    });
    expect(configured.status).toBe(200);
  });

  it('refuses a forged state, even from a browser with a sign-in under way', async () => {
    const browser = new OidcBrowser();
    await callbackFromProvider(browser, server.url, 'dana');
    expectRefused(await browser.request(`${server.url}/auth/oidc/callback?code=made-up&state=forged-state`), 400, 'state');
    expectRefused(await browser.request(`${server.url}/auth/oidc/callback?code=made-up`), 400, 'state');
    // A state given twice (one forged beside the real one) is not read either way.
    const real = new URL(await callbackFromProvider(browser, server.url, 'dana')).searchParams.get('state')!;
    expectRefused(await browser.request(`${server.url}/auth/oidc/callback?code=made-up&state=${real}&state=forged`), 400, 'state');
  });

  it('refuses a replayed callback: the sign-in under way is used up by its first answer', async () => {
    const browser = new OidcBrowser();
    const callback = await callbackFromProvider(browser, server.url, 'dana');
    const cookieBefore = browser.cookieHeader(server.url);
    expect((await browser.request(callback)).status).toBe(303);
    const replay = await fetch(callback, { redirect: 'manual', headers: { cookie: cookieBefore } });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: { field: string } }).error.field).toBe('state');
    expect(replay.headers.getSetCookie().join('\n')).not.toMatch(/cc_session=[^;]/);
  });

  it("refuses a callback in a browser that did not start the sign-in (no signing a visitor into the attacker's account)", async () => {
    const attacker = new OidcBrowser();
    const callback = await callbackFromProvider(attacker, server.url, 'dana');
    const victim = new OidcBrowser();
    expectRefused(await victim.request(callback), 400, 'state');
    // A victim with a sign-in of their own under way is refused too: the cookie binds one sign-in, not any.
    const busyVictim = new OidcBrowser();
    await callbackFromProvider(busyVictim, server.url, 'remy');
    const attackerAgain = await callbackFromProvider(new OidcBrowser(), server.url, 'dana');
    expectRefused(await busyVictim.request(attackerAgain), 400, 'state');
  });

  it('refuses an expired code', async () => {
    provider.shortCodes = true;
    try {
      const browser = new OidcBrowser();
      const callback = await callbackFromProvider(browser, server.url, 'dana');
      // The provider's codes now live one second; this waits the code out (the provider's clock, not an assertion on ours).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expectRefused(await browser.request(callback), 400, 'code');
    } finally {
      provider.shortCodes = false;
    }
  });

  it("refuses the provider's own error answer", async () => {
    const browser = new OidcBrowser();
    const callback = new URL(await callbackFromProvider(browser, server.url, 'dana'));
    callback.searchParams.delete('code');
    callback.searchParams.set('error', 'access_denied');
    callback.searchParams.set('error_description', 'the person said no');
    expectRefused(await browser.request(callback.href), 400, 'error');
  });

  it('refuses a person the owner removed, though the provider still signs them in', async () => {
    const browser = new OidcBrowser();
    expect((await signInWithProvider(browser, server.url, 'remy')).status).toBe(303);
    const me = await fetch(`${server.url}/api/people/me`, { headers: { cookie: `cc_session=${browser.cookiesFor(server.url).get('cc_session')}` } });
    const remyId = ((await me.json()) as { id: string }).id;
    expect((await server.api('DELETE', `/api/people/${remyId}`)).status).toBe(204);
    expectRefused(await signInWithProvider(new OidcBrowser(), server.url, 'remy'), 403, 'authorization');
  });

  it('refuses a returnTo that leaves this server, before anything is kept', async () => {
    const before = await pendingSignIns();
    for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/\t/evil.example', 'javascript:alert(1)', 'evil.example', '\\\\evil.example']) {
      const browser = new OidcBrowser();
      const hop = await browser.request(`${server.url}/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`);
      expectRefused(hop, 400, 'returnTo');
      expect(hop.headers.get('location')).toBeNull();
      expect(hop.headers.getSetCookie()).toEqual([]);
    }
    expect(await pendingSignIns()).toBe(before);
  });
});

describe('ID tokens a provider gone wrong (or a forger in the path) would send', () => {
  beforeAll(async () => {
    const configured = await server.api('PATCH', '/api/oidc', { enabled: true, issuerUrl: hostile.issuer, clientId: hostile.clientId, clientSecret: null, roleMappings: [{ group: 'eng', workspaceId, role: 'member' }] });
    expect(configured.status).toBe(200);
  });

  async function signInWith(forge: IdTokenForgery): Promise<Hop> {
    hostile.forge = forge;
    const browser = new OidcBrowser();
    return browser.request(await callbackFromProvider(browser, server.url, 'mallory'));
  }

  it('accepts the honest token (so each refusal below is about the one claim changed)', async () => {
    const hop = await signInWith((honest) => ({ claims: honest }));
    expect(hop.status, hop.body).toBe(303);
  });

  const forgeries: Array<[string, IdTokenForgery, string]> = [
    ['a wrong nonce', (honest) => ({ claims: { ...honest, nonce: 'another-sign-in' } }), 'nonce'],
    ['no nonce', (honest) => ({ claims: { ...honest, nonce: undefined } }), 'nonce'],
    ['another issuer', (honest) => ({ claims: { ...honest, iss: 'https://other-idp.example' } }), 'id_token'],
    ['another audience', (honest) => ({ claims: { ...honest, aud: 'another-client' } }), 'id_token'],
    ['an expired token', (honest) => ({ claims: { ...honest, iat: Number(honest.iat) - 3_600, exp: Number(honest.iat) - 1_800 } }), 'id_token'],
    ["a stranger's signature", (honest) => ({ claims: honest, signWithStrangerKey: true }), 'id_token'],
  ];
  for (const [what, forge, field] of forgeries) {
    it(`refuses ${what}`, async () => {
      expectRefused(await signInWith(forge), 400, field);
    });
  }
});
