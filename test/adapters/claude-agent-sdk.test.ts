import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeAgentSdkTransport, type ClaudeAgentSdkTransportOptions } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { NO_RESPONSE_LINE } from '../../src/services/approvals/question-service.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { pollFor, questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * The Claude Agent SDK transport (RLY-7) end to end: the real SDK and its Claude Code engine, the
 * run executor, the policy engine, the question service and `/mcp`, with the scripted model server
 * (reached through the model proxy) as the only stand-in. Without the OS sandbox, so that what the
 * host's hook and canUseTool enforce is shown on its own.
 */
const start = useRunnerFixture('claude-agent-sdk', ({ app, base }, options: { mode?: 'chat' | 'plan'; autonomy?: string; transport?: Partial<ClaudeAgentSdkTransportOptions> }) =>
  new ClaudeAgentSdkTransport({ ...base, askUser: questionCards(app), ...options.transport }),
);

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages'));

function toolCall(detail: any, name: string): any {
  return detail.toolCalls.find((call: any) => call.name === name);
}

describe('Claude Agent SDK transport: one turn per relay mode (RLY-7)', () => {
  it('agent: a Bash command passes the policy gate and runs; nothing is added to the system prompt', async () => {
    const f = await start();
    f.model.script(reply().tool('Bash', { command: 'echo made > agent.txt' }), reply().text('Wrote agent.txt.'));
    const detail = await f.waitForRun(await f.send('make a file'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'agent.txt'))).toBe(true);
    const bash = toolCall(detail, 'Bash');
    expect(bash.isError).toBe(false);
    const first = modelRequests(f)[0]!;
    expect(first.system).not.toMatch(/Relay mode (Ask|Autopilot)/);
    expect(detail.run.sandbox).toMatch(/^none: /);
  });

  it('ask: the system prompt carries the Ask sentences, and a command the operator denies is never executed', async () => {
    const f = await start({ autonomy: 'askFirst' });
    const target = join(f.worktreePath(), 'ask.txt');
    f.model.script(reply().tool('Bash', { command: `echo no > ${target}` }), reply().text('The user said no.'));
    const runId = await f.send('make a file');
    const approval = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals[0], 'an approval');
    const decided = await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not now' });
    expect(decided.status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(target)).toBe(false);
    expect(toolCall(detail, 'Bash').isError).toBe(true);
    expect(modelRequests(f)[0]!.system).toMatch(/Relay mode Ask/);
    expect(modelRequests(f)[1]!.lastToolResult!.content).toMatch(/Control Center/);
  });

  it('autopilot: the system prompt carries the Autopilot sentences and commands run without asking', async () => {
    const f = await start({ autonomy: 'actFreely' });
    f.model.script(reply().tool('Bash', { command: 'echo go > auto.txt' }), reply().text('Done.'));
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'auto.txt'))).toBe(true);
    expect(modelRequests(f)[0]!.system).toMatch(/Relay mode Autopilot/);
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals).toHaveLength(0);
  });

  it('plan: a Write is refused by the host although the SDK’s plan mode would let it through, and a mutating command is denied by the mode floor', async () => {
    const f = await start({ mode: 'plan' });
    const target = join(f.worktreePath(), 'plan.txt');
    f.model.script(
      reply().tool('Write', { file_path: target, content: 'should not exist' }),
      reply().tool('Bash', { command: `rm -rf ${join(f.worktreePath(), 'anything')}` }),
      reply().text('1. Add the file\n2. Test it'),
    );
    const detail = await f.waitForRun(await f.send('write a file'));
    expect(existsSync(target)).toBe(false);
    const write = toolCall(detail, 'Write');
    expect(write.isError).toBe(true);
    expect(write.output).toMatch(/read-only mode/);
    const bash = toolCall(detail, 'Bash');
    expect(bash.isError).toBe(true);
    expect(bash.output).toMatch(/mode:plan:forbid/);
    // The plan-like final answer still yields the board (RLY-5 fallback).
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board.data).toMatchObject({ source: 'answer' });
  });

  it('plan: ExitPlanMode shows the Plan ready board and is denied, so the turn does not implement', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(reply().tool('ExitPlanMode', { plan: '1. Add a file\n2. Test it' }), reply().text('Waiting for your review.'));
    const detail = await f.waitForRun(await f.send('plan it'));
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board.data).toEqual({ type: 'plan_ready', plan: '1. Add a file\n2. Test it', source: 'native' });
    const exit = toolCall(detail, 'ExitPlanMode');
    expect(exit.isError).toBe(true);
    expect(modelRequests(f)[1]!.lastToolResult!.content).toMatch(/Plan ready for review.*do not implement/s);
  });
});

