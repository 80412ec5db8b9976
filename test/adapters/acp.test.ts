import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAKE_ACP_AGENT, useFakeAcpAgent } from '../support/fake-acp-fixture.js';
import { pollFor } from '../support/relay-fixture.js';

/**
 * The ACP transport (RLY-7) end to end: a real ACP agent process speaking the protocol through the
 * ACP SDK (test/support/fake-acp-agent.mjs, whose "model" is the `@` directives of the prompt), the
 * run executor, the policy engine, the approval service and the confined worktree files.
 */
const start = useFakeAcpAgent();

const CLAUDE_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];

describe('ACP transport: permission requests go to the policy gate (POL-1)', () => {
  it('agent: an allowed command runs; the session gets the worktree as cwd and the Control Center MCP server', async () => {
    const { f, journal } = await start({ modes: CLAUDE_MODES });
    const detail = await f.waitForRun(await f.send('@permission execute echo made > agent.txt'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'agent.txt'))).toBe(true);
    const session = journal().find((entry) => entry.event === 'newSession')!;
    expect(session.cwd).toBe(f.worktreePath());
    expect(session.mcpServers).toEqual([expect.objectContaining({ type: 'http', name: 'control-center', url: expect.stringContaining('/mcp'), headers: [expect.objectContaining({ name: 'Authorization' })] })]);
    // Terminals are not offered; files are.
    expect(journal()[0]!.clientCapabilities).toMatchObject({ fs: { readTextFile: true, writeTextFile: true }, terminal: false });
    expect(journal().find((entry) => entry.event === 'permission')!.outcome).toEqual({ outcome: 'selected', optionId: 'yes' });
    expect(journal().filter((entry) => entry.event === 'setMode').map((entry) => entry.modeId)).toEqual(['default']);
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', true]]);
  });

  it('ask: the operator rejects, the agent is told no and the command is never executed', async () => {
    const { f, journal } = await start({ autonomy: 'askFirst', modes: CLAUDE_MODES });
    const target = join(f.worktreePath(), 'ask.txt');
    const runId = await f.send(`@permission execute echo no > ${target}`);
    const approval = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals[0], 'an approval');
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not now' })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(target)).toBe(false);
    expect(journal().find((entry) => entry.event === 'permission')!.outcome).toEqual({ outcome: 'selected', optionId: 'no' });
    // Claude's adapters have no `ask` mode: the mode goes as the RLY-8 line on the message.
    expect(journal().find((entry) => entry.event === 'prompt')!.text).toMatch(/^\[Relay mode: Ask\]/);
  });

  it('plan: set_mode plan; a mutating command the agent would run is denied, and an edit is refused without asking', async () => {
    const { f, journal } = await start({ mode: 'plan', modes: CLAUDE_MODES });
    const detail = await f.waitForRun(await f.send('@permission execute touch made.txt\n@permission edit edited.txt\n@plan Read the code|Change it'));
    expect(detail.run.state).toBe('completed');
    // The fake agent really runs or edits whatever is allowed: neither happened.
    expect(existsSync(join(f.worktreePath(), 'made.txt'))).toBe(false);
    expect(existsSync(join(f.worktreePath(), 'edited.txt'))).toBe(false);
    expect(journal().filter((entry) => entry.event === 'setMode').map((entry) => entry.modeId)).toEqual(['plan']);
    expect(journal().filter((entry) => entry.event === 'permission').map((entry) => entry.outcome.optionId)).toEqual(['no', 'no']);
    // Only the command reached the gate (the mode floor denied it); the edit was refused by the mode itself.
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', false]]);
    // The agent's own plan update becomes the Plan ready board (RLY-5).
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board?.data).toMatchObject({ source: 'native', plan: '1. Read the code\n2. Change it' });
  });

  it('autopilot: acceptEdits is selected, never bypassPermissions, and the permission still reaches the gate', async () => {
    const { f, journal } = await start({ autonomy: 'actFreely', modes: CLAUDE_MODES });
    const detail = await f.waitForRun(await f.send('@permission execute echo go > auto.txt'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'auto.txt'))).toBe(true);
    expect(journal().filter((entry) => entry.event === 'setMode').map((entry) => entry.modeId)).toEqual(['acceptEdits']);
    expect(f.decisions).toHaveLength(1);
  });
});

