import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { useDeepSeekFixture } from '../support/deepseek-fixture.js';
import { expectNativeWritesRefused, expectNativeWritesRefusedInReview } from '../support/read-only-write-scenario.js';
import { pollFor } from '../support/relay-fixture.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * TRUTH-2: each honesty-matrix ✅ of DeepSeek shown by a run of DeepSeek itself — the Agent SDK
 * engine with DeepSeek's provider (its endpoint, key and model through the model broker) — in the
 * mode the row names, rather than by the Claude Agent SDK's own tests.
 */
const start = useDeepSeekFixture();

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages'));
const toolCall = (detail: any, name: string) => detail.toolCalls.find((call: any) => call.name === name);

/** Every model request of the run went to DeepSeek's endpoint with DeepSeek's key and model. */
function expectDeepSeekOnly(f: ClaudeCodeFixture): void {
  const requests = modelRequests(f);
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) expect([request.headers['x-api-key'], request.model]).toEqual(['deepseek-secret-key', 'deepseek-chat']);
}

async function rejectNextApproval(f: ClaudeCodeFixture): Promise<void> {
  const approval = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals[0], 'an approval');
  expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not now' })).status).toBe(200);
}

describe('DeepSeek: the host’s gates on DeepSeek’s own runs (RLY-7, POL-1)', () => {
  it('ask: a command the operator rejects is never executed', async () => {
    const f = await start({ autonomy: 'askFirst' });
    const target = join(f.worktreePath(), 'ask.txt');
    f.model.script(reply().tool('Bash', { command: `echo no > ${target}` }), reply().text('The user said no.'));
    const runId = await f.send('make a file');
    await rejectNextApproval(f);
    const detail = await f.waitForRun(runId);
    expect(existsSync(target)).toBe(false);
    expect(toolCall(detail, 'Bash').isError).toBe(true);
    expect(f.decisions.find((entry) => entry.toolName === 'Bash')).toMatchObject({ source: 'hook', allow: false });
    expectDeepSeekOnly(f);
  });

  it('ask: a native Write waits for approval, and a rejected write leaves no file', async () => {
    const f = await start({ autonomy: 'askFirst' });
    const target = join(f.worktreePath(), 'written.txt');
    f.model.script(reply().tool('Write', { file_path: target, content: 'no' }), reply().text('Not written.'));
    const runId = await f.send('write it');
    await rejectNextApproval(f);
    const detail = await f.waitForRun(runId);
    expect(existsSync(target)).toBe(false);
    expect(toolCall(detail, 'Write').isError).toBe(true);
    expect(f.decisions.find((entry) => entry.toolName === 'Write')).toMatchObject({ allow: false, action: { kind: 'fileWrite', path: target } });
    expectDeepSeekOnly(f);
  });

  it('plan: a mutating command is denied by the mode floor and never runs', async () => {
    const f = await start({ mode: 'plan' });
    const target = join(f.worktreePath(), 'plan.txt');
    f.model.script(reply().tool('Bash', { command: `echo no > ${target}` }), reply().text('1. Add the file\n2. Test it'));
    const detail = await f.waitForRun(await f.send('write a file'));
    expect(existsSync(target)).toBe(false);
    expect(toolCall(detail, 'Bash').isError).toBe(true);
    expect(toolCall(detail, 'Bash').output).toMatch(/decided by mode rule mode:plan:/);
    expectDeepSeekOnly(f);
  });

  it('plan: submit_plan over the Control Center MCP server stores a plan and meets the completion contract', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(
      reply().tool('mcp__control-center__submit_plan', { goal: 'Ship the parser', nodes: [{ key: 'write', title: 'Write the parser', description: 'Do it.', dependsOn: [] }] }),
      reply().text('Plan submitted.'),
    );
    const detail = await f.waitForRun(await f.send('plan the parser'));
    expect(detail.run.deliverableFailed).toBe(false);
    expect(detail.events.some((event: any) => event.type === 'output_verb_delivered' && event.data.toolName === 'submit_plan')).toBe(true);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
    expectDeepSeekOnly(f);
  });

  it('plan: a run that ends without submit_plan is reminded, then flagged deliverableFailed', async () => {
    const f = await start({ mode: 'plan' });
    f.model.script(reply().text('Some thoughts.'), reply().text('Still thinking.'), reply().text('Done thinking.'));
    const detail = await f.waitForRun(await f.send('plan something'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.deliverableFailed).toBe(true);
    expect(modelRequests(f)).toHaveLength(3);
    expectDeepSeekOnly(f);
  });

  it('review: as a reviewer, a native Write and a Bash redirect are refused by the host and leave no file', async () => {
    await expectNativeWritesRefusedInReview(await start());
  });

  it('orchestrate: a native Write and a Bash redirect are refused by the host and leave no file', async () => {
    const f = await start({ mode: 'orchestrate' });
    await expectNativeWritesRefused(f, 'orchestrate');
    expectDeepSeekOnly(f);
  });
});

describe('DeepSeek in bubblewrap (SBX-1)', () => {
  it('inside bubblewrap a write outside the worktree fails at the OS level and the data root is hidden', async () => {
    const f = await start({ transport: { sandbox: 'auto', allowUnsandboxed: false } });
    const outside = join(f.dataRoot, 'escaped.txt');
    f.model.script(reply().tool('Bash', { command: `echo escaped > ${outside}` }), reply().tool('Bash', { command: `cat ${join(f.dataRoot, 'operator-token')}` }), reply().text('done'));
    const detail = await f.waitForRun(await f.send('try to escape'));
    expect(detail.run.sandbox).toMatch(/^bubblewrap: worktree writable/);
    // The policy allowed both commands: the OS refused them.
    expect(f.decisions.filter((entry) => entry.source === 'hook').map((entry) => entry.allow)).toEqual([true, true]);
    const results = modelRequests(f).slice(1, 3).map((request) => String(request.lastToolResult?.content ?? ''));
    expect(results[0]).toMatch(/Read-only file system/);
    expect(results[1]).toMatch(/No such file or directory/);
    expect(existsSync(outside)).toBe(false);
    expectDeepSeekOnly(f);
  });
});
