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
        expect(replay.events.map((event) => event.event)).toEqual(['run.updated', 'agent.deleted']);
      } finally {
        replay.close();
      }
    } finally {
      stream.close();
    }
  });

  it('answers 404 for the stream of an unknown workspace', async () => {
    expect((await server.api('GET', '/api/workspaces/ws_missing/events')).status).toBe(404);
  });
});
