import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import { waitFor } from '../../support/wait-for.js';

// RLY-6: relay_tool against the real server, the built-in harness and the scripted model.
let fixture: HarnessFixture;
afterEach(async () => fixture?.dispose());

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

async function otherConversation(name: string): Promise<string> {
  const space = await api('POST', '/spaces', { name });
  const conversation = await api('POST', `/spaces/${space.body.id}/conversations`, { title: name });
  return conversation.body.id;
}

const messagesOf = async (conversationId: string) => (await api('GET', `/conversations/${conversationId}/messages`)).body.messages as any[];
// The calling conversation's requests only: the others are answered by their own `scriptFor` queues.
const toolResults = () => fixture.model.requests.filter((request) => request.conversation === undefined).flatMap((request) => request.toolResults);

describe('relay_tool in agent mode (RLY-6)', () => {
  it('lists, sends, stops, creates a chat and archives without asking', async () => {
    fixture = await startHarnessFixture();
    const other = await otherConversation('Build watch');
    const archived = await otherConversation('Old notes');
    // The other conversation's own agent: its turn hangs until relay_tool stops it.
    fixture.model.scriptFor((request) => request.lastUserText === 'please check the build', reply().text('checking…').hang());
    fixture.model.scriptFor((request) => request.lastUserText === 'kick off the spin-off', reply().text('spin-off started'));
    fixture.model.script(
      reply().tool('relay_tool', { action: 'list' }),
      reply().tool('relay_tool', { action: 'send', conversationId: other, text: 'please check the build' }),
      reply().tool('relay_tool', { action: 'stop', conversationId: other }),
      reply().tool('relay_tool', { action: 'archive', conversationId: archived }),
      reply().tool('relay_tool', { action: 'create_session', title: 'Spin-off', text: 'kick off the spin-off' }),
      reply().text('done'),
    );
    const runId = await fixture.send('coordinate the others');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(fixture.model.requests[0]!.toolNames).toContain('relay_tool');
    const results = toolResults();
    expect(results[0]!.content).toContain(`${other} "Build watch"`);
    expect(results[0]!.content).not.toContain(fixture.conversationId);
    expect(results[1]!.content).toMatch(new RegExp(`Sent to ${other}; its agent started run run_`));
    expect(results[2]!.content).toMatch(/^Stopped run_/);
    expect(results[3]!.content).toBe(`Archived ${archived}.`);
    expect(results[4]!.content).toMatch(/^Created chat cv_\S+ in new space sp_\S+; its agent started run run_/);
    expect(results.every((result) => !result.isError)).toBe(true);

    // The relayed message is recorded as the sending agent's, not an operator's.
    const relayed = (await messagesOf(other)).find((message) => message.content === 'please check the build');
    expect(relayed).toMatchObject({ role: 'user', authorKind: 'agent', authorId: detail.run.agentId });
    // The stopped turn really ended cancelled.
    const stoppedRunId = /^Stopped (run_\S+)/.exec(results[2]!.content)![1]!.replace(/ .*/, '');
    const stopped = await waitFor(() => api('GET', `/runs/${stoppedRunId}`), (response) => response.body.run?.state === 'cancelled', 'the relayed turn to end cancelled');
    expect(stopped.body.run.conversationId ?? other).toBe(other);

    // A new chat is a new space (RLY-2), in the default mode, with the first message sent.
    const spaces = (await api('GET', '/spaces')).body.spaces as any[];
    const spinOff = spaces.find((space) => space.name === 'Spin-off');
    expect(spinOff).toMatchObject({ mode: 'chat', picker: 'Agent' });
    const spinOffConversations = (await api('GET', `/spaces/${spinOff.id}/conversations`)).body.conversations as any[];
    expect(spinOffConversations).toHaveLength(1);
    expect((await messagesOf(spinOffConversations[0].id)).map((message) => message.content)).toContain('kick off the spin-off');

    // An archived conversation takes no more relayed messages.
    fixture.model.script(reply().tool('relay_tool', { action: 'send', conversationId: archived, text: 'still there?' }), reply().text('ok'));
    await fixture.waitForRun(await fixture.send('try the archived one'));
    expect(toolResults().at(-1)).toMatchObject({ isError: true });
    expect(toolResults().at(-1)!.content).toContain('is archived');
    expect(await messagesOf(archived)).toHaveLength(0);
  });

  it("answers another conversation's question card", async () => {
    fixture = await startHarnessFixture();
    const other = await otherConversation('Needs input');
    const asking = fixture.model.scriptFor(
      (request) => request.lastUserText === 'which database?' || request.allText.includes('which database?'),
      reply().tool('ask_user', { questions: [{ question: 'SQLite or PostgreSQL?', options: ['SQLite', 'PostgreSQL'] }] }),
      reply().text('going with it'),
    );
    await api('POST', `/conversations/${other}/messages`, { text: 'which database?' });
    const asked = await fixture.operator!.waitFor((event) => event.event === 'question.asked');
    const questionId = asked.data.data.id as string;
    fixture.model.script(
      reply().tool('relay_tool', { action: 'list' }),
      reply().tool('relay_tool', { action: 'answer_question', questionId, answers: ['PostgreSQL'] }),
      reply().text('answered'),
    );
    await fixture.waitForRun(await fixture.send('help the other chat'));
    const results = toolResults();
    expect(results[0]!.content).toContain(`question ${questionId}: "SQLite or PostgreSQL?"`);
    expect(results[1]).toMatchObject({ isError: false, content: `Answered ${questionId} in ${other}.` });
    await waitFor(async () => asking.requests.length, (count) => count === 2, 'the asking agent to continue');
    expect(asking.requests[1]!.lastToolResult!.content).toContain('A: PostgreSQL');
  });
});

