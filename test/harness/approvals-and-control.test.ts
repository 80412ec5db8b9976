import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_RESPONSE_LINE } from '../../src/services/approvals/question-service.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { pollFor } from '../support/relay-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

const worktree = () => join(fixture.workspaceDir, 'worktrees', fixture.conversationId);
const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

async function nextApproval(): Promise<any> {
  const event = await fixture.operator!.waitFor((candidate) => candidate.event === 'approval.requested' && candidate.data.data.status === 'pending');
  return event.data.data;
}

describe('approvals (POL-4, POL-7)', () => {
  it('ask → approve: the call waits for the operator, then runs; the rule that asked is recorded', async () => {
    fixture = await startHarnessFixture();
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    fixture.model.script(reply().tool('bash', { command: 'touch approved.txt' }), reply().text('created'));
    const runId = await fixture.send('make a file');
    const approval = await nextApproval();
    expect(approval).toMatchObject({ kind: 'tool', runId, request: { toolName: 'bash', summary: 'touch approved.txt' } });
    expect(existsSync(join(worktree(), 'approved.txt'))).toBe(false);
    const run = await api('GET', `/runs/${runId}`);
    expect(run.body.run.liveness).toBe('blocked');
    expect((await api('GET', `/agents/${fixture.agents.ceo!.id}`)).body.state).toBe('blocked');
    const presence = (await api('GET', '/presence')).body.presence.find((item: any) => item.agentId === fixture.agents.ceo!.id);
    expect(presence.status).toBe('blocked');

    const decided = await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(worktree(), 'approved.txt'))).toBe(true);
    expect(detail.toolCalls[0]).toMatchObject({ decision: 'ask', decidedBy: { scope: 'workspace', ruleId: rule.body.id }, executed: true });
    const again = await api('POST', `/approvals/${approval.id}/decision`, { decision: 'reject' });
    expect(again.status).toBe(409);
  });

  it('ask → reject: nothing runs and the reason reaches the model', async () => {
    fixture = await startHarnessFixture();
    await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'ask' });
    mkdirSync(worktree(), { recursive: true });
    fixture.model.script(reply().tool('bash', { command: 'mkdir keep && rm -r keep' }), reply().text('understood'));
    const runId = await fixture.send('clean up');
    const approval = await nextApproval();
    expect(approval.request.classes).toContain('fileDelete');
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'Keep that directory, we need it.' });
    const detail = await fixture.waitForRun(runId);
    expect(detail.toolCalls[0]).toMatchObject({ executed: false, isError: true });
    expect(fixture.model.requests[1]!.lastToolResult!.content).toContain('Keep that directory, we need it.');
    expect(existsSync(join(worktree(), 'keep'))).toBe(false);
  });

  it('no operator connected: an ask resolves to deny at once (fail closed)', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    fixture.model.script(reply().tool('bash', { command: 'rm -f nothing.txt' }), reply().text('ok'));
    const runId = await fixture.send('delete');
    const detail = await fixture.waitForRun(runId);
    expect(detail.toolCalls[0]).toMatchObject({ decision: 'ask', executed: false, isError: true });
    expect(detail.toolCalls[0].output).toMatch(/no operator is connected/);
    expect((await api('GET', '/approvals')).body.approvals).toEqual([]);
  });

  it('an unanswered approval times out and is denied', async () => {
    fixture = await startHarnessFixture();
    await api('PATCH', '/settings', { approvalTimeoutSeconds: 5 });
    fixture.model.script(reply().tool('bash', { command: 'git push origin main' }), reply().text('ok'));
    const runId = await fixture.send('push');
    await nextApproval();
    const detail = await fixture.waitForRun(runId, 15_000);
    expect(detail.toolCalls[0].output).toMatch(/never a yes/);
    const approvals = (await api('GET', '/approvals')).body.approvals;
    expect(approvals[0].status).toBe('expired');
  });

  it('"remember this choice" records a workspace rule: the same action is not asked again', async () => {
    fixture = await startHarnessFixture();
    await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    fixture.model.script(reply().tool('bash', { command: 'touch a.txt' }), reply().text('one'), reply().tool('bash', { command: 'touch a.txt' }), reply().text('two'));
    const first = await fixture.send('first');
    const approval = await nextApproval();
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve', remember: true });
    await fixture.waitForRun(first);
    const rules = (await api('GET', '/policy/rules')).body.rules;
    expect(rules.some((rule: any) => rule.match.kind === 'fingerprint' && rule.decision === 'allow')).toBe(true);
    const second = await fixture.send('second');
    const detail = await fixture.waitForRun(second);
    expect(detail.toolCalls[0]).toMatchObject({ decision: 'allow', decidedBy: { scope: 'workspace' }, executed: true });
    expect((await api('GET', '/approvals')).body.approvals).toHaveLength(1);
  });

  it('a deny rule survives the actFreely dial (Autopilot)', async () => {
    fixture = await startHarnessFixture({ space: { autonomy: 'actFreely' } });
    const rule = await api('POST', '/policy/rules', { scope: 'space', scopeId: fixture.spaceId, match: { kind: 'command', prefix: 'git push' }, decision: 'deny' });
    fixture.model.script(reply().tool('bash', { command: 'timeout 5 git -C . push origin main' }), reply().text('ok'));
    const runId = await fixture.send('push it');
    const detail = await fixture.waitForRun(runId);
    expect(detail.toolCalls[0]).toMatchObject({ decision: 'deny', decidedBy: { scope: 'space', ruleId: rule.body.id }, executed: false });
    expect(detail.toolCalls[0].output).toContain(rule.body.id);
  });
});