describe('Claude Agent SDK transport: the policy gate and the MCP server (POL-1)', () => {
  it('ask: a native Write waits for approval, and a rejected write leaves no file', async () => {
    const f = await start({ autonomy: 'askFirst' });
    const target = join(f.worktreePath(), 'written.txt');
    f.model.script(reply().tool('Write', { file_path: target, content: 'no' }), reply().text('Not written.'));
    const runId = await f.send('write it');
    const approval = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals[0], 'an approval');
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'no' })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(existsSync(target)).toBe(false);
    expect(toolCall(detail, 'Write').isError).toBe(true);
    expect(f.decisions.find((entry) => entry.toolName === 'Write')).toMatchObject({ allow: false, action: { kind: 'fileWrite', path: target } });
  });

  it('plan: submit_plan over the Control Center MCP server stores a plan and meets the completion contract', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(
      reply().tool('mcp__control-center__submit_plan', {
        goal: 'Ship the parser',
        nodes: [
          { key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] },
          { key: 'write', title: 'Write the parser', description: 'Do it.', dependsOn: ['read'] },
        ],
      }),
      reply().text('Plan submitted.'),
    );
    const detail = await f.waitForRun(await f.send('plan the parser'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.deliverableFailed).toBe(false);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
    expect(detail.events.some((event: any) => event.type === 'output_verb_delivered' && event.data.toolName === 'submit_plan')).toBe(true);
  });

  it('plan: a run that ends without submit_plan is reminded, then flagged deliverableFailed', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(reply().text('Some thoughts.'), reply().text('Still thinking.'), reply().text('Done thinking.'));
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.run.state).toBe('completed');
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(2);
    expect(detail.run.deliverableFailed).toBe(true);
  });

  it('without a sandbox and without the operator opt-in the run fails with the reason and never starts the runner', async () => {
    let spawned = false;
    const f = await start({ transport: { sandbox: 'none', allowUnsandboxed: false, onSpawn: () => (spawned = true) } });
    const detail = await f.waitForRun(await f.send('hello'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/needs an OS sandbox/);
    expect(spawned).toBe(false);
    expect(f.model.requests).toHaveLength(0);
  });
});

describe('Claude Agent SDK transport: question cards (RLY-4)', () => {
  it('AskUserQuestion becomes a question card; the answer returns to the agent', async () => {
    const f = await start();
    f.model.script(
      reply().tool('AskUserQuestion', { questions: [{ question: 'Which colour?', header: 'Colour', multiSelect: false, options: [{ label: 'Red', description: 'r' }, { label: 'Blue', description: 'b' }] }] }),
      reply().text('Blue it is.'),
    );
    const runId = await f.send('pick a colour');
    const question = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/questions`)).body.questions[0], 'a question card');
    expect(question.questions).toEqual([{ question: 'Which colour?', options: ['Red', 'Blue'] }]);
    const answered = await f.api('POST', `/api/workspaces/${f.workspaceId}/questions/${question.id}/answer`, { answers: ['Blue'] });
    expect(answered.status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(modelRequests(f)[1]!.lastToolResult!.content).toMatch(/"Which colour\?"="Blue"/);
  });

  it('an unanswered card times out and the agent is told the RLY-4 line', async () => {
    const f = await start();
    const patched = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { questionTimeoutSeconds: 5 });
    expect(patched.status).toBe(200);
    f.model.script(reply().tool('AskUserQuestion', { questions: [{ question: 'Proceed?', header: 'Go', multiSelect: false, options: [{ label: 'Yes', description: 'y' }, { label: 'No', description: 'n' }] }] }), reply().text('Continuing.'));
    const detail = await f.waitForRun(await f.send('ask me'), 60_000);
    expect(detail.run.state).toBe('completed');
    expect(modelRequests(f)[1]!.lastToolResult!.content).toContain(NO_RESPONSE_LINE);
  });
});

describe('Claude Agent SDK transport: failures are reported', () => {
  it('the runner process dying mid-turn fails the run with the reason (no silent death)', async () => {
    const f = await start({ autonomy: 'actFreely' });
    let pid = 0;
    f.app.executor.registerTransport(
      new ClaudeAgentSdkTransport({
        hookSessions: f.app.hookSessions,
        sandbox: 'none',
        allowUnsandboxed: true,
        askUser: async () => [],
        onSpawn: (spawned) => (pid = spawned),
      }),
    );
    f.model.script(reply().hang());
    const runId = await f.send('hang');
    await f.model.waitForRequests(1);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/Claude Agent SDK runner ended without a result|SIGKILL|exit/);
  });
});

describe('Claude Agent SDK transport in bubblewrap (SBX-1)', () => {
  it('inside bubblewrap a write outside the worktree fails at the OS level and the data root is hidden', async () => {
    const f = await start({ transport: { sandbox: 'auto', allowUnsandboxed: false } });
    const outside = join(f.dataRoot, 'escaped.txt');
    f.model.script(
      reply().tool('Bash', { command: `echo escaped > ${outside}` }),
      reply().tool('Bash', { command: 'echo stays > inside.txt && cat inside.txt' }),
      reply().tool('Bash', { command: `cat ${join(f.dataRoot, 'operator-token')}` }),
      reply().text('done'),
    );
    const detail = await f.waitForRun(await f.send('try to escape'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/^bubblewrap: worktree writable/);
    // The policy allowed every command: the OS refused the escape.
    expect(f.decisions.filter((entry) => entry.source === 'hook').map((entry) => entry.allow)).toEqual([true, true, true]);
    const results = modelRequests(f).slice(1, 4).map((request) => request.lastToolResult?.content ?? '');
    expect(results[0]).toMatch(/Read-only file system/);
    expect(results[1]).toMatch(/stays/);
    expect(results[2]).toMatch(/No such file or directory/);
    expect(results[2]).not.toContain(f.token);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(f.worktreePath(), 'inside.txt'))).toBe(true);
  });
});