describe('ACP transport: agent requests the host answers', () => {
  it('fs/write_text_file writes inside the worktree through the gate; a path outside is refused and nothing is written', async () => {
    const { f, journal } = await start();
    const outside = join(f.dataRoot, 'escaped.txt');
    const detail = await f.waitForRun(await f.send(`@write notes/hello.txt hi there\n@write ../../escape.txt nope\n@write ${outside} nope\n@read notes/hello.txt`));
    expect(detail.run.state).toBe('completed');
    expect(readFileSync(join(f.worktreePath(), 'notes/hello.txt'), 'utf8')).toBe('hi there');
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(f.worktreePath(), '../../escape.txt'))).toBe(false);
    const errors = journal().filter((entry) => entry.event === 'error');
    expect(errors.map((entry) => entry.code)).toEqual([-32602, -32602]);
    expect(journal().find((entry) => entry.event === 'read')!.content).toBe('hi there');
    // Every write was put to the policy gate (the outside ones were then refused by the confined
    // file access): without the gate call the inside file is written all the same, so these
    // decisions are what prove the gate was asked.
    expect(f.decisions.map((entry) => [entry.action.kind, entry.toolName, 'path' in entry.action ? entry.action.path : null])).toEqual([
      ['fileWrite', 'fs/write_text_file', 'notes/hello.txt'],
      ['fileWrite', 'fs/write_text_file', '../../escape.txt'],
      ['fileWrite', 'fs/write_text_file', outside],
    ]);
  });

  it('plan: fs/write_text_file is refused in a read-only mode even though the policy would allow it', async () => {
    const { f, journal } = await start({ mode: 'plan' });
    const detail = await f.waitForRun(await f.send('@write plan.txt nope'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'plan.txt'))).toBe(false);
    expect(journal().find((entry) => entry.event === 'error')!.message).toMatch(/read-only/);
  });

  it('an unknown method and terminal/create get JSON-RPC errors, so the turn goes on and ends', async () => {
    const { f, journal } = await start();
    const detail = await f.waitForRun(await f.send('@unknown\n@terminal rm -rf /\n@write after.txt reached'));
    expect(detail.run.state).toBe('completed');
    const errors = journal().filter((entry) => entry.event === 'error');
    expect(errors.map((entry) => [entry.directive, entry.code])).toEqual([
      ['@unknown', -32601],
      ['@terminal', -32601],
    ]);
    expect(existsSync(join(f.worktreePath(), 'after.txt'))).toBe(true);
  });
});

describe('ACP transport: the completion contract over MCP (HAR-4)', () => {
  it('plan: submit_plan through the Control Center MCP server stores a plan and meets the contract', async () => {
    const { f, journal } = await start({ mode: 'plan', modes: CLAUDE_MODES });
    const args = { goal: 'Ship the parser', nodes: [{ key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] }] };
    const detail = await f.waitForRun(await f.send(`@mcp submit_plan ${JSON.stringify(args)}`));
    expect(detail.run.state).toBe('completed');
    expect(journal().find((entry) => entry.event === 'mcp')).toMatchObject({ tool: 'submit_plan', ok: true });
    expect(detail.run.deliverableFailed).toBe(false);
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(0);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
  });

  it('plan: a run that ends without submit_plan is reminded in new prompts, then flagged deliverableFailed', async () => {
    const { f, journal } = await start({ mode: 'plan', modes: CLAUDE_MODES });
    const detail = await f.waitForRun(await f.send('just thinking'));
    expect(detail.run.state).toBe('completed');
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(2);
    const prompts = journal().filter((entry) => entry.event === 'prompt');
    expect(prompts).toHaveLength(3);
    expect(prompts[1]!.text).toMatch(/submit_plan/);
    expect(detail.run.deliverableFailed).toBe(true);
  });
});