describe('questions (PLAN-4, RLY-4)', () => {
  it('ask_user blocks until the operator answers; the answer reaches the model', async () => {
    fixture = await startHarnessFixture();
    fixture.model.script(reply().tool('ask_user', { questions: [{ question: 'Which database?', options: ['SQLite', 'PostgreSQL'] }] }), reply().text('thanks'));
    const runId = await fixture.send('set up storage');
    const asked = await fixture.operator!.waitFor((event) => event.event === 'question.asked');
    const pending = (await api('GET', '/questions')).body.questions;
    expect(pending).toHaveLength(1);
    const wrongCount = await api('POST', `/questions/${asked.data.data.id}/answer`, { answers: ['a', 'b'] });
    expect(wrongCount.status).toBe(400);
    expect((await api('POST', `/questions/${asked.data.data.id}/answer`, { answers: ['PostgreSQL'] })).status).toBe(200);
    await fixture.waitForRun(runId);
    expect(fixture.model.requests[1]!.lastToolResult!.content).toContain('PostgreSQL');
  });

  it('an unanswered question times out and the agent is told so', async () => {
    fixture = await startHarnessFixture();
    await api('PATCH', '/settings', { questionTimeoutSeconds: 5 });
    fixture.model.script(reply().tool('ask_user', { questions: [{ question: 'Anyone?' }] }), reply().text('continuing'));
    const runId = await fixture.send('ask me');
    await fixture.waitForRun(runId, 15_000);
    expect(fixture.model.requests[1]!.lastToolResult!.content).toContain(NO_RESPONSE_LINE);
  });
});

