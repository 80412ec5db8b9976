import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CopilotTransport, type CopilotTransportOptions } from '../../src/adapters/copilot/copilot-transport.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { pollFor, questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * The Copilot transport (RLY-7) end to end: the real `@github/copilot` runtime driven by
 * `@github/copilot-sdk`, offline with the model proxy as its BYOK provider, the run executor, the
 * policy engine and the question service, with the scripted model server speaking OpenAI Responses as
 * the only stand-in.
 */
/** The runtime unpacks ≈235 MB on first start; every test shares one unpacked copy (outside /tmp, which the sandbox replaces). */
const runtimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');

const start = useRunnerFixture('copilot', ({ app, base }, options: { mode?: 'chat' | 'plan'; autonomy?: string; transport?: Partial<CopilotTransportOptions> }) =>
  new CopilotTransport({ ...base, askUser: questionCards(app), runtimeCacheDir, ...options.transport }),
);

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.endsWith('/responses'));
const bash = (command: string) => reply().tool('bash', { command, description: 'run it' });
const pendingQuestion = (f: ClaudeCodeFixture) => pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/questions`)).body.questions[0], 'a question card', 60_000);

describe('Copilot transport: one turn per relay mode (RLY-7)', { timeout: 120_000 }, () => {
  it('agent: a writing command passes the policy gate and runs; every model call goes through the proxy with the broker’s key; the next message resumes the session', async () => {
    const f = await start();
    f.model.script(bash('echo made > agent.txt'), reply().text('Wrote agent.txt.'), reply().text('Still here.'));
    const first = await f.waitForRun(await f.send('make a file'));
    expect(first.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'agent.txt'))).toBe(true);
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', true]]);
    const second = await f.waitForRun(await f.send('and now?'));
    expect(second.run.state).toBe('completed');
    const requests = modelRequests(f);
    // SEC-6, and a message never runs on another provider: every model call of both turns reached the
    // conversation's provider through the broker, which put the real key on it.
    expect(requests).toHaveLength(3);
    expect(requests.every((request) => request.protocol === 'openai-responses' && request.headers.authorization === 'Bearer scripted-openai-key')).toBe(true);
    expect(f.model.unknownRequests).toEqual([]);
    // The second turn resumed the conversation's Copilot session: it carries the first turn.
    expect(requests[2]!.allText).toContain('make a file');
    expect(requests[2]!.allText).toContain('Wrote agent.txt.');
  });

  it('autopilot: commands run without approvals or cards', async () => {
    const f = await start({ autonomy: 'actFreely' });
    f.model.script(bash('echo go > auto.txt'), reply().text('Done.'));
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'auto.txt'))).toBe(true);
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals).toHaveLength(0);
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/questions`)).body.questions).toHaveLength(0);
  });

  it('plan: a mutating command is refused as plan mode and never runs; exit_plan_mode becomes a Plan ready board and is not approved', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(
      reply((request) => {
        // Copilot's own plan mode offers exit_plan_mode only when the message's agentMode is plan.
        expect(request.toolNames).toContain('exit_plan_mode');
        return bash('echo no > plan.txt');
      }),
      reply().tool('exit_plan_mode', { summary: '1. Add plan.txt\n2. Test it' }),
      reply().text('Waiting for the user.'),
    );
    const detail = await f.waitForRun(await f.send('plan it'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'plan.txt'))).toBe(false);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/You are in plan mode/);
    expect(modelRequests(f)[2]?.lastToolResult?.content ?? '').toMatch(/not approved/i);
    const boards = detail.events.filter((event: any) => event.type === 'plan_ready');
    expect(boards).toHaveLength(1);
    expect(boards[0].data).toMatchObject({ source: 'native' });
    expect(boards[0].data.plan).toMatch(/1\. Add plan\.txt/);
  });
});

