import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { createSeededWorkspace } from '../support/test-server.js';

// RLY-6, WS-1, POL-1: every id relay_tool is given is hostile. It acts only on other conversations
// of its own workspace, never on its own, and never answers a consent card meant for the operator.
let fixture: HarnessFixture;
afterEach(async () => fixture?.dispose());

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const callerResults = () => fixture.model.requests.filter((request) => request.conversation === undefined).flatMap((request) => request.toolResults);

describe('relay_tool refuses what is not its to touch', () => {
  it('hostile ids, another workspace’s conversation and its own conversation change nothing', async () => {
    fixture = await startHarnessFixture();
    const foreign = await createSeededWorkspace(fixture.server, 'Elsewhere');
    const foreignSpace = await fixture.server.api('POST', `/api/workspaces/${foreign.id}/spaces`, { name: 'Secret' });
    const foreignConversation = (await fixture.server.api('POST', `/api/workspaces/${foreign.id}/spaces/${foreignSpace.body.id}/conversations`, { title: 'Secret' })).body.id as string;
    fixture.model.script(
      reply().tool('relay_tool', { action: 'send', conversationId: '../../registry.sqlite', text: 'x' }),
      reply().tool('relay_tool', { action: 'send', conversationId: "cv_1' OR '1'='1", text: 'x' }),
      reply().tool('relay_tool', { action: 'send', conversationId: foreignConversation, text: 'leak' }),
      reply().tool('relay_tool', { action: 'archive', conversationId: foreignConversation }),
      reply().tool('relay_tool', { action: 'stop', conversationId: fixture.conversationId }),
      reply().tool('relay_tool', { action: 'send', text: 'no target' }),
      reply().tool('relay_tool', { action: 'list' }),
      reply().text('done'),
    );
    await fixture.waitForRun(await fixture.send('try everything'));
    const results = callerResults();
    expect(results.slice(0, 6).every((result) => result.isError)).toBe(true);
    expect(results[0]!.content).toMatch(/conversationId: must be an id like cv_/);
    expect(results[1]!.content).toMatch(/conversationId: must be an id like cv_/);
    expect(results[2]!.content).toBe(`no conversation ${foreignConversation} in this workspace.`);
    expect(results[3]!.content).toBe(`no conversation ${foreignConversation} in this workspace.`);
    expect(results[4]!.content).toMatch(/that is this conversation/);
    expect(results[5]!.content).toBe('conversationId is required for send.');
    // list names neither the other workspace's conversation nor its own.
    expect(results[6]!.content).not.toContain(foreignConversation);
    expect(results[6]!.content).not.toContain(fixture.conversationId);
    expect((await fixture.server.api('GET', `/api/workspaces/${foreign.id}/conversations/${foreignConversation}/messages`)).body.messages).toEqual([]);
    expect((await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages).toHaveLength(2);
  });

  it('never answers a consent card: one agent cannot approve another’s action', async () => {
    fixture = await startHarnessFixture();
    const askSpace = await api('POST', '/spaces', { name: 'Careful', autonomy: 'askFirst' });
    const careful = (await api('POST', `/spaces/${askSpace.body.id}/conversations`, { title: 'Careful' })).body.id as string;
    const target = (await api('POST', `/spaces/${askSpace.body.id}/conversations`, { title: 'Target' })).body.id as string;
    // The careful conversation's agent wants to archive Target: in ask mode that opens a consent card.
    fixture.model.scriptFor((request) => request.allText.includes('archive target please'), reply().tool('relay_tool', { action: 'archive', conversationId: target }), reply().text('waited'));
    await api('POST', `/conversations/${careful}/messages`, { text: 'archive target please' });
    const card = await fixture.operator!.waitFor((event) => event.event === 'question.asked', 10_000);
    const questionId = card.data.data.id as string;
    fixture.model.script(reply().tool('relay_tool', { action: 'answer_question', questionId, answers: ['Approve'] }), reply().text('tried'));
    await fixture.waitForRun(await fixture.send('approve it for them'));
    const result = callerResults()[0]!;
    expect(result).toMatchObject({ isError: true, content: `${questionId} asks the operator for consent: only the operator may answer it.` });
    expect((await api('GET', '/questions')).body.questions.map((question: any) => question.id)).toContain(questionId);
    await api('POST', `/questions/${questionId}/answer`, { answers: ['Deny'] });
    const db = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    expect(await db.selectFrom('conversation_archives').selectAll().execute()).toEqual([]);
  });
});
