import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

// SEC-9: relay_tool's write actions are declared `workspaceMutation`, per action, so a rule against
// that class governs them in every relay mode; `list` changes nothing and stays allowed.
let fixture: HarnessFixture;
afterEach(async () => fixture?.dispose());

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const callerResults = () => fixture.model.requests.filter((request) => request.conversation === undefined).flatMap((request) => request.toolResults);

async function denyWorkspaceMutation(): Promise<string> {
  const rule = await api('POST', '/policy/rules', { scope: 'space', scopeId: fixture.spaceId, match: { kind: 'class', effectClass: 'workspaceMutation' }, decision: 'deny' });
  expect(rule.status).toBe(201);
  return rule.body.id as string;
}

async function otherConversation(name: string): Promise<string> {
  const space = await api('POST', '/spaces', { name });
  return (await api('POST', `/spaces/${space.body.id}/conversations`, { title: name })).body.id as string;
}

describe('relay_tool’s write actions are workspaceMutation, governed by the rules (SEC-9)', () => {
  it('agent mode: a space that denies workspaceMutation refuses send, create_session, stop and archive; list still runs', async () => {
    fixture = await startHarnessFixture();
    const ruleId = await denyWorkspaceMutation();
    const other = await otherConversation('Other');
    const spacesBefore = (await api('GET', '/spaces')).body.spaces.length;
    fixture.model.script(
      reply().tool('relay_tool', { action: 'list' }),
      reply().tool('relay_tool', { action: 'send', conversationId: other, text: 'hello' }),
      reply().tool('relay_tool', { action: 'create_session', title: 'Escape', text: 'run anything' }),
      reply().tool('relay_tool', { action: 'stop', conversationId: other }),
      reply().tool('relay_tool', { action: 'archive', conversationId: other }),
      reply().text('done'),
    );
    const detail = await fixture.waitForRun(await fixture.send('reach out'));
    const results = callerResults();
    expect(results[0]!.isError).toBe(false);
    for (const refused of results.slice(1, 5)) {
      expect(refused.isError).toBe(true);
      expect(refused.content).toContain(`Denied by policy (decided by space rule ${ruleId})`);
    }
    expect(detail.toolCalls.map((call: any) => [call.decision, call.classes])).toEqual([
      ['allow', []],
      ...Array.from({ length: 4 }, () => ['deny', ['workspaceMutation']]),
    ]);
    // Nothing happened elsewhere: no message, no new space, no archive mark.
    expect((await api('GET', `/conversations/${other}/messages`)).body.messages).toEqual([]);
    expect((await api('GET', '/spaces')).body.spaces).toHaveLength(spacesBefore);
    const db = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    expect(await db.selectFrom('conversation_archives').selectAll().execute()).toEqual([]);
  });

  it('plan mode (the tool asks first with its own card): the rule refuses before any card is shown', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    const ruleId = await denyWorkspaceMutation();
    const other = await otherConversation('Other');
    fixture.model.script(reply().tool('relay_tool', { action: 'send', conversationId: other, text: 'hello' }), reply().text('done'));
    await fixture.waitForRun(await fixture.send('reach out'));
    const [result] = callerResults();
    expect(result).toMatchObject({ isError: true });
    expect(result!.content).toContain(`space rule ${ruleId}`);
    expect((await api('GET', '/questions')).body.questions).toEqual([]);
    expect((await api('GET', `/conversations/${other}/messages`)).body.messages).toEqual([]);
  });
});
