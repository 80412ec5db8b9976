import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

function worktree(): string {
  return join(fixture.workspaceDir, 'worktrees', fixture.conversationId);
}

function seedFile(path: string, content: string): void {
  mkdirSync(worktree(), { recursive: true });
  writeFileSync(join(worktree(), path), content);
}

describe('built-in harness runs (HAR-1, HAR-3, HAR-6)', () => {
  it('a multi-step run reads, edits and runs a command, then answers; everything is in the run log', async () => {
    fixture = await startHarnessFixture();
    seedFile('greeting.txt', 'hello world\n');
    fixture.model.script(
      reply().text('Reading the file.').tool('read', { path: 'greeting.txt' }).usage({ input: 120, output: 30 }),
      reply().tool('edit', { path: 'greeting.txt', oldText: 'world', newText: 'control center' }).usage({ input: 200, output: 20 }),
      reply().tool('bash', { command: 'cat greeting.txt && wc -l greeting.txt' }).usage({ input: 260, output: 15 }),
      reply().text('Done: the greeting now says hello control center.').usage({ input: 300, output: 12 }),
    );
    const runId = await fixture.send('Change the greeting.');
    const detail = await fixture.waitForRun(runId);

    expect(detail.run).toMatchObject({ state: 'completed', mode: 'chat', autonomy: 'actWithApproval', deliverableFailed: false });
    expect(detail.run.usage).toEqual({ inputTokens: 880, outputTokens: 77, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(detail.run.costUsd).toBeGreaterThan(0);
    expect(readFileSync(join(worktree(), 'greeting.txt'), 'utf8')).toBe('hello control center\n');
    expect(detail.toolCalls.map((call: any) => [call.name, call.executed, call.isError, call.decision])).toEqual([
      ['read', true, false, 'allow'],
      ['edit', true, false, 'allow'],
      ['bash', true, false, 'allow'],
    ]);
    expect(detail.toolCalls[0].output).toContain('hello world');
    expect(detail.toolCalls[2].output).toContain('hello control center');
    expect(detail.toolCalls[2].decidedBy).toMatchObject({ scope: 'default' });
    // The model saw each tool result before its next step.
    expect(fixture.model.requests[1]!.lastToolResult?.content).toContain('hello world');
    const messages = (await fixture.server.api('GET', `/api/workspaces/${fixture.workspaceId}/conversations/${fixture.conversationId}/messages`)).body.messages;
    expect(messages.map((message: any) => [message.role, message.mode, message.picker])).toEqual([
      ['user', 'chat', 'Agent'],
      ['assistant', 'chat', 'Agent'],
    ]);
    expect(messages[1].content).toBe('Done: the greeting now says hello control center.');
    const types = detail.events.map((event: any) => event.type);
    expect(types[0]).toBe('run_start');
    expect(types.at(-1)).toBe('run_end');
    expect(types.filter((type: string) => type === 'tool_call_end')).toHaveLength(3);
    // Streamed live on SSE too, text deltas included.
    await fixture.operator!.waitFor((event) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.state === 'completed');
    const deltas = fixture.operator!.events.filter((event) => event.event === 'run.event' && event.data.data.runId === runId && event.data.data.event.type === 'text_delta');
    expect(deltas.map((event) => event.data.data.event.text).join('')).toContain('Reading the file.');
  });

  it('the system prompt has persona, Agent instructions, Skills and the mode block naming only surfaced tools (HAR-1, CAP-7)', async () => {
    fixture = await startHarnessFixture();
    const engineer = fixture.agents.engineer!;
    await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/agents/${engineer.id}`, { systemPrompt: 'Always write tests first.' });
    fixture.model.script(reply().text('ok'));
    const runId = await fixture.send('@engineer hello');
    await fixture.waitForRun(runId);
    const request = fixture.model.requests[0]!;
    expect(request.system).toContain('# Persona');
    expect(request.system).toContain('# Agent instructions\n\nAlways write tests first.');
    expect(request.system).toMatch(/# Skills\n\n- implementation: .+\n- testing: /);
    expect(request.system).toContain('## Mode: Agent');
    for (const name of request.toolNames) expect(request.system).toContain(`\`${name}\``);
    expect(request.toolNames).toEqual(expect.arrayContaining(['read', 'write', 'edit', 'bash', 'ask_user', 'task']));
    expect(request.lastUserText).toBe('@engineer hello');
  });

  it('a tool that is not on the surface is invisible: calling it returns an error and nothing runs (HAR-3)', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    fixture.model.script(
      reply().tool('write', { path: 'pwned.txt', content: 'x' }),
      reply().tool('bash', { command: 'touch pwned2.txt' }),
      reply().text('I cannot write here.'),
    );
    const runId = await fixture.send('write a file');
    const detail = await fixture.waitForRun(runId);
    expect(fixture.model.requests[0]!.toolNames).not.toContain('write');
    expect(fixture.model.requests[0]!.toolNames).not.toContain('bash');
    expect(detail.toolCalls.map((call: any) => [call.name, call.executed])).toEqual([
      ['write', false],
      ['bash', false],
    ]);
    expect(fixture.model.requests[1]!.lastToolResult).toMatchObject({ isError: true });
    expect(fixture.model.requests[1]!.lastToolResult!.content).toContain('There is no tool named "write"');
    expect(existsSync(join(worktree(), 'pwned.txt'))).toBe(false);
    expect(existsSync(join(worktree(), 'pwned2.txt'))).toBe(false);
  });

  it('paths that leave the worktree are refused (HAR-7)', async () => {
    fixture = await startHarnessFixture();
    seedFile('inside.txt', 'fine');
    fixture.model.script(
      reply().tool('read', { path: '../../registry.sqlite' }),
      reply().tool('read', { path: '/etc/hostname' }),
      reply().tool('write', { path: '../escape.txt', content: 'x' }),
      reply().text('refused, as expected'),
    );
    const runId = await fixture.send('try to escape');
    const detail = await fixture.waitForRun(runId);
    // All three calls were made and each was refused by name: an `every` over the calls alone would
    // pass on a run that made none.
    expect(detail.toolCalls.map((call: any) => [call.name, call.isError])).toEqual([
      ['read', true],
      ['read', true],
      ['write', true],
    ]);
    expect(detail.toolCalls.map((call: any) => call.output)).toEqual([
      expect.stringMatching(/^Refused path "\.\.\/\.\.\/registry\.sqlite"/),
      expect.stringMatching(/^Refused path "\/etc\/hostname"/),
      expect.stringMatching(/^Refused path "\.\.\/escape\.txt"/),
    ]);
    expect(existsSync(join(worktree(), '..', 'escape.txt'))).toBe(false);
  });

  it('invalid tool input is an error result naming the field', async () => {
    fixture = await startHarnessFixture();
    fixture.model.script(reply().tool('edit', { path: 'a.txt' }), reply().text('ok'));
    const runId = await fixture.send('edit');
    const detail = await fixture.waitForRun(runId);
    expect(detail.toolCalls[0].isError).toBe(true);
    expect(detail.toolCalls[0].output).toMatch(/oldText/);
  });
});

