import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorSessions, SIGN_IN_CODE_TTL_MS, SSE_TICKET_TTL_MS } from '../../src/services/operator-sessions.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;
let agentToken: string;

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Sign in')).id;
  const agents = (await server.api('GET', `/api/workspaces/${workspaceId}/agents`)).body.agents;
  agentToken = server.running.app.runTokens.issue({ workspaceId, runId: 'run_attacker', agentId: agents[0]!.id });
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

/** Follows a sign-in link by hand (no redirect following) and returns the answer. */
async function open(link: string): Promise<Response> {
  return fetch(link, { redirect: 'manual' });
}

async function signIn(): Promise<string> {
  const link = (await server.api('POST', '/api/auth/sign-in-link')).body.url as string;
  const answer = await open(link);
  expect(answer.status).toBe(303);
  const cookie = answer.headers.get('set-cookie')!;
  return cookie.split(';')[0]!;
}

describe('sign-in without copying a token', () => {
  it('the link sets an HttpOnly, SameSite=Strict session cookie and redirects to the app; the code is consumed', async () => {
    const link = (await server.api('POST', '/api/auth/sign-in-link')).body.url as string;
    expect(link).toMatch(new RegExp(`^${server.url}/auth/sign-in\\?code=sic_`));
    const first = await open(link);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^cc_session=ses_[A-Za-z0-9_-]+;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = cookie.split(';')[0]!;
    const list = await fetch(`${server.url}/api/workspaces`, { headers: { cookie: session } });
    expect(list.status).toBe(200);
    expect(await (await fetch(`${server.url}/api/auth/session`, { headers: { cookie: session } })).json()).toMatchObject({ via: 'cookie' });

    // Second use of the same code: refused, no cookie.
    const second = await open(link);
    expect(second.status).toBe(400);
    expect(second.headers.get('set-cookie')).toBeNull();
    expect(((await second.json()) as any).error).toMatchObject({ field: 'code' });
    // A made-up code too.
    expect((await open(`${server.url}/auth/sign-in?code=sic_guess`)).status).toBe(400);
  });

  it('codes and tickets expire; a session can be ended', async () => {
    let now = 1_000_000;
    const sessions = new OperatorSessions(server.running.app.registry, () => now);
    const { code } = await sessions.mintSignInCode('op_1');
    now += SIGN_IN_CODE_TTL_MS;
    expect(await sessions.redeemSignInCode(code)).toBeNull();
    const fresh = (await sessions.mintSignInCode('op_1')).code;
    const redeemed = (await sessions.redeemSignInCode(fresh))!;
    expect(redeemed.operatorId).toBe('op_1');
    expect((await sessions.sessionHolder(redeemed.session))?.operatorId).toBe('op_1');
    await sessions.endSession(redeemed.session);
    expect(await sessions.sessionHolder(redeemed.session)).toBeNull();
    const { ticket } = await sessions.mintSseTicket('op_1');
    now += SSE_TICKET_TTL_MS;
    expect(await sessions.redeemSseTicket(ticket)).toBeNull();
  });

  it("an agent's run token can mint neither a sign-in code nor an SSE ticket, nor pass as either", async () => {
    for (const path of ['/api/auth/sign-in-link', '/api/auth/sse-ticket']) {
      const answer = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${agentToken}` } });
      expect(answer.status, path).toBe(401);
    }
    expect((await open(`${server.url}/auth/sign-in?code=${agentToken}`)).status).toBe(400);
    expect((await fetch(`${server.url}/api/workspaces/${workspaceId}/events?ticket=${agentToken}`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/workspaces`, { headers: { cookie: `cc_session=${agentToken}` } })).status).toBe(401);
  });

  it('a cookie-authenticated write needs this server as its Origin (CSRF); bearer writes do not', async () => {
    const session = await signIn();
    const before = (await server.api('GET', '/api/workspaces')).body.workspaces.length;
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/workspaces`, { method: 'POST', headers: { cookie: session, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name: 'Forged' }) });
    for (const headers of [{} as Record<string, string>, { origin: 'http://evil.example' }, { origin: 'null' }, { origin: `${server.url}.evil.example` }]) {
      const refused = await post(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(((await refused.json()) as any).error).toMatchObject({ code: 'forbidden', field: 'origin' });
    }
    expect((await server.api('GET', '/api/workspaces')).body.workspaces).toHaveLength(before);
    const allowed = await post({ origin: server.url });
    expect(allowed.status).toBe(201);
  });

  it('the event stream: no token in its URL; a single-use ticket or the cookie opens it', async () => {
    expect((await fetch(`${server.url}/api/workspaces/${workspaceId}/events?token=${server.token}`)).status).toBe(401);
    const ticket = (await server.api('POST', '/api/auth/sse-ticket')).body.ticket as string;
    expect(ticket).toMatch(/^sst_/);
    const controller = new AbortController();
    const first = await fetch(`${server.url}/api/workspaces/${workspaceId}/events?ticket=${ticket}`, { signal: controller.signal });
    expect(first.status).toBe(200);
    controller.abort();
    expect((await fetch(`${server.url}/api/workspaces/${workspaceId}/events?ticket=${ticket}`)).status).toBe(401);
    const session = await signIn();
    const viaCookie = new AbortController();
    const streamed = await fetch(`${server.url}/api/workspaces/${workspaceId}/events`, { headers: { cookie: session }, signal: viaCookie.signal });
    expect(streamed.status).toBe(200);
    viaCookie.abort();
    // The web client asks for a ticket and never puts the token in the EventSource URL (the stream is
    // opened by the tab that holds the browser's shared live connection).
    const client = await readFile(new URL('../../web/src/api/shared-live-connection.ts', import.meta.url), 'utf8');
    expect(client).not.toMatch(/[?&]token=/);
    expect(client).toMatch(/\/api\/auth\/sse-ticket/);
    expect(client).toMatch(/[?&]ticket=/);
  });
});
