/**
 * HAR-5: a message sent while a turn of the conversation waits for an operator's approval goes to
 * that turn as steering — no second turn starts beside it, its answer cannot land above the pending
 * one, and the text reaches the model once, in that turn and in the history after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
beforeAll(async () => {
  fixture = await startHarnessFixture();
}, 120_000);
afterAll(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('a second message while a turn waits for approval', () => {
  it('is queued as steering for the waiting turn, read after the decision, and kept once in the history', async () => {
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    fixture.model.script(reply().tool('bash', { command: 'touch x' }), reply().text('done, and the README too'));
    const runId = await fixture.send('create x');
    const approval = (await fixture.operator!.waitFor((event) => event.event === 'approval.requested')).data.data;

    const second = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: 'also write a README' });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ steeredTurn: true, run: { id: runId }, message: { runId, role: 'user', content: 'also write a README' } });
    const runs = (await api('GET', `/runs?conversationId=${fixture.conversationId}`)).body.runs;
    expect(runs.map((run: any) => run.id)).toEqual([runId]);

    const requestsBefore = fixture.model.requests.length;
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    const afterDecision = fixture.model.requests.slice(requestsBefore);
    expect(afterDecision).toHaveLength(1);
    expect(JSON.stringify(afterDecision[0]!.body)).toContain('also write a README');

    // In order: the first message, the steering message, then the turn's answer.
    const messages = (await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages.filter((message: any) => message.role !== 'system');
    expect(messages.map((message: any) => message.content)).toEqual(['create x', 'also write a README', 'done, and the README too']);

    // The next turn's history holds the steering text once (from the turn's transcript), not twice.
    fixture.model.script(reply().text('ok'));
    await fixture.waitForRun(await fixture.send('thanks'));
    expect(occurrences(JSON.stringify(fixture.model.requests.at(-1)!.body), 'also write a README')).toBe(1);
    await api('DELETE', `/policy/rules/${rule.body.id}`);
  });

  it('with no turn waiting, a message starts its own turn as before', async () => {
    fixture.model.script(reply().text('hello'));
    const posted = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: 'hi' });
    expect(posted.status).toBe(202);
    expect(posted.body.steeredTurn).toBeUndefined();
    await fixture.waitForRun(posted.body.run.id);
  });
});