describe('ACP transport: modes without set_mode and process death', () => {
  it('an agent without modes gets the RLY-8 line once per change, and the revocation when it goes back to agent', async () => {
    const { f, journal } = await start({ autonomy: 'askFirst' });
    await f.waitForRun(await f.send('first'));
    await f.waitForRun(await f.send('second'));
    await f.setMode('chat', 'actFreely');
    await f.waitForRun(await f.send('third'));
    await f.setMode('chat', 'proposeOnly');
    const last = await f.waitForRun(await f.send('fourth'));
    expect(last.run.state).toBe('completed');
    const prompts = journal().filter((entry) => entry.event === 'prompt').map((entry) => entry.text as string);
    expect(prompts[0]).toMatch(/^\[Relay mode: Ask\]/);
    expect(prompts[1]).not.toMatch(/Relay mode/);
    expect(prompts[2]).toMatch(/^\[Relay mode: Autopilot\]/);
    expect(prompts[3]).toMatch(/^\[Relay mode: Agent\] The earlier Autopilot mode instructions no longer apply\./);
    expect(journal().filter((entry) => entry.event === 'setMode')).toHaveLength(0);
  });

  it('the agent dying mid-turn fails the run with the reason (no silent worker death)', async () => {
    const { f } = await start();
    const detail = await f.waitForRun(await f.send('@die'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/ACP agent ended without finishing the turn \(exit 3\)/);
  });

  it('the agent killed while it hangs fails the run with the signal', async () => {
    let pid = 0;
    const { f, journal } = await start({ transport: { onSpawn: (spawned) => (pid = spawned) } });
    const runId = await f.send('@hang');
    await pollFor(async () => journal().some((entry) => entry.event === 'hang'), 'the agent to hang');
    process.kill(pid, 'SIGKILL');
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/exit SIGKILL/);
  });

  it('a configured command that is a shell is refused before anything runs', async () => {
    const { f, journal } = await start({ transport: { commands: { '*': { command: '/bin/sh', args: ['-c', 'echo hi'] } } } });
    const detail = await f.waitForRun(await f.send('hello'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/not a shell or launcher/);
    expect(journal()).toEqual([]);
  });
});

describe("ACP transport: the agent's own command (RLY-7)", () => {
  it("the command stored on the agent runs, over the server's table (which here names a shell and would fail)", async () => {
    const { f, journal } = await start({ journal: false, transport: { commands: { '*': { command: '/bin/sh', args: ['-c', 'echo hi'] } } } });
    const journalPath = join(f.dataRoot, 'own-journal.jsonl');
    const set = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`, { acpCommand: { command: process.execPath, args: [FAKE_ACP_AGENT, '--journal', journalPath] } });
    expect(set.status).toBe(200);
    const detail = await f.waitForRun(await f.send('@permission execute echo own > own.txt'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'own.txt'))).toBe(true);
    expect(readFileSync(journalPath, 'utf8')).toContain('"newSession"');
    expect(journal()).toEqual([]);
  });

  it('a known ACP agent that is not installed fails the run naming acpCommand.command, before anything starts', async () => {
    const { f, journal } = await start();
    // gemini: a known agent that is not a dependency (claude-agent-acp is one now, test/adapters/acp-real-agent.test.ts).
    await f.api('PATCH', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`, { acpCommand: { command: 'gemini', args: [] } });
    const detail = await f.waitForRun(await f.send('hello'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/acpCommand\.command: the ACP agent "gemini" is not installed/);
    expect(journal()).toEqual([]);
  });
});

describe('ACP transport in bubblewrap (SBX-1)', () => {
  it('the agent runs inside the runner sandbox: an allowed command writes the worktree, the data root stays hidden', async () => {
    // The sandbox has a private /tmp and hides the data root, so this agent keeps no journal.
    const { f } = await start({ journal: false, transport: { sandbox: 'auto', allowUnsandboxed: false, programPaths: [fileURLToPath(new URL('../..', import.meta.url))] } });
    const token = join(f.dataRoot, 'operator-token');
    const detail = await f.waitForRun(await f.send(`@permission execute echo inside > inside.txt\n@permission execute cat ${token} > leaked.txt || echo hidden > leaked.txt`));
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    expect(detail.run.state).toBe('completed');
    expect(readFileSync(join(f.worktreePath(), 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(readFileSync(join(f.worktreePath(), 'leaked.txt'), 'utf8')).toBe('hidden\n');
  });
});