describe('Copilot transport: Ask cards (RLY-7)', { timeout: 120_000 }, () => {
  it('ask: the card “Copilot wants to run: … Approve this action?” approved runs the command', async () => {
    const f = await start({ autonomy: 'askFirst' });
    f.model.script(bash('echo yes > ask.txt'), reply().text('Wrote it.'));
    const runId = await f.send('make a file');
    const question = await pendingQuestion(f);
    expect(question.questions).toEqual([{ question: 'Copilot wants to run: echo yes > ask.txt\nApprove this action?', options: ['Approve', 'Deny'], consent: true }]);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/questions/${question.id}/answer`, { answers: ['Approve'] })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'ask.txt'))).toBe(true);
    // The card replaced the approval: nothing waited in the approvals queue.
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals).toHaveLength(0);
    expect(detail.events.some((event: any) => event.type === 'plan_ready')).toBe(false);
  });

  it('ask: a typed reason denies the action, the command never runs, the reason reaches the agent, and a plan-like answer gets a board', async () => {
    const f = await start({ autonomy: 'askFirst' });
    f.model.script(bash('echo no > denied.txt'), reply().text('Plan instead:\n1. Ask again later\n2. Write the file then'));
    const runId = await f.send('make a file');
    const question = await pendingQuestion(f);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/questions/${question.id}/answer`, { answers: ['not before lunch'] })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'denied.txt'))).toBe(false);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/not before lunch/);
    expect(f.decisions.map((entry) => entry.allow)).toEqual([false]);
    // RLY-5: nothing was approved in this Ask turn and the answer reads like a plan.
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board?.data).toMatchObject({ source: 'answer' });
  });

  it('ask: a policy deny wins before any card is shown', async () => {
    const f = await start({ autonomy: 'askFirst' });
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch forbidden.txt' }, decision: 'deny' })).status).toBe(201);
    f.model.script(bash('touch forbidden.txt'), reply().text('The policy said no.'));
    const detail = await f.waitForRun(await f.send('touch it'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'forbidden.txt'))).toBe(false);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/Denied by the Control Center policy/);
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/questions?status=all`)).body.questions).toHaveLength(0);
    expect(f.decisions.map((entry) => [entry.allow, entry.result.decision])).toEqual([[false, 'deny']]);
  });
  it('ask: an unanswered card times out and the runtime is told nobody was available; the command never runs', async () => {
    const f = await start({ autonomy: 'askFirst' });
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { questionTimeoutSeconds: 5 })).status).toBe(200);
    f.model.script(bash('echo late > late.txt'), reply().text('Nobody answered.'));
    const detail = await f.waitForRun(await f.send('make a file'), 90_000);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'late.txt'))).toBe(false);
    expect(f.decisions.map((entry) => [entry.allow, entry.result.reason])).toEqual([[false, 'nobody answered the question card']]);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/no one could answer/);
  });
});

describe('Copilot transport: the completion contract over MCP (HAR-4)', { timeout: 120_000 }, () => {
  it('plan: submit_plan through the Control Center MCP server stores a plan and meets the contract', async () => {
    const f = await start({ mode: 'plan' });
    let offered: string[] = [];
    f.model.script(
      reply((request) => {
        offered = request.toolNames;
        const name = request.toolNames.find((tool) => tool.endsWith('submit_plan')) ?? 'submit_plan';
        return reply().tool(name, { goal: 'Ship the parser', nodes: [{ key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] }] });
      }),
      reply().text('Plan submitted.'),
    );
    const detail = await f.waitForRun(await f.send('plan the parser'));
    expect(detail.run.state).toBe('completed');
    expect(offered.some((tool) => tool.endsWith('submit_plan'))).toBe(true);
    expect(detail.run.deliverableFailed).toBe(false);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
  });

  it('plan: a run that ends without submit_plan is reminded in new messages, then flagged deliverableFailed', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(reply().text('Some thoughts.'), reply().text('Still thinking.'), reply().text('Done thinking.'));
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.run.state).toBe('completed');
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(2);
    expect(modelRequests(f)[1]!.lastUserText).toMatch(/submit_plan/);
    expect(detail.run.deliverableFailed).toBe(true);
  });
});

describe('Copilot transport: questions and failures', { timeout: 120_000 }, () => {
  it('ask_user becomes a question card and the answer goes back to Copilot (RLY-4)', async () => {
    const f = await start();
    f.model.script(reply().tool('ask_user', { question: 'Which colour?', choices: ['Red', 'Blue'] }), reply((request) => reply().text(`You chose: ${request.lastToolResult?.content ?? 'nothing'}`)));
    const runId = await f.send('ask me');
    const question = await pendingQuestion(f);
    expect(question.questions).toEqual([{ question: 'Which colour?', options: ['Red', 'Blue'] }]);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/questions/${question.id}/answer`, { answers: ['Blue'] })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/Blue/);
  });

  it('the runtime killed mid-turn fails the run with the reason (no silent worker death)', async () => {
    let pid = 0;
    const f = await start({ autonomy: 'actFreely', transport: { onSpawn: (spawned) => (pid = spawned) } });
    f.model.script(reply().hang());
    const runId = await f.send('hang');
    await f.model.waitForRequests(1, 60_000);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/Copilot runner ended without finishing the turn \(exit SIGKILL/);
  });
});

describe('Copilot transport in bubblewrap (SBX-1)', { timeout: 120_000 }, () => {
  it('plan: the runtime runs sandboxed, the worktree read-only and the data root hidden; a write is refused and not made', async () => {
    const f = await start({ mode: 'plan', transport: { sandbox: 'auto', allowUnsandboxed: false } });
    f.model.script(
      reply().tool('bash', { command: `cat ${join(f.dataRoot, 'operator-token')}; ls`, description: 'read' }),
      bash('touch plan.txt'),
      reply().text('1. Add plan.txt\n2. Test it'),
    );
    const detail = await f.waitForRun(await f.send('try to write'));
    expect(detail.run.error).toBeNull();
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    expect(modelRequests(f)[1]!.lastToolResult?.content ?? '').not.toContain(f.token);
    expect(existsSync(join(f.worktreePath(), 'plan.txt'))).toBe(false);
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board?.data).toMatchObject({ source: 'answer' });
  });
});
