import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpTransport } from '../../src/adapters/acp/acp-transport.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { REAL_ACP_AGENT } from '../support/real-acp-agent.js';

/**
 * The ACP transport against a real ACP agent from npm (`@zed-industries/claude-agent-acp`, a dev
 * dependency; `CONTROL_CENTER_TEST_ACP_AGENT` may name another entry script), its model the scripted
 * model server through the model proxy.
 */
let fixture: ClaudeCodeFixture | null = null;

afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

/** A server whose agent runs claude-agent-acp on the ACP transport (unsandboxed by opt-in, so any host runs it). */
async function startRealAgent(mode?: 'plan'): Promise<ClaudeCodeFixture> {
  fixture = await startClaudeCodeFixture({
    ...(mode ? { mode } : {}),
    adapter: {
      id: 'acp',
      transport: (app, dataRoot) => new AcpTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, commands: { '*': { command: process.execPath, args: [REAL_ACP_AGENT] } } }),
    },
  });
  return fixture;
}

describe('ACP transport against claude-agent-acp (RLY-7)', () => {
  it('agent: a Bash call asks permission, the gate allows it, the command runs and the agent answers', async () => {
    const f = await startRealAgent();
    f.model.script(reply().tool('Bash', { command: 'echo real > real.txt', description: 'write a file' }), reply().text('Wrote real.txt.'));
    const detail = await f.waitForRun(await f.send('make a file'), 120_000);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'real.txt'))).toBe(true);
    // The agent's own permission request reached the policy gate as the command it runs.
    expect(f.decisions.map((entry) => [entry.action, entry.allow])).toEqual([[{ kind: 'command', command: 'echo real > real.txt', toolName: 'acp:execute' }, true]]);
    // Offline: the model proxy saw only model calls.
    expect(f.model.requests.every((request) => request.path.startsWith('/v1/messages'))).toBe(true);
  });

  it('plan: the agent is put in its plan mode; a Bash write it asks for is denied by the mode floor and never runs', async () => {
    const f = await startRealAgent('plan');
    f.model.script(reply().tool('Bash', { command: 'touch planned.txt', description: 'write a file' }), reply().text('1. Add planned.txt\n2. Test it'), reply().text('Still a plan.'), reply().text('Still a plan.'));
    const detail = await f.waitForRun(await f.send('plan a file'), 120_000);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'planned.txt'))).toBe(false);
    // Claude Code in its plan mode still asked; the host's gate denied (the mode floor), the model was told so.
    expect(f.decisions.map((entry) => [entry.action, entry.allow])).toEqual([[{ kind: 'command', command: 'touch planned.txt', toolName: 'acp:execute' }, false]]);
    expect(f.model.requests[1]!.lastToolResult?.content).toMatch(/refused permission/);
    // The plan-like answer becomes the board; without submit_plan over MCP the contract reminds twice, then flags.
    expect(detail.events.find((event: any) => event.type === 'plan_ready')?.data).toMatchObject({ source: 'answer', plan: '1. Add planned.txt\n2. Test it' });
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(2);
    expect(detail.run.deliverableFailed).toBe(true);
  });

  it('plan: submit_plan called by the real agent over MCP is what the host records: delivered, no reminder (HAR-4)', async () => {
    const f = await startRealAgent('plan');
    const plan = { goal: 'Add planned.txt', nodes: [{ key: 'add', title: 'Add the file', description: 'Create planned.txt.', dependsOn: [] }] };
    f.model.script(reply().tool('mcp__control-center__submit_plan', plan), reply().text('Plan submitted.'));
    const detail = await f.waitForRun(await f.send('plan a file'), 120_000);
    expect(detail.run.state).toBe('completed');
    expect(detail.run.deliverableFailed).toBe(false);
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(0);
    expect(detail.events.filter((event: any) => event.type === 'output_verb_delivered')).toHaveLength(1);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((entry: any) => entry.goal)).toEqual(['Add planned.txt']);
  });
});
