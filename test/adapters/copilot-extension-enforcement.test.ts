import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CopilotTransport, type CopilotTransportOptions } from '../../src/adapters/copilot/copilot-transport.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * TRUTH-2: the cells the Copilot extension engine shares with the SDK engine (the MCP server, the
 * completion contract, the OS sandbox) shown by runs of the extension engine itself — the real
 * `@github/copilot` runtime offline, the model proxy its only provider.
 */
const runtimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');

const start = useRunnerFixture('copilot-extension', ({ app, base }, options: { mode?: 'chat' | 'plan'; transport?: Partial<CopilotTransportOptions> }) =>
  new CopilotTransport({ engine: 'extension', ...base, askUser: questionCards(app), runtimeCacheDir, ...options.transport }),
);

const responses = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.endsWith('/responses'));

describe('Copilot extension engine: the Control Center MCP tools and the completion contract (HAR-4)', { timeout: 180_000 }, () => {
  it('plan: submit_plan over the Control Center MCP server stores a plan and meets the contract', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(
      reply((request) => reply().tool(request.toolNames.find((tool) => tool.endsWith('submit_plan')) ?? 'missing_submit_plan', { goal: 'Ship the parser', nodes: [{ key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] }] })),
      reply().text('Plan submitted.'),
    );
    const detail = await f.waitForRun(await f.send('plan the parser'));
    expect(responses(f)[0]!.toolNames.some((tool) => tool.endsWith('submit_plan'))).toBe(true);
    expect(detail.run.deliverableFailed).toBe(false);
    expect(detail.events.some((event: any) => event.type === 'output_verb_delivered' && event.data.toolName === 'submit_plan')).toBe(true);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
  });

  it('plan: a turn without submit_plan is reminded twice in new messages, then flagged deliverableFailed', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(reply().text('Some thoughts.'), reply().text('More thoughts.'), reply().text('Last thoughts.'));
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected')).toHaveLength(2);
    expect(responses(f)[2]!.lastUserText).toMatch(/submit_plan/);
    expect(detail.run.deliverableFailed).toBe(true);
  });
});

describe('Copilot extension engine in bubblewrap (SBX-1)', { timeout: 180_000 }, () => {
  it('plan: although every request is approved, the worktree is read-only and the data root hidden: the write is not made', async () => {
    const f = await start({ mode: 'plan', transport: { sandbox: 'auto', allowUnsandboxed: false } });
    f.model.script(
      reply().tool('bash', { command: `cat ${join(f.dataRoot, 'operator-token')}`, description: 'read the token' }),
      reply().tool('bash', { command: 'touch plan.txt', description: 'write' }),
      reply().text('1. Add plan.txt\n2. Test it'),
    );
    const detail = await f.waitForRun(await f.send('try to write'));
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    // No permission check ran: only the sandbox stood in the way.
    expect(f.decisions).toEqual([]);
    const results = responses(f).slice(1, 3).map((request) => String(request.lastToolResult?.content ?? ''));
    expect(results[0]).not.toContain(f.token);
    expect(results[0]).toMatch(/No such file or directory/);
    expect(results[1]).toMatch(/Read-only file system/);
    expect(existsSync(join(f.worktreePath(), 'plan.txt'))).toBe(false);
  });
});
