import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';

/**
 * The Claude Code transport end to end: the real `claude` binary, the lead's run executor, `/mcp`
 * and policy engine, this adapter's hook route, and the scripted model server as the only stand-in.
 * These run without the OS sandbox (`sandbox: 'none'`) so they show what the hook and the MCP server
 * enforce on their own; the sandbox has its own tests.
 */
let fixture: ClaudeCodeFixture | null = null;

afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages'));

/** The observed end of a native call, as the transport emitted it (its `executed` is the transport's own judgement). */
function endOf(detail: any, name: string): any {
  return detail.events.find((event: any) => event.type === 'tool_call_end' && event.data.call.name === name)?.data;
}

async function nextPendingApproval(f: ClaudeCodeFixture, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const approvals = (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals;
    if (approvals.length > 0) return approvals[0];
    if (Date.now() > deadline) throw new Error('no approval was requested');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Claude Code transport in plan mode (ADP-3)', () => {
  it('a scripted Write is refused, leaves no file, and Write is not offered to the model', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'plan', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const target = join(f.worktreePath(), 'plan-write.txt');
    f.model.script(reply().tool('Write', { file_path: target, content: 'should not exist' }), reply().text('I could not write.'));
    const runId = await f.send('write a file');
    const detail = await f.waitForRun(runId);
    expect(existsSync(target)).toBe(false);
    const offered = modelRequests(f)[0]!.toolNames;
    expect(offered).not.toContain('Write');
    expect(offered).not.toContain('Edit');
    expect(offered).toContain('Bash');
    expect(offered).toContain('mcp__control-center__submit_plan');
    const write = detail.toolCalls.find((call: any) => call.name === 'Write');
    expect(write.isError).toBe(true);
    expect(write.output).toMatch(/No such tool available: Write/);
    expect(endOf(detail, 'Write').executed).toBe(false);
    expect(detail.run.sandbox).toMatch(/^none: /);
  });

  it('a scripted Bash rm -rf is denied by the hook, naming the deciding rule', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'plan', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    mkdirSync(join(f.worktreePath(), 'x'), { recursive: true });
    writeFileSync(join(f.worktreePath(), 'x', 'keep.txt'), 'precious');
    f.model.script(reply().tool('Bash', { command: 'rm -rf x' }), reply().text('The deletion was refused.'));
    const detail = await f.waitForRun(await f.send('clean up x'));
    expect(readFileSync(join(f.worktreePath(), 'x', 'keep.txt'), 'utf8')).toBe('precious');
    const bash = detail.toolCalls.find((call: any) => call.name === 'Bash');
    expect(endOf(detail, 'Bash').executed).toBe(false);
    expect(bash.isError).toBe(true);
    expect(bash.output).toMatch(/decided by mode rule mode:plan:forbid:fileDelete/);
    const decision = f.decisions.find((entry) => entry.toolName === 'Bash');
    expect(decision).toMatchObject({ source: 'hook', allow: false, action: { kind: 'command', command: 'rm -rf x' } });
    expect(decision!.result.decidedBy).toEqual({ scope: 'mode', ruleId: 'mode:plan:forbid:fileDelete' });
    // The run log keeps the hook's decision with the observed call.
    expect(endOf(detail, 'Bash').result.details.hook).toMatchObject({ decision: 'deny', decidedBy: { scope: 'mode', ruleId: 'mode:plan:forbid:fileDelete' } });
  });

  it('submit_plan over the Control Center MCP server stores a plan', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'plan', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
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
    expect(plans).toHaveLength(1);
    expect(plans[0].goal).toBe('Ship the parser');
    // The MCP server ran the call through the built-in chokepoint and logged it under its own name.
    expect(detail.toolCalls.some((call: any) => call.name === 'submit_plan' && call.executed && !call.isError)).toBe(true);
    expect(detail.events.some((event: any) => event.type === 'output_verb_delivered' && event.data.toolName === 'submit_plan')).toBe(true);
    // The MCP tool result reached the model.
    const second = modelRequests(f)[1]!;
    expect(second.lastToolResult?.content).toMatch(/submitted with 2 step/);
  });

  it('a plan run that ends without submit_plan is reminded, then flagged deliverableFailed', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'plan', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    f.model.script(reply().text('Here are my thoughts, no tool call.'), reply().text('Still no plan.'), reply().text('Really no plan.'));
    const detail = await f.waitForRun(await f.send('think about it'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.deliverableFailed).toBe(true);
    const reminders = detail.events.filter((event: any) => event.type === 'reminder_injected');
    expect(reminders.map((event: any) => event.data.attempt)).toEqual([1, 2]);
    expect(reminders[0].data.text).toMatch(/mcp__control-center__submit_plan/);
    // The reminders travelled as stream-json user messages of the same session.
    const requests = modelRequests(f);
    expect(requests).toHaveLength(3);
    expect(requests[1]!.lastUserText).toMatch(/submit_plan/);
    const messages = (await f.api('GET', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`)).body.messages;
    expect(messages.some((message: any) => message.content === 'Ended without submitting a plan (no submit_plan call).')).toBe(true);
  });

  it('a native Read is observed as a tool call but never reaches the hook', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'plan', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    mkdirSync(f.worktreePath(), { recursive: true });
    writeFileSync(join(f.worktreePath(), 'notes.md'), 'secret sauce\n');
    f.model.script(reply().tool('Read', { file_path: join(f.worktreePath(), 'notes.md') }), reply().text('Read it.'));
    const detail = await f.waitForRun(await f.send('read the notes'));
    const read = detail.toolCalls.find((call: any) => call.name === 'Read');
    expect(endOf(detail, 'Read').executed).toBe(true);
    expect(read.output).toMatch(/secret sauce/);
    expect(f.decisions.filter((entry) => entry.toolName === 'Read')).toHaveLength(0);
    expect(detail.events.filter((event: any) => event.type === 'tool_call_start' && event.data.call.name === 'Read')).toHaveLength(1);
  });
});

describe('Claude Code transport in chat mode (ADP-3)', () => {
  it('an ask rule holds a Bash command until the operator approves it', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const rule = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch approved.txt' }, decision: 'ask' });
    expect(rule.status).toBe(201);
    f.model.script(reply().tool('Bash', { command: 'touch approved.txt' }), reply().text('Created.'));
    const runId = await f.send('create approved.txt');
    const approval = await nextPendingApproval(f);
    expect(approval.title).toMatch(/touch approved\.txt/);
    expect(approval.request.decidedBy).toEqual({ scope: 'workspace', ruleId: rule.body.id });
    // Held: the hook is still waiting on the gate. It records its decision only when the gate answers,
    // so a gate that let the command through without waiting has recorded it before the approval could
    // be read here; no fixed window, which a slow failure would pass.
    const session = f.app.hookSessions.forRun(runId)!;
    expect(session.decisions.filter((entry) => entry.toolName === 'Bash')).toEqual([]);
    expect(existsSync(join(f.worktreePath(), 'approved.txt'))).toBe(false);
    expect(f.app.activeRuns.get(runId)).toBeTruthy();
    const decided = await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'approved.txt'))).toBe(true);
    expect(endOf(detail, 'Bash')).toMatchObject({ executed: true, result: { details: { hook: { decision: 'allow', policyDecision: 'ask' } } } });
  });

  it('a rejected ask leaves the command unexecuted and tells the model why', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch rejected.txt' }, decision: 'ask' });
    f.model.script(reply().tool('Bash', { command: 'touch rejected.txt' }), reply().text('Understood.'));
    const runId = await f.send('create rejected.txt');
    const approval = await nextPendingApproval(f);
    await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not today' });
    const detail = await f.waitForRun(runId);
    expect(existsSync(join(f.worktreePath(), 'rejected.txt'))).toBe(false);
    expect(endOf(detail, 'Bash').executed).toBe(false);
    expect(modelRequests(f)[1]!.lastToolResult?.content).toMatch(/not today/);
  });

  it('a native Write outside the worktree is denied through the hook by a fileWriteOutsideWorktree rule', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const rule = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'fileWriteOutsideWorktree' }, decision: 'deny' });
    const inside = join(f.worktreePath(), 'inside.txt');
    const outside = join(f.dataRoot, 'outside.txt');
    f.model.script(
      reply().tool('Write', { file_path: inside, content: 'fine' }),
      reply().tool('Write', { file_path: outside, content: 'not fine' }),
      reply().text('Done what I could.'),
    );
    const detail = await f.waitForRun(await f.send('write two files'));
    expect(readFileSync(inside, 'utf8')).toBe('fine');
    expect(existsSync(outside)).toBe(false);
    const writes = f.decisions.filter((entry) => entry.toolName === 'Write');
    expect(writes.map((entry) => [entry.action.kind === 'fileWrite' ? entry.action.path : null, entry.allow])).toEqual([
      [inside, true],
      [outside, false],
    ]);
    expect(writes[1]!.result.decidedBy).toEqual({ scope: 'workspace', ruleId: rule.body.id });
    const ends = detail.events.filter((event: any) => event.type === 'tool_call_end' && event.data.call.name === 'Write').map((event: any) => event.data.executed);
    expect(ends).toEqual([true, false]);
  });

  it('a worktree .claude/settings.json cannot switch the hook off', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'deny' });
    mkdirSync(join(f.worktreePath(), '.claude'), { recursive: true });
    writeFileSync(join(f.worktreePath(), '.claude', 'settings.json'), JSON.stringify({ disableAllHooks: true, permissions: { allow: ['Bash(*)'] } }));
    writeFileSync(join(f.worktreePath(), '.claude', 'settings.local.json'), JSON.stringify({ disableAllHooks: true }));
    writeFileSync(join(f.worktreePath(), 'victim.txt'), 'stay');
    f.model.script(reply().tool('Bash', { command: 'rm -f victim.txt' }), reply().text('ok'));
    await f.waitForRun(await f.send('delete victim.txt'));
    expect(existsSync(join(f.worktreePath(), 'victim.txt'))).toBe(true);
    expect(f.decisions.find((entry) => entry.toolName === 'Bash')?.allow).toBe(false);
  });

  it('streams text, records usage and cost, and resumes the Claude Code session on the next turn', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    f.model.script(reply().text('The magic number is 42.').usage({ input: 1200, output: 30 }));
    const first = await f.waitForRun(await f.send('remember 42'));
    expect(first.run.state).toBe('completed');
    // Deltas are streamed live (not kept in the run log).
    const deltas = f.operator!.events.filter((event) => event.event === 'run.event' && event.data.data.event?.type === 'text_delta');
    expect(deltas.map((event) => event.data.data.event.text).join('')).toBe('The magic number is 42.');
    expect(first.events.some((event: any) => event.type === 'assistant_message')).toBe(true);
    expect(first.run.usage.inputTokens).toBe(1200);
    expect(first.run.usage.outputTokens).toBe(30);
    expect(first.run.costUsd).toBeGreaterThan(0);
    const messages = (await f.api('GET', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`)).body.messages;
    expect(messages.some((message: any) => message.role === 'assistant' && message.content === 'The magic number is 42.')).toBe(true);

    f.model.script(reply().text('It was 42.'));
    const second = await f.waitForRun(await f.send('what was the number?'));
    expect(second.run.state).toBe('completed');
    // What the installed CLI sends (2.1.197, nonessential traffic off): one streamed model request per
    // model call, to /v1/messages?beta=true, and one HEAD of its base URL per process — no title,
    // token-count or telemetry requests. SEC-6: that base URL is the server's model proxy, which
    // answers the HEAD itself, so only model requests reach the model server.
    expect(modelRequests(f).map((request) => request.path)).toEqual(['/v1/messages?beta=true', '/v1/messages?beta=true']);
    expect(f.model.unknownRequests).toEqual([]);
    const resumed = modelRequests(f).at(-1)!;
    const history = JSON.stringify(resumed.body?.messages);
    expect(history).toContain('The magic number is 42.');
    expect(history).toContain('what was the number?');
  });

  it('cancelling a run kills the Claude Code process group, commands included', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const marker = `sleep 321.${process.pid}`;
    f.model.script(reply().tool('Bash', { command: marker, timeout: 600000 }), reply().text('slept'));
    const runId = await f.send('sleep');
    const { execFileSync } = await import('node:child_process');
    const running = () => {
      try {
        return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
      } catch {
        return [];
      }
    };
    const deadline = Date.now() + 30_000;
    while (running().length === 0) {
      if (Date.now() > deadline) throw new Error('the command never started');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const cancelled = await f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/cancel`);
    expect(cancelled.status).toBeLessThan(300);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('cancelled');
    // The process group is killed at once; on a loaded machine its exit can still take seconds to show.
    const gone = Date.now() + 30_000;
    while (running().length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running()).toEqual([]);
  });
});
