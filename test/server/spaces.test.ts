import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;
let spacesPath: string;

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server)).id;
  spacesPath = `/api/workspaces/${workspaceId}/spaces`;
});
afterAll(async () => {
  await server.dispose();
});

describe('spaces and conversations (MODE-1..6, §0)', () => {
  it('a space defaults to chat with actWithApproval, shown in the picker as Agent (MODE-3)', async () => {
    const created = await server.api('POST', spacesPath, { name: 'General' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'General', kind: 'room', mode: 'chat', autonomy: 'actWithApproval', picker: 'Agent' });
  });

  it('a pull-request space is created in review mode and stays there; review is never user-selectable (MODE-6)', async () => {
    const pr = await server.api('POST', spacesPath, { name: 'PR #12', kind: 'pullRequest' });
    expect(pr.body).toMatchObject({ mode: 'review', picker: null });
    const moveAway = await server.api('PATCH', `${spacesPath}/${pr.body.id}`, { mode: 'chat' });
    expect(moveAway.status).toBe(409);
    expect(moveAway.body.error.field).toBe('mode');
    const askReview = await server.api('POST', spacesPath, { name: 'Sneaky', mode: 'review' });
    expect(askReview.status).toBe(400);
    expect(askReview.body.error.field).toBe('mode');
    const room = await server.api('POST', spacesPath, { name: 'Room' });
    const patchReview = await server.api('PATCH', `${spacesPath}/${room.body.id}`, { mode: 'review' });
    expect(patchReview.status).toBe(400);
    expect((await server.api('GET', `${spacesPath}/${room.body.id}`)).body.mode).toBe('chat');
    const pickerReview = await server.api('PATCH', `${spacesPath}/${room.body.id}`, { picker: 'Review' });
    expect(pickerReview.status).toBe(400);
    expect(pickerReview.body.error.field).toBe('picker');
  });

  it('the picker maps onto (mode, autonomy) exactly as §0 says, persisted and emitted as events', async () => {
    const space = await server.api('POST', spacesPath, { name: 'Picker', autonomy: 'proposeOnly' });
    const stream = await SseClient.open(`${server.url}/api/workspaces/${workspaceId}/events`, { authorization: `Bearer ${server.token}` });
    try {
      const expectations: Array<[string, string, string]> = [
        ['Plan', 'plan', 'proposeOnly'],
        ['Ask', 'chat', 'askFirst'],
        ['Orchestrate', 'orchestrate', 'askFirst'],
        ['Autopilot', 'chat', 'actFreely'],
        ['Agent', 'chat', 'actWithApproval'],
      ];
      for (const [picker, mode, autonomy] of expectations) {
        const patched = await server.api('PATCH', `${spacesPath}/${space.body.id}`, { picker });
        expect(patched.status).toBe(200);
        expect(patched.body).toMatchObject({ mode, autonomy, picker });
        const stored = await server.api('GET', `${spacesPath}/${space.body.id}`);
        expect(stored.body).toMatchObject({ mode, autonomy });
      }
      await stream.waitFor((event) => event.event === 'space.modeChanged' && event.data.data.picker === 'Agent');
      const changes = stream.events.filter((event) => event.event === 'space.modeChanged').map((event) => event.data.data.mode);
      expect(changes).toEqual(['plan', 'chat', 'orchestrate', 'chat', 'chat']);
    } finally {
      stream.close();
    }
    const both = await server.api('PATCH', `${spacesPath}/${space.body.id}`, { picker: 'Plan', mode: 'chat' });
    expect(both.status).toBe(400);
  });

  it('conversations and branches inherit the space mode on every read (MODE-1)', async () => {
    const space = await server.api('POST', spacesPath, { name: 'Shared mode' });
    const conversation = await server.api('POST', `${spacesPath}/${space.body.id}/conversations`, { title: 'Main' });
    expect(conversation.status).toBe(201);
    const branch = await server.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversation.body.id}/branches`, {});
    expect(branch.status).toBe(201);
    expect(branch.body).toMatchObject({ parentConversationId: conversation.body.id, spaceId: space.body.id, mode: 'chat' });
    await server.api('PATCH', `${spacesPath}/${space.body.id}`, { mode: 'plan' });
    const listed = await server.api('GET', `${spacesPath}/${space.body.id}/conversations`);
    expect(listed.body.conversations.map((item: any) => item.mode)).toEqual(['plan', 'plan']);
    expect((await server.api('GET', `/api/workspaces/${workspaceId}/conversations/${branch.body.id}`)).body.mode).toBe('plan');
  });

  it('rejects bad input naming the field and writes nothing', async () => {
    const before = (await server.api('GET', spacesPath)).body.spaces.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name'],
      [{ name: 'x', mode: 'Plan' }, 'mode'],
      [{ name: 'x', autonomy: 'yolo' }, 'autonomy'],
      [{ name: 'x', kind: 'channel' }, 'kind'],
      [{ name: 'x', conversationMode: 'plan' }, 'conversationMode'],
    ];
    for (const [body, field] of cases) {
      const response = await server.api('POST', spacesPath, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.field).toBe(field);
    }
    const badAgent = await server.api('POST', spacesPath, { name: 'x', defaultAgentId: 'ag_missing' });
    expect(badAgent.status).toBe(404);
    expect(badAgent.body.error.field).toBe('defaultAgentId');
    expect((await server.api('GET', spacesPath)).body.spaces.length).toBe(before);
    expect((await server.api('GET', `${spacesPath}/sp_missing`)).status).toBe(404);
    expect((await server.api('POST', `${spacesPath}/sp_missing/conversations`, {})).status).toBe(404);
  });
});