describe('relay_tool in ask mode asks first with a question card (RLY-6)', () => {
  it('does nothing on Deny or a typed reason, acts on Approve, and opens no approval besides the card', async () => {
    fixture = await startHarnessFixture({ space: { autonomy: 'askFirst' } });
    const other = await otherConversation('Elsewhere');
    fixture.model.scriptFor((request) => request.lastUserText === 'relayed hello', reply().text('hi back'));
    fixture.model.script(
      reply().tool('relay_tool', { action: 'send', conversationId: other, text: 'relayed hello' }),
      reply().tool('relay_tool', { action: 'archive', conversationId: other }),
      reply().tool('relay_tool', { action: 'send', conversationId: other, text: 'relayed hello' }),
      reply().text('done'),
    );
    const runId = await fixture.send('relay something');
    const cards: any[] = [];
    for (const answer of ['Deny', 'not now, it is busy', 'Approve']) {
      const asked = await fixture.operator!.waitFor((event) => event.event === 'question.asked' && !cards.some((card) => card.id === event.data.data.id), 10_000);
      cards.push(asked.data.data);
      expect((await api('POST', `/questions/${asked.data.data.id}/answer`, { answers: [answer] })).status).toBe(200);
    }
    await fixture.waitForRun(runId);
    expect(cards.map((card) => card.conversationId)).toEqual([fixture.conversationId, fixture.conversationId, fixture.conversationId]);
    expect(cards[0].questions[0].question).toBe(`relay_tool wants to send to "Elsewhere" (${other}): "relayed hello". Approve this action?`);
    expect(cards[0].questions[0].options).toEqual(['Approve', 'Deny']);
    expect(cards[1].questions[0].question).toBe(`relay_tool wants to archive "Elsewhere" (${other}). Approve this action?`);
    const results = toolResults();
    expect(results[0]).toMatchObject({ isError: true, content: 'Not done: the operator denied it. Nothing was changed.' });
    expect(results[1]).toMatchObject({ isError: true, content: 'Not done: not now, it is busy. Nothing was changed.' });
    expect(results[2]!.isError).toBe(false);
    const messages = await messagesOf(other);
    expect(messages.filter((message) => message.content === 'relayed hello')).toHaveLength(1);
    // The card is the only ask: the policy gate opened no approval of its own (no double asking).
    expect((await api('GET', '/approvals')).body.approvals).toEqual([]);
  });

  it('in plan mode the tool is on the surface and asks too; a denied card changes nothing', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    const other = await otherConversation('Planned');
    fixture.model.script(reply().tool('relay_tool', { action: 'archive', conversationId: other }), reply().text('no plan needed'));
    const runId = await fixture.send('archive the other one');
    const asked = await fixture.operator!.waitFor((event) => event.event === 'question.asked', 10_000);
    expect(asked.data.data.questions[0].question).toContain('Approve this action?');
    await api('POST', `/questions/${asked.data.data.id}/answer`, { answers: ['Deny'] });
    await fixture.waitForRun(runId);
    expect(fixture.model.requests[0]!.toolNames).toContain('relay_tool');
    const result = toolResults()[0]!;
    expect(result).toMatchObject({ isError: true, content: 'Not done: the operator denied it. Nothing was changed.' });
    const archivedAfter = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    expect(await archivedAfter.selectFrom('conversation_archives').selectAll().execute()).toHaveLength(0);
  });
});
