import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import type { ScriptedRequest } from '../../support/scripted-reply.js';

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const step = (key: string) => (request: ScriptedRequest) => request.lastUserText?.includes(`— ${key}:`) === true;

const VALID_PLAN = {
  goal: 'Fix the login bug',
  nodes: [
    { key: 'reproduce', title: 'Reproduce the bug', description: 'Write a failing test.', dependsOn: [] },
    { key: 'docs', title: 'Read the auth docs', description: 'Summarise the token rules.', dependsOn: [] },
    { key: 'fix', title: 'Fix it', description: 'Make the test pass.', dependsOn: ['reproduce', 'docs'] },
  ],
};

async function waitForPlan(predicate: (plan: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const plans = (await api('GET', `/plans?conversationId=${fixture.conversationId}`)).body.plans;
    const found = plans.find(predicate);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no plan matched; plans: ${JSON.stringify(plans.map((plan: any) => [plan.status, plan.progress]))}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('plan mode end to end (PLAN-1..8, MODE-4)', () => {
  it('/plan → read-only run → invalid plan gets every violation → valid plan → approve → steps run in dependency order', async () => {
    fixture = await startHarnessFixture();
    fixture.model.script(
      reply().tool('write', { path: 'sneaky.txt', content: 'x' }),
      reply().tool('submit_plan', {
        goal: 'Fix the login bug',
        nodes: [
          { key: 'a', title: 'A', description: '', dependsOn: ['b', 'ghost'] },
          { key: 'a', title: '', description: '', dependsOn: [] },
          { key: 'b', title: 'B', description: '', dependsOn: ['a'] },
        ],
      }),
      reply().tool('submit_plan', VALID_PLAN),
      reply().text('Plan submitted for approval.'),
    );
    const started = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: '/plan fix the login bug' });
    expect(started.status).toBe(202);
    expect(started.body.space).toMatchObject({ mode: 'plan', picker: 'Plan' });
    expect(started.body.message.content).toBe('fix the login bug');
    expect(started.body.message.mode).toBe('plan');
    const planRun = await fixture.waitForRun(started.body.run.id);
    expect(planRun.run).toMatchObject({ state: 'completed', mode: 'plan', deliverableFailed: false });

    // Read-only: no write tools on the surface; the shell is not there either, and its classification denies writes.
    const surface = fixture.model.requests[0]!.toolNames;
    expect(surface).toEqual(expect.arrayContaining(['read', 'grep', 'submit_plan', 'exit_plan_mode', 'ask_user']));
    for (const name of ['write', 'edit', 'bash']) expect(surface).not.toContain(name);
    const probe = await api('POST', '/policy/probe', { spaceId: fixture.spaceId, command: 'echo hacked > notes.txt' });
    expect(probe.body).toMatchObject({ decision: 'deny', mode: 'plan', decidedBy: { scope: 'mode' } });
    expect(planRun.toolCalls[0]).toMatchObject({ name: 'write', executed: false, isError: true });

    // Every violation at once, and nothing stored.
    const violations = fixture.model.requests[2]!.lastToolResult!;
    expect(violations.isError).toBe(true);
    for (const fragment of ['duplicate', 'ghost', 'title', 'cycle']) expect(violations.content.toLowerCase()).toContain(fragment);
    const plans = (await api('GET', `/plans?conversationId=${fixture.conversationId}`)).body.plans;
    expect(plans).toHaveLength(1);
    const plan = plans[0];
    expect(plan).toMatchObject({ version: 1, goal: 'Fix the login bug', status: 'proposed', stepCount: 3, progress: { settled: 0, total: 3 } });
    expect(plan.costEstimate.perNode).toHaveLength(3);
    // The agent has no finished runs yet: nothing to estimate from, so no figures (TRUTH-3).
    expect(plan.costEstimate).toMatchObject({ basis: 'noHistory', unknownReason: 'no run history', total: { usd: null } });
    const submitted = await fixture.operator!.waitFor((event) => event.event === 'plan.submitted');
    expect(submitted.data.data.id).toBe(plan.id);

    // Approve: steps run (reproduce and docs in parallel, fix after both).
    const order: string[] = [];
    fixture.model.scriptFor(step('reproduce'), reply((request) => (order.push(`start:reproduce@${request.receivedAt}`), reply().text('reproduced'))));
    fixture.model.scriptFor(step('docs'), reply((request) => (order.push(`start:docs@${request.receivedAt}`), reply().text('read'))));
    fixture.model.scriptFor(step('fix'), reply((request) => (order.push(`start:fix@${request.receivedAt}`), reply().text('fixed'))));
    const approved = await api('POST', `/plans/${plan.id}/approve`);
    expect(approved.status).toBe(200);
    expect((await api('GET', `/spaces/${fixture.spaceId}`)).body.mode).toBe('chat');
    expect((await api('GET', `/conversations/${fixture.conversationId}`)).body.goal).toBe('Fix the login bug');
    const finished = await waitForPlan((candidate) => candidate.status === 'completed');
    expect(finished.progress).toEqual({ settled: 3, total: 3 });
    expect(finished.nodes.map((node: any) => node.state)).toEqual(['done', 'done', 'done']);
    expect(order.at(-1)).toMatch(/^start:fix/);
    expect(order.slice(0, 2).map((entry) => entry.split('@')[0]).sort()).toEqual(['start:docs', 'start:reproduce']);
    const messages = (await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages;
    expect(messages.filter((message: any) => message.authorKind === 'system' && message.content.includes('Now do step')).length).toBe(3);
    expect((await api('POST', `/plans/${plan.id}/approve`)).status).toBe(409);
  });

  it('a bare /plan only arms plan mode and sends nothing (MODE-4)', async () => {
    fixture = await startHarnessFixture();
    const armed = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: '/plan' });
    expect(armed.status).toBe(202);
    expect(armed.body).toMatchObject({ message: null, run: null, space: { mode: 'plan' } });
    // Nothing is sent; the only line is the one saying the mode changed (and why).
    const messages = (await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages;
    expect(messages.map((message: any) => [message.role, message.content])).toEqual([['system', 'Mode set to Plan (was Agent) because /plan was sent.']]);
    expect(fixture.model.requests).toHaveLength(0);
  });

  it('a plan-mode run that ends without submit_plan is reminded, then flagged; its state stays completed (PLAN-5, PLAN-6)', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    fixture.model.script(reply().text('Here are my thoughts.'), reply().text('Still no plan.'), reply().text('No plan needed.'));
    const runId = await fixture.send('what do you think?');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run).toMatchObject({ state: 'completed', deliverableFailed: true });
    expect(fixture.model.requests[1]!.lastUserText).toMatch(/You have not called `submit_plan` yet/);
    expect(fixture.model.requests[1]!.lastUserText).toMatch(/no plan needed/);
    const messages = (await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: 'system', content: 'Ended without submitting a plan (no submit_plan call).' });
  });

  it('a rejected plan wakes its agent with the reason', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    fixture.model.script(reply().tool('submit_plan', VALID_PLAN), reply().text('submitted'));
    await fixture.waitForRun(await fixture.send('plan it'));
    const plan = await waitForPlan((candidate) => candidate.status === 'proposed');
    fixture.model.script(reply().tool('submit_plan', { ...VALID_PLAN, goal: 'Fix the login bug, smaller' }), reply().text('revised'));
    const rejected = await api('POST', `/plans/${plan.id}/reject`, { reason: 'Too big: skip the docs step.' });
    expect(rejected.body.status).toBe('rejected');
    const revised = await waitForPlan((candidate) => candidate.version === 2);
    expect(revised.goal).toBe('Fix the login bug, smaller');
    expect(fixture.model.requests[2]!.lastUserText).toContain('Too big: skip the docs step.');
  });
});

