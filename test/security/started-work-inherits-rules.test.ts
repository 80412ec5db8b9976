import { afterEach, describe, expect, it } from 'vitest';
import { useFakeAcpAgent } from '../support/fake-acp-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { waitFor } from '../support/wait-for.js';

// SEC-9: work an agent starts elsewhere — another conversation's turn or a new chat (relay_tool), a
// subagent (task), a delegate (delegate_task) — runs under rules no weaker than the agent's own. Space
// "Work" (the fixture's) refuses network egress; the work its agent starts lands where no rule says so.
let fixture: HarnessFixture;
afterEach(async () => fixture?.dispose());

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const EGRESS = 'curl -s http://127.0.0.1:9/';

async function spaceRule(spaceId: string, effectClass: string, decision: 'deny' | 'ask'): Promise<string> {
  const created = await api('POST', '/policy/rules', { scope: 'space', scopeId: spaceId, match: { kind: 'class', effectClass }, decision });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function openSpace(name: string): Promise<{ spaceId: string; conversationId: string }> {
  const space = await api('POST', '/spaces', { name });
  const conversation = await api('POST', `/spaces/${space.body.id}/conversations`, { title: name });
  return { spaceId: space.body.id, conversationId: conversation.body.id };
}

/** The newest run of a conversation (the one the relayed message started). */
async function runIn(conversationId: string): Promise<any> {
  const runs = (await api('GET', '/runs')).body.runs as any[];
  return runs.find((run) => run.conversationId === conversationId && run.parentRunId === null);
}

/** A matcher for the started run's model requests: its prompt carries the marker, the caller's does not. */
const startedWith = (marker: string) => (request: { lastUserText?: string | undefined }) => request.lastUserText?.includes(marker) === true;

describe('work an agent starts elsewhere runs under its rules too (SEC-9)', () => {
  it('relay_tool send: the other conversation’s egress is denied by the sender’s space rule, named on the result', async () => {
    fixture = await startHarnessFixture();
    const ruleId = await spaceRule(fixture.spaceId, 'networkEgress', 'deny');
    const open = await openSpace('Open');
    const started = fixture.model.scriptFor(startedWith('[relayed]'), reply().tool('bash', { command: EGRESS }), reply().text('tried'));
    fixture.model.script(reply().tool('relay_tool', { action: 'send', conversationId: open.conversationId, text: '[relayed] fetch the page' }), reply().text('sent'));
    const senderRunId = await fixture.send('ask the open space to fetch it');
    await fixture.waitForRun(senderRunId);

    const relayed = await waitFor(() => runIn(open.conversationId), (run) => run !== undefined, 'the relayed turn to start');
    const detail = await fixture.waitForRun(relayed.id);
    // The ceiling is recorded on the run itself, so a queued run, a worker and a restart all keep it.
    expect(detail.run.inheritedRules).toEqual([expect.objectContaining({ runId: senderRunId, spaceId: fixture.spaceId, spaceName: 'Work' })]);
    const bash = detail.toolCalls.find((call: any) => call.name === 'bash');
    expect(bash).toMatchObject({ executed: false, decision: 'deny', decidedBy: { scope: 'space', ruleId } });
    const result = started.requests[1]!.lastToolResult!;
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`space rule ${ruleId}, inherited from run ${senderRunId}`);
    expect(result.content).toContain(`"Work" (${fixture.spaceId})`);
  });

  it('relay_tool create_session: the new chat has no rules of its own and still runs under the sender’s', async () => {
    fixture = await startHarnessFixture();
    const ruleId = await spaceRule(fixture.spaceId, 'networkEgress', 'deny');
    fixture.model.scriptFor(startedWith('[spin-off]'), reply().tool('bash', { command: EGRESS }), reply().text('tried'));
    fixture.model.script(reply().tool('relay_tool', { action: 'create_session', title: 'Spin-off', text: '[spin-off] fetch the page' }), reply().text('created'));
    await fixture.waitForRun(await fixture.send('start a spin-off chat'));

    const spinOff = ((await api('GET', '/spaces')).body.spaces as any[]).find((space) => space.name === 'Spin-off');
    expect((await api('GET', '/policy/rules')).body.rules.filter((rule: any) => rule.scopeId === spinOff.id)).toEqual([]);
    const conversationId = (await api('GET', `/spaces/${spinOff.id}/conversations`)).body.conversations[0].id as string;
    const started = await waitFor(() => runIn(conversationId), (run) => run !== undefined, 'the spin-off turn to start');
    const detail = await fixture.waitForRun(started.id);
    expect(detail.toolCalls.find((call: any) => call.name === 'bash')).toMatchObject({ executed: false, decision: 'deny', decidedBy: { scope: 'space', ruleId } });
  });

  it('an ask in the sender’s space is at least an ask there: the approval card names the originating rule', async () => {
    fixture = await startHarnessFixture();
    const ruleId = await spaceRule(fixture.spaceId, 'networkEgress', 'ask');
    const open = await openSpace('Open');
    fixture.model.scriptFor(startedWith('[relayed]'), reply().tool('bash', { command: EGRESS }), reply().text('tried'));
    fixture.model.script(reply().tool('relay_tool', { action: 'send', conversationId: open.conversationId, text: '[relayed] fetch the page' }), reply().text('sent'));
    const senderRunId = await fixture.send('ask the open space to fetch it');

    const requested = await fixture.operator!.waitFor((event) => event.event === 'approval.requested', 15_000);
    const approval = requested.data.data;
    expect(approval.conversationId).toBe(open.conversationId);
    expect(approval.request.decidedBy).toEqual({ scope: 'space', ruleId });
    expect(approval.request.inheritedFrom).toMatchObject({ runId: senderRunId, spaceId: fixture.spaceId });
    expect(approval.request.explanation).toContain(`space rule ${ruleId}`);
    expect((await api('POST', `/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not from here' })).status).toBe(200);
    const detail = await fixture.waitForRun((await runIn(open.conversationId)).id);
    expect(detail.toolCalls.find((call: any) => call.name === 'bash')).toMatchObject({ executed: false, decision: 'ask' });
  });

  it('the ceiling is transitive: a relayed turn’s own relay, subagent and delegate stay under the first space’s rule', async () => {
    fixture = await startHarnessFixture();
    const ruleId = await spaceRule(fixture.spaceId, 'networkEgress', 'deny');
    const middle = await openSpace('Middle');
    const last = await openSpace('Last');
    const colleague = Object.values(fixture.agents).find((agent) => agent.name !== 'ceo')!;
    // The relayed turn in Middle relays on to Last, starts a subagent and delegates to a colleague;
    // each of those tries egress.
    fixture.model.scriptFor(
      startedWith('[middle]'),
      reply().tool('relay_tool', { action: 'send', conversationId: last.conversationId, text: '[last] fetch the page' }),
      reply().tool('task', { description: 'fetch', prompt: '[child] fetch the page' }),
      reply().tool('delegate_task', { agent: colleague.name, task: '[delegate] fetch the page' }),
      reply().text('middle done'),
    );
    const lastTurn = fixture.model.scriptFor(startedWith('[last]'), reply().tool('bash', { command: EGRESS }), reply().text('last tried'));
    const child = fixture.model.scriptFor(startedWith('[child]'), reply().tool('bash', { command: EGRESS }), reply().text('child tried'));
    const delegate = fixture.model.scriptFor(startedWith('[delegate]'), reply().tool('bash', { command: EGRESS }), reply().text('delegate tried'));
    fixture.model.script(reply().tool('relay_tool', { action: 'send', conversationId: middle.conversationId, text: '[middle] pass it on' }), reply().text('sent'));
    const senderRunId = await fixture.send('start the chain');
    await fixture.waitForRun(senderRunId);

    const middleRun = await waitFor(() => runIn(middle.conversationId), (run) => run !== undefined, 'the middle turn to start');
    await fixture.waitForRun(middleRun.id, 30_000);
    const lastRun = await waitFor(() => runIn(last.conversationId), (run) => run !== undefined, 'the last turn to start');
    const lastDetail = await fixture.waitForRun(lastRun.id);
    // Work, then Middle: the first space's rule travels the whole chain.
    expect(lastDetail.run.inheritedRules.map((scope: any) => scope.spaceId)).toEqual([fixture.spaceId, middle.spaceId]);
    for (const started of [lastTurn, child, delegate]) {
      await waitFor(async () => started.requests.length, (count) => count === 2, `${started.name} to see its tool result`);
      const result = started.requests[1]!.lastToolResult!;
      expect(result.isError).toBe(true);
      expect(result.content).toContain(`space rule ${ruleId}, inherited from run`);
    }
    const runs = (await api('GET', '/runs')).body.runs as any[];
    expect(runs.filter((run) => run.parentRunId === middleRun.id).every((run) => run.inheritedRules.some((scope: any) => scope.spaceId === fixture.spaceId))).toBe(true);
  });

  it('without an origin there is no ceiling: the same command in the open space, sent by the operator, runs', async () => {
    fixture = await startHarnessFixture();
    await spaceRule(fixture.spaceId, 'networkEgress', 'deny');
    const open = await openSpace('Open');
    fixture.model.scriptFor(startedWith('[direct]'), reply().tool('bash', { command: EGRESS }), reply().text('tried'));
    const posted = await api('POST', `/conversations/${open.conversationId}/messages`, { text: '[direct] fetch the page' });
    const detail = await fixture.waitForRun(posted.body.run.id);
    expect(detail.run.inheritedRules).toEqual([]);
    expect(detail.toolCalls.find((call: any) => call.name === 'bash')).toMatchObject({ executed: true, decision: 'allow' });
  });
});

const startAcp = useFakeAcpAgent();

describe('over the MCP endpoint too: an external runner’s relay_tool hands on its rules (SEC-9)', () => {
  it('an ACP agent in the locked space relays a command to an open space; the runner there is refused by the locked space’s rule', async () => {
    const { f, journal } = await startAcp();
    const rule = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'space', scopeId: f.spaceId, match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    const space = await f.api('POST', `/api/workspaces/${f.workspaceId}/spaces`, { name: 'Open', defaultAgentId: f.agentId });
    const open = (await f.api('POST', `/api/workspaces/${f.workspaceId}/spaces/${space.body.id}/conversations`, { title: 'Open' })).body.id as string;
    const relayed = { action: 'send', conversationId: open, text: `@permission execute ${EGRESS}` };
    const senderRunId = await f.send(`@mcp relay_tool ${JSON.stringify(relayed)}`);
    await f.waitForRun(senderRunId);
    expect(journal().find((entry) => entry.event === 'mcp')).toMatchObject({ tool: 'relay_tool', ok: true });

    const runs = (await f.api('GET', `/api/workspaces/${f.workspaceId}/runs`)).body.runs as any[];
    const started = runs.find((run) => run.conversationId === open)!;
    const detail = await f.waitForRun(started.id);
    expect(detail.run.inheritedRules).toEqual([expect.objectContaining({ runId: senderRunId, spaceId: f.spaceId })]);
    // The runner asked to run the command; the gate refused it, citing the locked space's rule.
    expect(journal().filter((entry) => entry.event === 'permission').map((entry) => entry.outcome.optionId)).toEqual(['no']);
    expect(f.decisions.filter((entry) => entry.action.kind === 'command').map((entry) => [entry.allow, entry.result.decidedBy?.ruleId])).toEqual([[false, rule.body.id]]);
    expect(f.decisions.find((entry) => entry.action.kind === 'command')!.result.reason).toContain(`inherited from run ${senderRunId}`);
  });
});
