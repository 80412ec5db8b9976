import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pollFor } from '../../support/relay-fixture.js';
import { startCursorFixture, type CursorFixture } from './cursor-fixture.js';

/**
 * The Cursor transport (RLY-7, RLY-8) through the real server over HTTP: run executor, policy engine,
 * question service and MCP endpoint are real; the SDK is the fake at the transport's seam (Cursor's
 * backend is not reachable here).
 */
let fixture: CursorFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

describe('Cursor transport: one turn per relay mode (RLY-7, RLY-8)', { timeout: 60_000 }, () => {
  it('agent: no mode line; a gated run_command runs in the worktree; the next message resumes the same Cursor agent; nothing reaches another provider', async () => {
    const f = (fixture = await startCursorFixture());
    f.sdk.script([{ hostTool: 'run_command', args: { command: 'echo made > agent.txt' } }, { text: 'Wrote agent.txt.' }], [{ text: 'Still here.' }]);
    const first = await f.waitForRun(await f.send('make a file'));
    expect(first.run.state).toBe('completed');
    expect(readFileSync(join(f.worktreePath(), 'agent.txt'), 'utf8').trim()).toBe('made');
    expect(f.decisions.map((entry) => [entry.action.kind, entry.toolName, entry.allow])).toEqual([['command', 'run_command', true]]);
    const second = await f.waitForRun(await f.send('and now?'));
    expect(second.run.state).toBe('completed');
    const [one, two] = f.sdk.sends;
    expect(one!.message).not.toMatch(/\[Relay mode/);
    expect(one!.message.endsWith('make a file')).toBe(true);
    expect(one!.options?.mode).toBe('agent');
    // The second turn resumed the first turn's agent and did not repeat the system prompt.
    expect(f.sdk.created).toHaveLength(1);
    expect(f.sdk.resumed.map((entry) => entry.agentId)).toEqual([one!.agentId]);
    expect(two!.message).toBe('and now?');
    // The key comes from the server's environment; the agent was given only the host's surface.
    const options = f.sdk.created[0]!;
    expect(options.apiKey).toBe('test-cursor-key');
    expect(options.tools).not.toEqual(expect.arrayContaining(['shell']));
    expect(options.tools).not.toContain('edit');
    expect(options.tools).not.toContain('task');
    expect(Object.keys(options.mcpServers ?? {})).toEqual(['control-center']);
    expect(Object.keys(options.local?.customTools ?? {}).sort()).toEqual(['ask_user', 'run_command', 'write_file']);
    // A message never runs on another provider: the scripted model server saw nothing.
    expect(f.model.requests).toHaveLength(0);
  });

  it('ask: the line goes with the first Ask message only, and switching to Agent says the Ask instructions no longer apply', async () => {
    const f = (fixture = await startCursorFixture({ autonomy: 'askFirst' }));
    f.sdk.script([{ text: 'Asked.' }], [{ text: 'Again.' }], [{ text: 'Agent now.' }]);
    expect((await f.waitForRun(await f.send('first'))).run.state).toBe('completed');
    expect((await f.waitForRun(await f.send('second'))).run.state).toBe('completed');
    await f.setMode('chat', 'actWithApproval');
    expect((await f.waitForRun(await f.send('third'))).run.state).toBe('completed');
    const [first, second, third] = f.sdk.sends.map((send) => send.message);
    expect(first!.startsWith('[Relay mode: Ask] ')).toBe(true);
    expect(second).toBe('second');
    expect(third).toBe('[Relay mode: Agent] The earlier Ask mode instructions no longer apply.\n\nthird');
    expect(f.sdk.sends.map((send) => send.options?.mode)).toEqual(['agent', 'agent', 'agent']);
  });

  it('autopilot: the Autopilot line once; commands run without approvals or cards', async () => {
    const f = (fixture = await startCursorFixture({ autonomy: 'actFreely' }));
    f.sdk.script([{ hostTool: 'write_file', args: { path: 'auto.txt', content: 'go' } }, { text: 'Done.' }], [{ text: 'More.' }]);
    expect((await f.waitForRun(await f.send('go'))).run.state).toBe('completed');
    expect((await f.waitForRun(await f.send('more'))).run.state).toBe('completed');
    expect(readFileSync(join(f.worktreePath(), 'auto.txt'), 'utf8')).toBe('go');
    expect(f.sdk.sends[0]!.message.startsWith('[Relay mode: Autopilot] ')).toBe(true);
    expect(f.sdk.sends[1]!.message).toBe('more');
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals).toHaveLength(0);
    expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/questions`)).body.questions).toHaveLength(0);
  });

  it('plan: Cursor’s plan mode with reads only and no mutating host tool; no line (plan is native), and leaving plan for Agent sends none either', async () => {
    const f = (fixture = await startCursorFixture({ mode: 'plan' }));
    const submit = { mcpTool: 'submit_plan', args: { goal: 'Look', nodes: [{ key: 'look', title: 'Look', description: 'Read it.', dependsOn: [] }] } };
    f.sdk.script([{ cursorTool: 'read', args: { path: 'README.md' } }, submit, { text: 'Looked.' }], [{ text: 'Agent.' }]);
    expect((await f.waitForRun(await f.send('plan it'))).run.state).toBe('completed');
    await f.setMode('chat', 'actWithApproval');
    expect((await f.waitForRun(await f.send('now do'))).run.state).toBe('completed');
    const [plan, agent] = f.sdk.sends;
    expect(plan!.options?.mode).toBe('plan');
    expect(plan!.agentOptions.mode).toBe('plan');
    expect(plan!.message).not.toMatch(/\[Relay mode/);
    expect(Object.keys(plan!.agentOptions.local?.customTools ?? {})).toEqual(['ask_user']);
    expect(agent!.options?.mode).toBe('agent');
    expect(agent!.message).toBe('now do');
  });
});

describe('Cursor transport: host enforcement (RLY-7, POL-1)', { timeout: 60_000 }, () => {
  it('a command the policy denies is never run, and the agent is told why', async () => {
    const f = (fixture = await startCursorFixture());
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch forbidden.txt' }, decision: 'deny' })).status).toBe(201);
    f.sdk.script([{ hostTool: 'run_command', args: { command: 'touch forbidden.txt' } }, { text: 'The policy said no.' }]);
    const detail = await f.waitForRun(await f.send('touch it'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'forbidden.txt'))).toBe(false);
    const result = f.sdk.sends[0]!.hostToolResults[0] as { content: Array<{ text: string }>; isError: boolean };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/Denied by the Control Center policy/);
    expect(f.decisions.map((entry) => [entry.allow, entry.result.decision])).toEqual([[false, 'deny']]);
  });

  it('plan cannot write: a Cursor edit call in plan cancels the turn before its effect, the run fails saying so', async () => {
    const f = (fixture = await startCursorFixture({ mode: 'plan' }));
    const target = () => join(f.worktreePath(), 'plan.txt');
    f.sdk.script([{ cursorTool: 'edit', args: { path: 'plan.txt' }, effect: () => writeFileSync(target(), 'no') }, { text: 'Edited.' }]);
    const detail = await f.waitForRun(await f.send('plan it'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/Cancelled by the host: Cursor’s own `edit` tool, which the host did not offer \(plan mode allows reads only\)/);
    expect(f.sdk.sends[0]!.cancelled).toBe(true);
    expect(f.sdk.sends[0]!.effectsRun).toEqual([]);
    expect(existsSync(target())).toBe(false);
  });

  it('a question card round trip through the host’s ask_user (RLY-4)', async () => {
    const f = (fixture = await startCursorFixture());
    f.sdk.script([{ hostTool: 'ask_user', args: { question: 'Which colour?', options: ['red', 'blue'] } }, { text: 'Blue it is.' }]);
    const runId = await f.send('pick');
    const card = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/questions`)).body.questions[0], 'a question card');
    expect(card.questions).toEqual([{ question: 'Which colour?', options: ['red', 'blue'] }]);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/questions/${card.id}/answer`, { answers: ['blue'] })).status).toBe(200);
    expect((await f.waitForRun(runId)).run.state).toBe('completed');
    expect(f.sdk.sends[0]!.hostToolResults[0]).toEqual({ content: [{ type: 'text', text: 'blue' }], isError: false });
  });
});