describe('exit_plan_mode (PLAN-9)', () => {
  it('pending on first call, no second gate, switches the space after approval; a rejection allows a new request', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    fixture.model.script(reply().tool('exit_plan_mode', { summary: 'implement' }), reply().tool('exit_plan_mode', {}), reply().tool('submit_plan', VALID_PLAN), reply().text('waiting'));
    const first = await fixture.waitForRun(await fixture.send('go'));
    expect(first.toolCalls[0].output).toMatch(/^pending/);
    expect(first.toolCalls[1].output).toMatch(/^pending/);
    let approvals = (await api('GET', '/approvals?status=pending')).body.approvals.filter((approval: any) => approval.kind === 'plan_exit');
    expect(approvals).toHaveLength(1);
    expect((await api('GET', `/spaces/${fixture.spaceId}`)).body.mode).toBe('plan');

    // A rejection wakes the agent with the reason (POL-7); its next call opens a new request.
    fixture.model.script(reply().tool('exit_plan_mode', {}), reply().tool('submit_plan', VALID_PLAN), reply().text('asked again'));
    await api('POST', `/approvals/${approvals[0].id}/decision`, { decision: 'reject', reason: 'not yet' });
    const woken = await fixture.operator!.waitFor((event) => event.event === 'run.created' && event.data.data.id !== first.run.id);
    const second = await fixture.waitForRun(woken.data.data.id);
    expect(fixture.model.requests[4]!.lastUserText).toContain('rejected your request to leave plan mode: not yet');
    expect(second.toolCalls[0].output).toMatch(/^pending: opened plan-exit request .* \(the previous request was rejected: not yet\)/);
    approvals = (await api('GET', '/approvals?status=pending')).body.approvals.filter((approval: any) => approval.kind === 'plan_exit');
    expect(approvals).toHaveLength(1);

    // An approval wakes it too; its next call switches the space to chat.
    fixture.model.script(reply().tool('exit_plan_mode', {}), reply().text('switched'));
    await api('POST', `/approvals/${approvals[0].id}/decision`, { decision: 'approve' });
    const third = await fixture.waitForRun(
      (await fixture.operator!.waitFor((event) => event.event === 'run.created' && ![first.run.id, second.run.id].includes(event.data.data.id))).data.data.id,
    );
    expect(third.toolCalls[0].output).toMatch(/^approved/);
    expect((await api('GET', `/spaces/${fixture.spaceId}`)).body.mode).toBe('chat');
    // The switch is said in the conversation, as the change of the operator who approved it.
    const notes = (await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages.filter((message: any) => message.role === 'system' && message.authorKind === 'operator');
    expect(notes.map((note: any) => note.content)).toEqual(["Mode set to Agent (was Plan) because the agent's request to leave plan mode was approved."]);
    const decided = (await api('GET', `/approvals?conversationId=${fixture.conversationId}`)).body.approvals.find((approval: any) => approval.id === approvals[0].id);
    expect(notes[0].authorId).toEqual(expect.stringMatching(/\S/));
    expect(notes[0].authorId).toBe(decided.decidedBy);
  });
});
