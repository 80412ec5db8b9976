import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexTransport, type CodexTransportOptions } from '../../src/adapters/codex/codex-transport.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { pollFor, questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * The Codex transport (RLY-7) end to end: the real `codex app-server` (the npm package's native
 * binary) over JSON-RPC, the run executor, the policy engine, the approval and question services and
 * the model proxy, with the scripted model server speaking OpenAI Responses as the only stand-in.
 */
const start = useRunnerFixture('codex', ({ app, base }, options: { mode?: 'chat' | 'plan'; autonomy?: string; transport?: Partial<CodexTransportOptions> }) =>
  new CodexTransport({ ...base, askUser: questionCards(app), ...options.transport }),
);

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.endsWith('/responses'));

/** An `exec_command` call that asks to leave Codex's read-only sandbox (how a write reaches the host's gate). */
const escalated = (cmd: string) => reply().tool('exec_command', { cmd, sandbox_permissions: 'require_escalated', justification: 'needs to write' });

describe('Codex transport: one turn per relay mode (RLY-7)', () => {
  it('agent: an escalated command passes the policy gate and runs; the model is reached through the proxy with the broker’s key', async () => {
    const f = await start();
    f.model.script(escalated('echo made > agent.txt'), reply().text('Wrote agent.txt.'));
    const detail = await f.waitForRun(await f.send('make a file'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'agent.txt'))).toBe(true);
    const requests = modelRequests(f);
    expect(requests[0]!.protocol).toBe('openai-responses');
    // SEC-6: the runner held only the run token; the broker put the real key on the upstream request.
    expect(requests.every((request) => request.headers.authorization === 'Bearer scripted-openai-key')).toBe(true);
    expect(requests[0]!.allText).not.toMatch(/Relay mode (Ask|Autopilot)/);
    expect(requests[1]!.lastToolResult?.content).toMatch(/exited with code 0|Exit code: 0/);
    expect(detail.toolCalls.find((call: any) => call.name === 'exec_command')?.isError).toBe(false);
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', true]]);
  });

  it('ask: the operator rejects the approval, and the command is never executed', async () => {
    const f = await start({ autonomy: 'askFirst' });
    const target = join(f.worktreePath(), 'ask.txt');
    f.model.script(escalated(`echo no > ${target}`), reply().text('The user said no.'));
    const runId = await f.send('make a file');
    const approval = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals[0], 'an approval');
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not now' })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(target)).toBe(false);
    expect(modelRequests(f)[0]!.allText).toMatch(/Relay mode Ask/);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/rejected/i);
  });

  it('autopilot: the Autopilot sentences reach the model and commands run without asking', async () => {
    const f = await start({ autonomy: 'actFreely' });
    f.model.script(escalated('echo go > auto.txt'), reply().text('Done.'));
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'auto.txt'))).toBe(true);
    expect(modelRequests(f)[0]!.allText).toMatch(/Relay mode Autopilot/);
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals).toHaveLength(0);
  });

  it('plan: a mutating command is denied by the mode floor and not executed; the plan becomes a Plan ready board', async () => {
    const f = await start({ mode: 'plan' });
    // A command whose effect is visible: had the gate let it through, the file would exist (as in agent mode).
    const target = join(f.worktreePath(), 'planned.txt');
    f.model.script(escalated(`echo made > ${target}`), reply().text('<proposed_plan>\n1. Add the file\n2. Test it\n</proposed_plan>'));
    const detail = await f.waitForRun(await f.send('plan it'));
    expect(detail.run.state).toBe('completed');
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/rejected/i);
    expect(existsSync(target)).toBe(false);
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', false]]);
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board).toBeTruthy();
    expect(board.data).toMatchObject({ source: 'native' });
    expect(board.data.plan).toMatch(/1\. Add the file/);
  });
});

