import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The web app writes a change's answer into its caches and keeps whichever of the answer and a live
 * event is newer (web/src/api/fresher-write.ts). It can only tell them apart because every entity it
 * writes from an answer carries the server's `updatedAt`, moved forward by each change and the same
 * in the answer and its event.
 */
let server: TestServer;
let ws: string;

beforeAll(async () => {
  server = await startTestServer();
  ws = (await createSeededWorkspace(server)).id;
});
afterAll(async () => {
  await server.dispose();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
const later = (first: string, second: string) => Date.parse(second) > Date.parse(first);

describe('answers to changes carry the stamp a client orders them by', () => {
  it('workspace settings: each save stamps updatedAt, the same in the answer, the event and a later read', async () => {
    const events = await SseClient.open(`${server.url}/api/workspaces/${ws}/events`, { authorization: `Bearer ${server.token}` });
    try {
      const first = await api('PATCH', '/settings', { delegationDepth: 2 });
      expect(first.status).toBe(200);
      expect(typeof first.body.updatedAt).toBe('string');
      const event = await events.waitFor((received) => received.event === 'settings.updated');
      expect((event.data as { data: { updatedAt: string } }).data.updatedAt).toBe(first.body.updatedAt);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await api('PATCH', '/settings', { delegationDepth: 3 });
      expect(later(first.body.updatedAt, second.body.updatedAt)).toBe(true);
      expect((await api('GET', '/settings')).body.updatedAt).toBe(second.body.updatedAt);
      // The stamp is the server's: a client cannot set it.
      const refused = await api('PATCH', '/settings', { updatedAt: '2999-01-01T00:00:00.000Z' });
      expect(refused.status).toBe(400);
      expect((await api('GET', '/settings')).body.updatedAt).toBe(second.body.updatedAt);
    } finally {
      events.close();
    }
  });

  it('spaces and conversations: a later change answers with a later stamp', async () => {
    const space = (await api('POST', '/spaces', { name: 'Stamped' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const picked = (await api('PATCH', `/spaces/${space.id}`, { picker: 'Ask' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = (await api('PATCH', `/spaces/${space.id}`, { name: 'Stamped, renamed' })).body;
    expect(later(space.updatedAt, picked.updatedAt)).toBe(true);
    expect(later(picked.updatedAt, renamed.updatedAt)).toBe(true);
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'First' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const retitled = (await api('PATCH', `/conversations/${conversation.id}`, { title: 'Second' })).body;
    expect(later(conversation.updatedAt, retitled.updatedAt)).toBe(true);
  });

  it('presence: the heartbeat’s answer is stamped before its read, its event after, so the event is never older', async () => {
    const events = await SseClient.open(`${server.url}/api/workspaces/${ws}/events`, { authorization: `Bearer ${server.token}` });
    try {
      const answer = await api('POST', '/presence/here', { clientId: 'win_stamped' });
      expect(answer.status).toBe(200);
      expect(typeof answer.body.updatedAt).toBe('string');
      const event = await events.waitFor((received) => received.event === 'presence.operators');
      const stamped = (event.data as { data: { updatedAt: string } }).data.updatedAt;
      expect(Date.parse(stamped)).toBeGreaterThanOrEqual(Date.parse(answer.body.updatedAt));
      expect(typeof (await api('GET', '/presence/operators')).body.updatedAt).toBe('string');
    } finally {
      events.close();
    }
  });
});

