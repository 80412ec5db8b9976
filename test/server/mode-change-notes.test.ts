/**
 * MODE-4, POL-5: a change of a space's mode or autonomy dial is said where it happens — a line in
 * every conversation of the space, with why and who — including the changes nobody asked for in so
 * many words: picking Ask moves the dial, approving a plan leaves Plan mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { pollUntil } from '../support/wait-for.js';

let fixture: HarnessFixture;
beforeAll(async () => {
  fixture = await startHarnessFixture();
}, 120_000);
afterAll(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const notesOf = async (conversationId: string): Promise<any[]> =>
  (await api('GET', `/conversations/${conversationId}/messages`)).body.messages.filter((message: any) => message.role === 'system' && message.authorKind === 'operator');

describe('mode and autonomy changes are said in the conversation', () => {
  it('picking Ask says that the dial moved to Ask first, by whom, in every conversation of the space; a no-op or a refused change says nothing', async () => {
    const second = await api('POST', `/spaces/${fixture.spaceId}/conversations`, { title: 'Second' });
    const picked = await api('PATCH', `/spaces/${fixture.spaceId}`, { picker: 'Ask' });
    expect(picked.status).toBe(200);
    for (const conversationId of [fixture.conversationId, second.body.id]) {
      const notes = await notesOf(conversationId);
      expect(notes.map((note) => note.content)).toEqual(['Autonomy set to Ask first (was Act with approval) because Ask was picked.']);
      expect(notes[0]).toMatchObject({ runId: null, authorId: expect.stringMatching(/\S/) });
    }
    await api('PATCH', `/spaces/${fixture.spaceId}`, { picker: 'Ask' });
    const refused = await api('PATCH', `/spaces/${fixture.spaceId}`, { picker: 'Review' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('picker');
    expect(await notesOf(fixture.conversationId)).toHaveLength(1);

    const dial = await api('PATCH', `/spaces/${fixture.spaceId}`, { autonomy: 'actWithApproval' });
    expect(dial.status).toBe(200);
    expect((await notesOf(second.body.id)).at(-1).content).toBe("Autonomy set to Act with approval (was Ask first) because the space's settings were changed.");
  });

  it('/plan and approving the plan each leave a line: into Plan, then back to Agent because the plan was approved', async () => {
    const before = (await notesOf(fixture.conversationId)).length;
    const plan = { goal: 'Ship it', nodes: [{ key: 'one', title: 'First', description: 'first', dependsOn: [] }] };
    fixture.model.script(reply().tool('submit_plan', plan), reply().text('submitted'));
    await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: '/plan ship it' });
    const proposed = await pollUntil(
      async () => (await api('GET', `/plans?conversationId=${fixture.conversationId}`)).body.plans[0],
      (found: any) => found?.status === 'proposed',
      15_000,
    );
    fixture.model.script(reply().text('step done'));
    expect((await api('POST', `/plans/${proposed.id}/approve`)).status).toBe(200);
    const notes = (await notesOf(fixture.conversationId)).slice(before).map((note) => note.content);
    expect(notes).toEqual(['Mode set to Plan (was Agent) because /plan was sent.', 'Mode set to Agent (was Plan) because the plan “Ship it” was approved.']);
    expect((await api('GET', `/spaces/${fixture.spaceId}`)).body.picker).toBe('Agent');
  });
});