describe('Codex transport: Codex’s own read-only sandbox', () => {
  it('a command that does not ask to escalate runs in Codex’s read-only sandbox: its write fails, its read runs, neither reaches the gate', async () => {
    const f = await start({ autonomy: 'actFreely' });
    const target = join(f.worktreePath(), 'quiet.txt');
    f.model.script(reply().tool('exec_command', { cmd: `echo quiet > ${target}` }), reply().tool('exec_command', { cmd: 'ls -a' }), reply().text('done'));
    const detail = await f.waitForRun(await f.send('write quietly'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(target)).toBe(false);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/Read-only file system/);
    expect(modelRequests(f)[2]!.lastToolResult?.content).toMatch(/exited with code 0/);
    expect(f.decisions.filter((entry) => entry.source === 'hook')).toHaveLength(0);
  });

  it('inside bubblewrap Codex’s own sandbox cannot start (no nested user namespace), so only escalated commands run, each through the gate', async () => {
    const f = await start({ autonomy: 'actFreely', transport: { sandbox: 'auto', allowUnsandboxed: false } });
    f.model.script(reply().tool('exec_command', { cmd: 'ls -a' }), escalated('ls -a'), reply().tool('exec_command', { cmd: `cat ${join(f.dataRoot, 'operator-token')}`, sandbox_permissions: 'require_escalated' }), reply().text('done'));
    const detail = await f.waitForRun(await f.send('list'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/^bubblewrap: worktree writable/);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/bwrap: setting up uid map: Operation not permitted/);
    expect(modelRequests(f)[2]!.lastToolResult?.content).toMatch(/exited with code 0/);
    // The data root (operator token, databases) is hidden from the runner even for an approved command.
    expect(modelRequests(f)[3]!.lastToolResult?.content).toMatch(/No such file or directory/);
    expect(modelRequests(f)[3]!.lastToolResult?.content).not.toContain(f.token);
    expect(f.decisions.filter((entry) => entry.source === 'hook').map((entry) => entry.allow)).toEqual([true, true]);
  });
});

describe('Codex transport: the completion contract over MCP (HAR-4)', () => {
  it('plan: submit_plan through the Control Center MCP server stores a plan and meets the contract', async () => {
    const f = await start({ mode: 'plan' });
    let offered: string[] = [];
    f.model.script(
      reply((request) => {
        offered = request.toolNames;
        const name = request.toolNames.find((tool) => tool.endsWith('.submit_plan')) ?? 'submit_plan';
        return reply().tool(name, { goal: 'Ship the parser', nodes: [{ key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] }] });
      }),
      reply().text('Plan submitted.'),
    );
    const detail = await f.waitForRun(await f.send('plan the parser'));
    expect(detail.run.state).toBe('completed');
    // Codex offers the MCP server's tools as one Responses `namespace` tool.
    expect(offered).toContain('mcp__control_center.submit_plan');
    expect(detail.run.deliverableFailed).toBe(false);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
  });

  it('plan: a run that ends without submit_plan is reminded in new turns, then flagged deliverableFailed', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(reply().text('Some thoughts.'), reply().text('Still thinking.'), reply().text('Done thinking.'));
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.run.state).toBe('completed');
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(2);
    expect(modelRequests(f)[1]!.lastUserText).toMatch(/submit_plan/);
    expect(detail.run.deliverableFailed).toBe(true);
  });
});

describe('Codex transport: questions and failures', () => {
  it('request_user_input becomes a question card and the answer goes back to Codex (RLY-4; Codex offers the tool in its plan mode only)', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(
      reply().tool('request_user_input', { questions: [{ id: 'colour', header: 'Colour', question: 'Which colour?', options: [{ label: 'Red', description: 'r' }, { label: 'Blue', description: 'b' }] }] }),
      reply((request) => reply().text(`You chose: ${request.lastToolResult?.content ?? 'nothing'}`)),
    );
    const runId = await f.send('ask me');
    const question = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/questions`)).body.questions[0], 'a question card');
    expect(question.questions).toEqual([{ question: 'Which colour?', options: ['Red', 'Blue'] }]);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/questions/${question.id}/answer`, { answers: ['Blue'] })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/Blue/);
  });

  it('the app-server killed mid-turn fails the run with the reason (no silent worker death)', async () => {
    let pid = 0;
    const f = await start({ autonomy: 'actFreely', transport: { onSpawn: (spawned) => (pid = spawned) } });
    f.model.script(reply().hang());
    const runId = await f.send('hang');
    await f.model.waitForRequests(1);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/Codex runner ended without finishing the turn \(exit SIGKILL\)/);
  });
});

describe('Codex transport in bubblewrap (SBX-1)', () => {
  it('plan: even a command the policy allows cannot write: the worktree is mounted read-only around Codex', async () => {
    const f = await start({ mode: 'plan', transport: { sandbox: 'auto', allowUnsandboxed: false } });
    const target = join(f.worktreePath(), 'plan.txt');
    f.model.script(escalated(`touch ${target}`), reply().text('1. Add plan.txt\n2. Test it'));
    const detail = await f.waitForRun(await f.send('try to write'));
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    expect(existsSync(target)).toBe(false);
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board?.data).toMatchObject({ source: 'answer' });
  });
});
