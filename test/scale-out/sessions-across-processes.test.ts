/**
 * TEAM-1/TEAM-2 with several API processes on one PostgreSQL database (docs/deploy.md): a browser
 * session, a sign-in link and an event-stream ticket made through one process work through the other;
 * revoking a session, a token or a role through one process closes the event streams the other holds
 * (relayed by NOTIFY, not polled) and the other refuses the next request at once; one it missed while
 * its listening connection was down closes the stream when it listens again.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStream } from '../support/open-event-stream.js';
import { asPerson, invitePerson, sessionCookieOf, type InvitedPerson } from '../support/people-fixture.js';
import { freshTestDatabase } from '../support/test-database.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let apiOne: TestServer;
let apiTwo: TestServer;
let workspaceId: string;
let dana: InvitedPerson;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  apiOne = await startTestServer({ database: database.url, role: 'api' });
  apiTwo = await startTestServer({ database: database.url, role: 'api' });
  workspaceId = (await createSeededWorkspace(apiOne, 'Shared')).id;
  // Dana accepts her invitation through the first process: her browser session is opened there.
  dana = await invitePerson(apiOne, workspaceId, 'member', 'Dana');
}, 300_000);

afterAll(async () => {
  await apiTwo?.dispose();
  await apiOne?.dispose();
  if (enabled) await database.drop();
});

const eventsOn = (server: TestServer) => `${server.url}/api/workspaces/${workspaceId}/events`;
const meWith = (server: TestServer, cookie: string) => fetch(`${server.url}/api/people/me`, { headers: { cookie } });

/** A new browser session of Dana's: a sign-in link minted with her token through `minter`, opened through `opener`. */
async function signInThrough(minter: TestServer, opener: TestServer): Promise<string> {
  const link = await asPerson(minter, dana.token, 'POST', '/api/auth/sign-in-link');
  expect(link.status).toBe(201);
  const url = new URL(link.body.url as string);
  const opened = await fetch(`${opener.url}${url.pathname}${url.search}`, { redirect: 'manual' });
  expect(opened.status).toBe(303);
  return sessionCookieOf(opened);
}

describe.skipIf(!enabled)('sessions and revocations across API processes', () => {
  it('a session, a sign-in link and a stream ticket made through one process work through the other; a link works once', async () => {
    const me = await meWith(apiTwo, dana.cookie);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { id: string }).id).toBe(dana.personId);

    const link = new URL((await asPerson(apiOne, dana.token, 'POST', '/api/auth/sign-in-link')).body.url as string);
    const path = `${link.pathname}${link.search}`;
    expect((await fetch(`${apiTwo.url}${path}`, { redirect: 'manual' })).status).toBe(303);
    const replayed = await fetch(`${apiOne.url}${path}`, { redirect: 'manual' });
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as { error: { field: string } }).error.field).toBe('code');

    const ticket = (await asPerson(apiOne, dana.token, 'POST', '/api/auth/sse-ticket')).body.ticket as string;
    const stream = await openEventStream(`${eventsOn(apiTwo)}?ticket=${encodeURIComponent(ticket)}`);
    expect(stream.status).toBe(200);
    stream.close();
    expect((await fetch(`${eventsOn(apiOne)}?ticket=${encodeURIComponent(ticket)}`)).status).toBe(401);
  }, 60_000);

  it("ending a session, or revoking a token, through one process closes the other's stream opened with it and the other refuses it", async () => {
    const cookie = await signInThrough(apiTwo, apiOne);
    const stream = await openEventStream(eventsOn(apiOne), { cookie });
    expect(stream.status).toBe(200);
    const listed = (await (await fetch(`${apiTwo.url}/api/people/me/sessions`, { headers: { cookie } })).json()) as { sessions: Array<{ id: string; current: boolean }> };
    const sessionId = listed.sessions.find((session) => session.current)!.id;
    expect((await fetch(`${apiTwo.url}/api/people/me/sessions/${sessionId}`, { method: 'DELETE', headers: { cookie, origin: apiTwo.url } })).status).toBe(204);
    await stream.ended;
    expect((await meWith(apiOne, cookie)).status).toBe(401);

    const token = await asPerson(apiOne, dana.token, 'POST', '/api/people/me/tokens', { name: 'dashboard' });
    expect(token.status).toBe(201);
    const ticket = (await asPerson(apiOne, token.body.token, 'POST', '/api/auth/sse-ticket')).body.ticket as string;
    const ticketStream = await openEventStream(`${eventsOn(apiOne)}?ticket=${encodeURIComponent(ticket)}`);
    expect(ticketStream.status).toBe(200);
    expect((await asPerson(apiTwo, dana.token, 'DELETE', `/api/people/me/tokens/${token.body.id}`)).status).toBe(204);
    await ticketStream.ended;
    expect((await asPerson(apiOne, token.body.token, 'GET', '/api/people/me')).status).toBe(401);
    // Dana's other session was not revoked.
    expect((await meWith(apiOne, dana.cookie)).status).toBe(200);
  }, 60_000);

  it('a revocation the other process missed (its listening connection was down) closes the stream once it listens again', async () => {
    const cookie = await signInThrough(apiTwo, apiOne);
    const stream = await openEventStream(eventsOn(apiOne), { cookie });
    expect(stream.status).toBe(200);
    const sessionId = apiOne.running.app.sessions.sessionIdOf(decodeURIComponent(cookie.slice('cc_session='.length)));
    // Ended through the second process without any announcement: as if its NOTIFY fell into the gap.
    expect(await apiTwo.running.app.sessions.endSessionById(dana.personId, sessionId)).toBe(true);
    await apiOne.running.app.cluster!.dropListenerForTest();
    await stream.ended;
    expect((await meWith(apiOne, cookie)).status).toBe(401);
  }, 60_000);

  it("taking a person's role away through one process closes their stream on the other, which answers 401 to their cookie", async () => {
    const cookie = await signInThrough(apiTwo, apiOne);
    const stream = await openEventStream(eventsOn(apiOne), { cookie });
    expect(stream.status).toBe(200);
    expect((await apiTwo.api('DELETE', `/api/workspaces/${workspaceId}/people/${dana.personId}`)).status).toBe(204);
    await stream.ended;
    expect((await meWith(apiOne, cookie)).status).toBe(401);
    expect((await meWith(apiOne, dana.cookie)).status).toBe(401);
  }, 60_000);
});
