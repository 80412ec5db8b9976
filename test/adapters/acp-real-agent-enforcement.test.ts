import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpTransport } from '../../src/adapters/acp/acp-transport.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { REAL_ACP_AGENT } from '../support/real-acp-agent.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * TRUTH-2: ACP cells otherwise shown only with the scripted ACP agent, shown with a real one
 * (`@zed-industries/claude-agent-acp`): the orchestrate contract, and the OS sandbox around the agent.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

async function startRealAgent(options: { mode?: 'orchestrate'; sandboxed?: boolean }): Promise<ClaudeCodeFixture> {
  const sandbox = options.sandboxed ? { sandbox: 'auto' as const, allowUnsandboxed: false } : { sandbox: 'none' as const, allowUnsandboxed: true };
  fixture = await startClaudeCodeFixture({
    ...(options.mode ? { mode: options.mode } : {}),
    adapter: {
      id: 'acp',
      transport: (app, dataRoot) => new AcpTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], ...sandbox, commands: { '*': { command: process.execPath, args: [REAL_ACP_AGENT] } } }),
    },
  });
  return fixture;
}

describe('ACP transport against claude-agent-acp: orchestrate and the sandbox (RLY-7, HAR-4, SBX-1)', () => {
  it('orchestrate: a turn without propose_orchestration is reminded twice in the same session, then flagged deliverableFailed', async () => {
    const f = await startRealAgent({ mode: 'orchestrate' });
    f.model.script(reply().text('Some thoughts.'), reply().text('More thoughts.'), reply().text('Last thoughts.'));
    const detail = await f.waitForRun(await f.send('orchestrate the release'), 120_000);
    expect(detail.run.mode).toBe('orchestrate');
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(2);
    expect(f.model.requests.at(-1)!.lastUserText).toMatch(/propose_orchestration/);
    expect(detail.run.deliverableFailed).toBe(true);
  });

  it('inside bubblewrap a command the gate allows still cannot write outside the worktree, and the data root is hidden', async () => {
    const f = await startRealAgent({ sandboxed: true });
    const outside = join(f.dataRoot, 'escaped.txt');
    f.model.script(
      reply().tool('Bash', { command: `echo escaped > ${outside}`, description: 'write outside' }),
      reply().tool('Bash', { command: `cat ${join(f.dataRoot, 'operator-token')}`, description: 'read the token' }),
      reply().text('done'),
    );
    const detail = await f.waitForRun(await f.send('try to escape'), 120_000);
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    // The gate allowed both commands: the OS refused them.
    expect(f.decisions.map((entry) => entry.allow)).toEqual([true, true]);
    const results = f.model.requests.slice(1, 3).map((request) => String(request.lastToolResult?.content ?? ''));
    expect(results[0]).toMatch(/Read-only file system/);
    expect(results[1]).toMatch(/No such file or directory/);
    expect(results[1]).not.toContain(f.token);
    expect(existsSync(outside)).toBe(false);
  });
});