describe('provider failures end the run with a clear error (HAR-2)', () => {
  it('an HTTP error from the provider fails the run with the status and message', async () => {
    fixture = await startHarnessFixture();
    fixture.model.script(reply().error(500, 'the model is on fire'));
    const runId = await fixture.send('hello');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/500/);
    expect(detail.run.error).toMatch(/the model is on fire/);
    const messages = (await fixture.server.api('GET', `/api/workspaces/${fixture.workspaceId}/conversations/${fixture.conversationId}/messages`)).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: 'system', content: expect.stringContaining('Run failed') });
    const agent = await fixture.server.api('GET', `/api/workspaces/${fixture.workspaceId}/agents/${fixture.agents.ceo!.id}`);
    expect(agent.body.state).toBe('failed');
  });

  it('a hung provider is cut off by the idle timeout', async () => {
    fixture = await startHarnessFixture({ server: { modelIdleTimeoutMs: 300 } });
    fixture.model.script(reply().text('partial').hang());
    const runId = await fixture.send('hello');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/idle|timed out|no data/i);
  });

  it('no model configured: the run fails at once saying how to configure one', async () => {
    fixture = await startHarnessFixture({ server: { env: {} } });
    const runId = await fixture.send('hello');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/ANTHROPIC_API_KEY/);
    expect(fixture.model.requests).toHaveLength(0);
  });
});

describe('OpenAI-compatible providers run the same harness (HAR-2)', () => {
  it('an agent on an OpenAI model and one on a local Ollama model both run tools through Chat Completions', async () => {
    fixture = await startHarnessFixture();
    const engineer = fixture.agents.engineer!;
    await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/agents/${engineer.id}`, { modelId: 'gpt-5.4', effort: 'high' });
    seedFile('notes.md', 'remember the milk');
    fixture.model.script(reply().tool('read', { path: 'notes.md' }).usage({ input: 50, output: 5 }), reply().text('It says to remember the milk.').usage({ input: 70, output: 9 }));
    const runId = await fixture.send('@engineer what do the notes say?');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run).toMatchObject({ state: 'completed', model: 'gpt-5.4', usage: { inputTokens: 120, outputTokens: 14 } });
    expect(fixture.model.requests.map((request) => request.protocol)).toEqual(['openai', 'openai']);
    expect(fixture.model.requests[0]!.body!.reasoning_effort).toBe('high');
    expect(fixture.model.requests[1]!.lastToolResult!.content).toContain('remember the milk');

    const qa = fixture.agents.qa!;
    await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/agents/${qa.id}`, { modelId: 'ollama/qwen3-coder' });
    fixture.model.script(reply().text('local answer'));
    const local = await fixture.waitForRun(await fixture.send('@qa hello'));
    expect(local.run).toMatchObject({ state: 'completed', costUsd: 0 });
    expect(fixture.model.requests.at(-1)!.model).toBe('qwen3-coder');
  });
});
