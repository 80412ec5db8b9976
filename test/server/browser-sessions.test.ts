/**
 * TEAM-1/TEAM-2: browser sessions and single-use codes live in the registry, not in one process's
 * memory. A restart keeps people signed in and keeps unused sign-in links working (once). Ending one
 * session, or revoking one token, closes exactly the event streams opened through it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStream } from '../support/open-event-stream.js';
import { asPerson, sessionCookieOf } from '../support/people-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

/** A new sign-in link of the owner (its URL path and query). */
async function signInLink(): Promise<string> {
  const link = await server.api('POST', '/api/auth/sign-in-link');
  expect(link.status).toBe(201);
  const url = new URL(link.body.url as string);
  return `${url.pathname}${url.search}`;
}

async function follow(path: string): Promise<Response> {
  return fetch(`${server.url}${path}`, { redirect: 'manual' });
}

describe('browser sessions in the registry', () => {
  it('a restart keeps the browser signed in, and a link printed before it works once, even when opened many times at once', async () => {
    const signedIn = await follow(await signInLink());
    expect(signedIn.status).toBe(303);
    const cookie = sessionCookieOf(signedIn);
    const unused = await signInLink();

    await server.stop();
    server = await startTestServer({ dataRoot: server.dataRoot });

    const me = await fetch(`${server.url}/api/auth/session`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ via: 'cookie' });
    const listed = await fetch(`${server.url}/api/people/me/sessions`, { headers: { cookie } });
    const { sessions } = (await listed.json()) as { sessions: Array<{ current: boolean; lastSeenAt: string; createdAt: string }> };
    expect(sessions.filter((session) => session.current)).toHaveLength(1);

    const attempts = await Promise.all(Array.from({ length: 6 }, () => follow(unused)));
    expect(attempts.map((attempt) => attempt.status).sort()).toEqual([303, 400, 400, 400, 400, 400]);
    const refused = await (attempts.find((attempt) => attempt.status === 400)!.json() as Promise<{ error: { field: string } }>);
    expect(refused.error.field).toBe('code');
    expect(sessionCookieOf(attempts.find((attempt) => attempt.status === 303)!)).not.toBe(cookie);
  }, 120_000);

  it('ending one session closes the stream it opened and refuses its cookie; revoking a token closes the stream its ticket opened; another session stays', async () => {
    const { id: workspaceId } = await createSeededWorkspace(server, 'Streams');
    const events = `${server.url}/api/workspaces/${workspaceId}/events`;
    const ending = sessionCookieOf(await follow(await signInLink()));
    const staying = sessionCookieOf(await follow(await signInLink()));
    const token = await server.api('POST', '/api/people/me/tokens', { name: 'stream reader' });
    expect(token.status).toBe(201);
    const ticket = (await asPerson(server, token.body.token, 'POST', '/api/auth/sse-ticket')).body.ticket as string;

    const endingStream = await openEventStream(events, { cookie: ending });
    const stayingStream = await openEventStream(events, { cookie: staying });
    const ticketStream = await openEventStream(`${events}?ticket=${encodeURIComponent(ticket)}`);
    expect([endingStream.status, stayingStream.status, ticketStream.status]).toEqual([200, 200, 200]);

    const { sessions } = (await (await fetch(`${server.url}/api/people/me/sessions`, { headers: { cookie: ending } })).json()) as { sessions: Array<{ id: string; current: boolean }> };
    const endingId = sessions.find((session) => session.current)!.id;
    const ended = await fetch(`${server.url}/api/people/me/sessions/${endingId}`, { method: 'DELETE', headers: { cookie: staying, origin: server.url } });
    expect(ended.status).toBe(204);
    await endingStream.ended;
    expect((await fetch(`${server.url}/api/auth/session`, { headers: { cookie: ending } })).status).toBe(401);

    expect((await server.api('DELETE', `/api/people/me/tokens/${token.body.id}`)).status).toBe(204);
    await ticketStream.ended;

    // The other session's stream is still open: an event published after both revocations reaches it.
    expect((await server.api('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'After the revocations' })).status).toBe(201);
    await stayingStream.received('After the revocations');
    expect((await fetch(`${server.url}/api/auth/session`, { headers: { cookie: staying } })).status).toBe(200);
    stayingStream.close();
  }, 120_000);
});
