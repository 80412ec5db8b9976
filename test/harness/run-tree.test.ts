import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

/** The fields of a tree node a test compares (timestamps and usage aside). */
function shape(node: any): any {
  return { agentName: node.agentName, state: node.state, depth: node.depth, conversationId: node.conversationId, children: node.children.map(shape) };
}

describe('the conversation’s run tree (HAR-5, POL-8)', () => {
  it('subagent and delegate runs join the conversation’s tree under their parent, and are not turns of their own', async () => {
    fixture = await startHarnessFixture();
    expect((await api('PATCH', '/settings', { delegationDepth: 3 })).status).toBe(200);
    fixture.model.script(
      reply().tool('task', { description: 'research', prompt: 'look around [child]' }),
      reply().tool('delegate_task', { agent: 'engineer', task: 'build it [to-engineer]' }),
      reply().text('ceo done'),
    );
    fixture.model.scriptFor((request) => request.lastUserText?.includes('[child]') === true, reply().text('child report'));
    fixture.model.scriptFor(
      (request) => request.lastUserText?.includes('[to-engineer]') === true,
      reply().tool('task', { description: 'dig', prompt: 'dig deeper [grand]' }),
      reply().text('engineer report'),
    );
    fixture.model.scriptFor((request) => request.lastUserText?.includes('[grand]') === true, reply().text('grand report'));
    const turnId = await fixture.send('do it');
    const detail = await fixture.waitForRun(turnId, 30_000);
    expect(detail.toolCalls.map((call: any) => [call.name, call.isError])).toEqual([
      ['task', false],
      ['delegate_task', false],
    ]);

    const conversationId = fixture.conversationId;
    const tree = await api('GET', `/conversations/${conversationId}/run-tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.conversationId).toBe(conversationId);
    expect(tree.body.runs).toHaveLength(1);
    const [turn] = tree.body.runs;
    expect(turn).toMatchObject({ id: turnId, parentRunId: null, agentId: fixture.agents.ceo!.id });
    expect(shape(turn)).toEqual({
      agentName: 'ceo',
      state: 'completed',
      depth: 0,
      conversationId,
      children: [
        { agentName: 'ceo', state: 'completed', depth: 1, conversationId, children: [] },
        { agentName: 'engineer', state: 'completed', depth: 1, conversationId, children: [{ agentName: 'engineer', state: 'completed', depth: 2, conversationId, children: [] }] },
      ],
    });
    const [subagent, delegate] = turn.children;
    expect(subagent.parentRunId).toBe(turnId);
    expect(delegate.parentRunId).toBe(turnId);
    expect(delegate.children[0].parentRunId).toBe(delegate.id);

    // The subtree of one run.
    const subtree = await api('GET', `/runs/${delegate.id}/tree`);
    expect(subtree.status).toBe(200);
    expect(subtree.body.run).toMatchObject({ id: delegate.id, agentName: 'engineer', children: [{ parentRunId: delegate.id, state: 'completed' }] });

    // Turns stay turns: the listing the web reads has the one turn; the full listing has all four runs.
    const turns = await api('GET', `/runs?conversationId=${conversationId}&topLevel=true`);
    expect(turns.body.runs.map((run: any) => run.id)).toEqual([turnId]);
    const all = await api('GET', `/runs?conversationId=${conversationId}`);
    expect(all.body.runs).toHaveLength(4);

    // Children report to their parent only: the conversation shows the operator's message and the turn's answer.
    const messages = (await api('GET', `/conversations/${conversationId}/messages`)).body.messages;
    expect(messages.map((message: any) => [message.role, message.runId, message.content])).toEqual([
      ['user', null, 'do it'],
      ['assistant', turnId, 'ceo done'],
    ]);

    // A second turn is a second root, oldest first.
    fixture.model.script(reply().text('second answer'));
    const second = await fixture.send('again');
    await fixture.waitForRun(second);
    const again = await api('GET', `/conversations/${conversationId}/run-tree`);
    expect(again.body.runs.map((run: any) => [run.id, run.children.length])).toEqual([
      [turnId, 2],
      [second, 0],
    ]);
  });

  it('answers 404 naming the field for an unknown run or conversation', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const run = await api('GET', '/runs/run_missing/tree');
    expect(run.status).toBe(404);
    expect(run.body.error).toMatchObject({ field: 'runId' });
    const conversation = await api('GET', '/conversations/conv_missing/run-tree');
    expect(conversation.status).toBe(404);
    expect(conversation.body.error).toMatchObject({ field: 'conversationId' });
    const tree = await api('GET', `/conversations/${fixture.conversationId}/run-tree`);
    expect(tree.body).toEqual({ conversationId: fixture.conversationId, runs: [] });
  });
});