describe('run control on the built-in harness (HAR-5)', () => {
  it('steering injects a message into the running turn', async () => {
    fixture = await startHarnessFixture();
    await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    fixture.model.script(reply().tool('bash', { command: 'touch x' }), reply().text('adjusted'));
    const runId = await fixture.send('go');
    const approval = await nextApproval();
    expect((await api('POST', `/runs/${runId}/steer`, { text: 'Also mention the weather.' })).status).toBe(200);
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    const detail = await fixture.waitForRun(runId);
    expect(fixture.model.requests[1]!.lastUserText).toBe('Also mention the weather.');
    expect(detail.events.map((event: any) => event.type)).toContain('steering_injected');
    expect((await api('POST', `/runs/${runId}/steer`, { text: 'too late' })).status).toBe(409);
  });

  it('pause holds the run before its next model call; resume continues it; cancel ends it cancelled', async () => {
    fixture = await startHarnessFixture();
    await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    fixture.model.script(reply().tool('bash', { command: 'touch y' }), reply().text('after pause'));
    const runId = await fixture.send('go');
    const approval = await nextApproval();
    expect((await api('POST', `/runs/${runId}/pause`)).status).toBe(200);
    expect((await api('POST', `/runs/${runId}/pause`)).status).toBe(409);
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    // Held, positively: the loop has reached its pause point and waits there to be resumed (a quiet
    // window would pass a run that is only slow to make its next model call).
    await pollFor(async () => (fixture.server.running.app.activeRuns.get(runId)?.resumeWaiters.length ?? 0) > 0, 'the run to wait at its pause point', 10_000);
    expect(existsSync(join(worktree(), 'y'))).toBe(true);
    expect(fixture.model.requests).toHaveLength(1);
    expect((await api('POST', `/runs/${runId}/resume`)).status).toBe(200);
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(fixture.model.requests).toHaveLength(2);

    fixture.model.script(reply().text('slow...').hang());
    const second = await fixture.send('again');
    await fixture.model.waitForRequests(3);
    expect((await api('POST', `/runs/${second}/cancel`)).status).toBe(200);
    const cancelled = await fixture.waitForRun(second);
    expect(cancelled.run.state).toBe('cancelled');
    expect((await api('POST', `/runs/${second}/cancel`)).status).toBe(404);
  });
});

describe('liveness (AG-5)', () => {
  it('repeated identical calls mark the run looping', async () => {
    fixture = await startHarnessFixture();
    const same = () => reply().tool('list', { path: '.' });
    fixture.model.script(same(), same(), same(), same(), reply().text('stopping'));
    const runId = await fixture.send('loop');
    await fixture.operator!.waitFor((event) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.liveness === 'looping');
    const detail = await fixture.waitForRun(runId);
    expect(detail.events.map((event: any) => event.type)).toContain('looping_detected');
  });

  it('a silent run is marked stalled by the watchdog and recovers on the next event', async () => {
    fixture = await startHarnessFixture({ server: { minuteMs: 100 } });
    await api('PATCH', `/agents/${fixture.agents.ceo!.id}`, { silenceTimeoutMinutes: 1 });
    fixture.model.script(reply().text('thinking hard').slow(400), reply().text('unused'));
    const runId = await fixture.send('think');
    await fixture.operator!.waitFor((event) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.liveness === 'stalled');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
  });
});

describe('subagents (HAR-5)', () => {
  it("a subagent's surface is never wider than its parent's", async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    fixture.model.script(
      reply().tool('task', { description: 'research', prompt: 'look around [child]' }),
      reply().tool('submit_plan', { goal: 'g', nodes: [{ key: 'a', title: 'A', description: 'd', dependsOn: [] }] }),
      reply().text('parent done'),
    );
    const child = fixture.model.scriptFor((request) => request.lastUserText?.includes('[child]') === true, reply().tool('write', { path: 'child.txt', content: 'x' }), reply().text('child report: nothing to write'));
    const runId = await fixture.send('plan something');
    const detail = await fixture.waitForRun(runId);
    expect(child.requests[0]!.toolNames).not.toContain('write');
    expect(child.requests[0]!.toolNames.every((name: string) => fixture.model.requests[0]!.toolNames.includes(name))).toBe(true);
    expect(existsSync(join(worktree(), 'child.txt'))).toBe(false);
    expect(detail.toolCalls[0]).toMatchObject({ name: 'task', isError: false });
    expect(detail.toolCalls[0].output).toContain('child report');
    const runs = (await api('GET', '/runs')).body.runs;
    expect(runs.find((run: any) => run.parentRunId === runId)).toMatchObject({ depth: 1, mode: 'plan', state: 'completed' });
  });
});
