import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

describe('workspace event stream (SSE)', () => {
  it('streams seeding, agent and run events in order, and replays after Last-Event-ID', async () => {
    const created = await server.api('POST', '/api/workspaces', { name: 'Live' });
    const workspaceId = created.body.id;
    const stream = await SseClient.open(`${server.url}/api/workspaces/${workspaceId}/events`, { authorization: `Bearer ${server.token}` });
    try {
      await server.running.app.seeding.settle();
      const agent = await server.api('POST', `/api/workspaces/${workspaceId}/agents`, { name: 'streamer' });
      await server.api('PATCH', `/api/workspaces/${workspaceId}/agents/${agent.body.id}`, { title: 'Streams' });
      const handle = await server.running.app.workspaces.handle(workspaceId);
      const run = await server.running.app.runs.record(workspaceId, handle.database.db, { agentId: agent.body.id, state: 'running' });
      await server.running.app.runs.update(workspaceId, handle.database.db, run.id, { state: 'completed' });
      await server.api('DELETE', `/api/workspaces/${workspaceId}/agents/${agent.body.id}`);

      await stream.waitFor((event) => event.event === 'agent.deleted');
      const types = stream.events.map((event) => event.event);
      expect(types.filter((type) => type === 'agent.created').length).toBeGreaterThanOrEqual(6);
      expect(types).toContain('workspace.seeded');
      const tail = types.slice(types.indexOf('agent.created', types.indexOf('workspace.seeded')));
      expect(tail).toEqual(['agent.created', 'agent.updated', 'run.created', 'run.updated', 'agent.deleted']);
      const updated = stream.events.find((event) => event.event === 'agent.updated')!;
      expect(updated.data).toMatchObject({ workspaceId, type: 'agent.updated', data: { title: 'Streams' } });
      const ids = stream.events.map((event) => Number(event.id));
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);

      const replayFrom = stream.events.find((event) => event.event === 'run.created')!.id!;
      const replay = await SseClient.open(`${server.url}/api/workspaces/${workspaceId}/events`, {
        authorization: `Bearer ${server.token}`,
        'last-event-id': replayFrom,
      });
      try {
        await replay.waitFor((event) => event.event === 'agent.deleted');
        expect(replay.events.map((event) => event.event)).toEqual(['stream.resumed', 'run.updated', 'agent.deleted']);
      } finally {
        replay.close();
      }
    } finally {
      stream.close();
    }
  });

  it('resumes from ?lastEventId= (the web app cannot set the header) and says whether nothing was lost', async () => {
    const workspaceId = (await server.api('POST', '/api/workspaces', { name: 'Resume' })).body.id;
    await server.running.app.seeding.settle();
    const url = `${server.url}/api/workspaces/${workspaceId}/events`;
    const auth = { authorization: `Bearer ${server.token}` };
    const first = await SseClient.open(url, auth);
    let lastSeen: string;
    try {
      await server.api('POST', `/api/workspaces/${workspaceId}/agents`, { name: 'before-gap' });
      lastSeen = (await first.waitFor((event) => event.event === 'agent.created' && event.data.data.name === 'before-gap')).id!;
    } finally {
      first.close();
    }
    await server.api('POST', `/api/workspaces/${workspaceId}/agents`, { name: 'while-away' });

    const resumed = await SseClient.open(`${url}?lastEventId=${lastSeen}`, auth);
    try {
      await resumed.waitFor((event) => event.event === 'agent.created');
      expect(resumed.events.map((event) => event.event)).toEqual(['stream.resumed', 'agent.created']);
      expect(resumed.events[0]!.data).toEqual({ complete: true });
      expect(resumed.events[1]!.data.data.name).toBe('while-away');
    } finally {
      resumed.close();
    }

    // More events than the replay buffer holds push the position out of it: the stream says so.
    for (let index = 0; index < 1_001; index += 1) server.running.app.events.publish(workspaceId, 'presence.operators', { operators: [] });
    const lost = await SseClient.open(`${url}?lastEventId=${lastSeen}`, auth);
    try {
      expect((await lost.waitFor((event) => event.event === 'stream.resumed')).data).toEqual({ complete: false });
    } finally {
      lost.close();
    }
    // An id beyond any this server gave out (a client of an earlier server) cannot resume either.
    const foreign = await SseClient.open(`${url}?lastEventId=999999999`, auth);
    try {
      expect((await foreign.waitFor((event) => event.event === 'stream.resumed')).data).toEqual({ complete: false });
    } finally {
      foreign.close();
    }
  });

  it('refuses a lastEventId that is not an event id, naming the field', async () => {
    const workspaceId = (await server.api('POST', '/api/workspaces', { name: 'Bad resume' })).body.id;
    const response = await server.api('GET', `/api/workspaces/${workspaceId}/events?lastEventId=yesterday`);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('lastEventId');
  });

  it('answers 404 for the stream of an unknown workspace', async () => {
    expect((await server.api('GET', '/api/workspaces/ws_missing/events')).status).toBe(404);
  });
});
