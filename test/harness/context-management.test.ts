/**
 * CTX-1, CTX-2: the built-in harness's context — earlier turns kept whole (tool calls and results in
 * the provider's wire shape), every request budgeted in tokens, old tool results elided near the
 * limit, older turns compacted into a summary the model writes, a "prompt is too long" refusal
 * compacted and retried. One real server and one scripted model server for the file; the model
 * server refuses requests over its window with the provider's own error, as Anthropic does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { countPromptTokens } from '../support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
let agentId: string;
const CALLS = Number(process.env.CTX_CALLS ?? 300);

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
  agentId = (await fixture.server.api('GET', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}`)).body.defaultAgentId ?? Object.values(fixture.agents)[0]!.id;
});
afterAll(async () => {
  await fixture.dispose();
});

async function newConversation(title: string): Promise<string> {
  const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function post(conversationId: string, text: string): Promise<any> {
  const response = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`, { text, agentId });
  expect(response.status).toBe(202);
  return fixture.waitForRun(response.body.run.id, 380_000);
}

async function setContextSize(contextSize: number | null): Promise<void> {
  const patched = await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/agents/${agentId}`, { contextSize });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}

async function conversationMessages(conversationId: string): Promise<Array<{ role: string; content: string }>> {
  return (await fixture.server.api('GET', `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`)).body.messages;
}

const blocksOf = (request: ScriptedRequest) =>
  ((request.body?.messages ?? []) as Array<{ role: string; content: string | Array<Record<string, unknown>> }>).flatMap((message) =>
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content,
  );

/** Earlier messages of about 2,000 characters each, operator and agent in turn. */
async function seedMessages(conversationId: string, count: number): Promise<void> {
  const messages = fixture.server.running.app.messages;
  for (let index = 0; index < count; index += 1) {
    const user = index % 2 === 0;
    await messages.append(fixture.workspaceId, {
      conversationId,
      runId: null,
      role: user ? 'user' : 'assistant',
      authorKind: user ? 'operator' : 'agent',
      authorId: user ? null : agentId,
      mode: 'chat',
      picker: null,
      content: `m${index} ${'lorem ipsum dolor '.repeat(110)}`,
    });
  }
}

const isCompaction = (request: ScriptedRequest) => (request.lastUserText ?? '').includes('hand-over summary');

describe('context management (CTX-1, CTX-2)', () => {
  it("earlier turns' tool calls and results reach the next turn, in the wire shape", async () => {
    const conversationId = await newConversation('Remembers');
    fixture.model.reset();
    fixture.model.script(reply().tool('bash', { command: 'echo remembered-output-4711' }), reply().text('Ran it.'), reply().text('It printed remembered-output-4711.'));
    expect((await post(conversationId, 'Run the echo.')).run.state).toBe('completed');
    expect((await post(conversationId, 'What did it print?')).run.state).toBe('completed');
    const next = fixture.model.requests[2]!;
    const blocks = blocksOf(next);
    const call = blocks.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ name: 'bash', input: { command: 'echo remembered-output-4711' } });
    const result = blocks.find((block) => block.type === 'tool_result');
    expect(result).toMatchObject({ tool_use_id: call!.id });
    expect(JSON.stringify(result)).toContain('remembered-output-4711');
    expect(next.lastUserText).toBe('What did it print?');
  });

  it('a turn of 300 tool calls with 30 KB outputs completes: old results are elided to stubs, no request is over the window', async () => {
    const conversationId = await newConversation('Long turn');
    fixture.model.reset();
    fixture.model.setMaxInputTokens(100_000);
    await setContextSize(100_000);
    try {
      let calls = 0;
      const next = (): ReturnType<typeof reply> =>
        reply(() => {
          if (calls >= CALLS) return reply().text('All 300 done.');
          const batch = reply();
          for (let index = 0; index < 3; index += 1) {
            calls += 1;
            batch.tool('bash', { command: `echo "call ${calls}"; head -c 30000 /dev/zero | tr '\\0' x` });
          }
          return batch;
        });
      fixture.model.script(...Array.from({ length: CALLS / 3 + 1 }, next));
      const detail = await post(conversationId, 'Print a lot, 300 times.');
      expect(detail.run.state).toBe('completed');
      expect(detail.run.error).toBeNull();
      expect(detail.toolCalls).toHaveLength(CALLS);
      expect(fixture.model.refusedAsTooLong).toEqual([]);
      const last = fixture.model.requests.at(-1)!;
      expect(countPromptTokens(last.body!)).toBeLessThanOrEqual(100_000);
      const stubs = blocksOf(last).filter((block) => block.type === 'tool_result' && JSON.stringify(block).includes('Elided to keep the context window'));
      expect(stubs.length).toBeGreaterThan(CALLS * 0.8);
      expect(JSON.stringify(stubs[0])).toContain('result of bash');
      // CTX-2: each 30 KB output was kept whole in the worktree, out of git; the model got head, tail and path.
      expect(JSON.stringify(stubs[0])).toMatch(/saved whole at \.control-center\/tool-output\/run_\w+\/\w+\.txt/);
      const worktree = join(fixture.workspaceDir, 'worktrees', conversationId);
      const saved = /saved whole at (\S+?\.txt)/.exec(last.lastToolResult!.content)![1]!;
      expect(readFileSync(join(worktree, saved), 'utf8')).toHaveLength(last.lastToolResult!.content.match(/of (\d+) characters not shown/)![1]! as unknown as number * 1);
      // The space has no repository: a repository made over the worktree shows the saved outputs nowhere.
      execFileSync('git', ['init', '-q'], { cwd: worktree });
      expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: worktree, encoding: 'utf8' })).not.toContain('.control-center');
      // The newest results are sent whole.
      expect(last.lastToolResult?.content).toContain(`call ${CALLS}`);
      expect(fixture.model.requests.some(isCompaction)).toBe(false);
    } finally {
      fixture.model.setMaxInputTokens(null);
      await setContextSize(null);
    }
  }, 400_000);

  it('a 200-message conversation continues: older turns are compacted into a summary the model writes, shown with its cost, and later turns start from it', async () => {
    const conversationId = await newConversation('Long talk');
    await seedMessages(conversationId, 200);
    fixture.model.reset();
    fixture.model.setMaxInputTokens(20_000);
    await setContextSize(20_000);
    try {
      fixture.model.scriptFor(isCompaction, reply().text('SUMMARY-8812: the user sent 200 messages of lorem ipsum.').usage({ input: 9_000, output: 40 }));
      fixture.model.script(reply().text('Continuing from the summary.'), reply().text('Still here.'));
      const detail = await post(conversationId, 'Go on.');
      expect(detail.run.state).toBe('completed');
      expect(fixture.model.refusedAsTooLong).toEqual([]);
      const compaction = fixture.model.requests.find(isCompaction)!;
      expect(compaction.lastUserText).toContain('Summarize the conversation above');
      const answered = fixture.model.requests.filter((request) => !isCompaction(request));
      // The summary request starts with the run's own system prompt and tools, the prefix the provider has cached.
      expect(compaction.system).toBe(answered[0]!.system);
      expect(compaction.toolNames).toEqual(answered[0]!.toolNames);
      expect(answered[0]!.allText).toContain('SUMMARY-8812');
      expect(answered[0]!.lastUserText).toBe('Go on.');
      expect(answered[0]!.allText).not.toContain('m0 lorem');
      const event = detail.events.find((recorded: any) => recorded.type === 'context_compacted');
      expect(event.data).toMatchObject({ trigger: 'budget', summary: 'SUMMARY-8812: the user sent 200 messages of lorem ipsum.' });
      expect(event.data.costUsd).toBeGreaterThan(0);
      expect(event.data.tokensAfter).toBeLessThan(event.data.tokensBefore);
      const line = (await conversationMessages(conversationId)).find((message) => message.role === 'system' && message.content.startsWith('Context compacted — summary'));
      expect(line?.content).toContain('SUMMARY-8812');
      expect(line?.content).toMatch(/cost \$\d/);
      // The next turn's history starts from the summary, not from the 200 messages.
      expect((await post(conversationId, 'And now?')).run.state).toBe('completed');
      const after = fixture.model.requests.at(-1)!;
      expect(isCompaction(after)).toBe(false);
      expect(after.allText).toContain('SUMMARY-8812');
      expect(after.allText).toContain('Continuing from the summary.');
      expect(after.allText).not.toContain('m0 lorem');
    } finally {
      fixture.model.setMaxInputTokens(null);
      await setContextSize(null);
    }
  }, 120_000);

  it("a provider's 'prompt is too long' refusal leads to compaction and one retry, not a failed run", async () => {
    const conversationId = await newConversation('Refused');
    await seedMessages(conversationId, 30);
    fixture.model.reset();
    // The window is the model's (1M): the estimate lets the request through; the provider's window is smaller.
    fixture.model.setMaxInputTokens(9_000);
    try {
      fixture.model.scriptFor(isCompaction, reply().text('SUMMARY-3141: thirty messages of lorem ipsum.'));
      fixture.model.script(reply().text('Answered after compaction.'));
      const detail = await post(conversationId, 'Answer me.');
      expect(detail.run.state).toBe('completed');
      expect(fixture.model.refusedAsTooLong).toHaveLength(1);
      const retried = fixture.model.requests.at(-1)!;
      expect(retried.scripted).toBe(true);
      expect(retried.allText).toContain('SUMMARY-3141');
      expect(retried.lastUserText).toBe('Answer me.');
      const event = detail.events.find((recorded: any) => recorded.type === 'context_compacted');
      expect(event.data).toMatchObject({ trigger: 'prompt_too_long', summary: 'SUMMARY-3141: thirty messages of lorem ipsum.' });
    } finally {
      fixture.model.setMaxInputTokens(null);
    }
  }, 120_000);

  it('when compaction cannot make room the run fails with a message that says so', async () => {
    const conversationId = await newConversation('No room');
    await seedMessages(conversationId, 10);
    fixture.model.reset();
    // Smaller than the system prompt and tools alone: nothing the harness can drop makes it fit.
    fixture.model.setMaxInputTokens(500);
    try {
      const detail = await post(conversationId, 'Answer me.');
      expect(detail.run.state).toBe('failed');
      expect(detail.run.error).toMatch(/^the model refused the request as too long \(.*prompt is too long.*\) and compaction could not make room: the summary request failed: .*prompt is too long/);
      expect(fixture.model.refusedAsTooLong).toHaveLength(2);
    } finally {
      fixture.model.setMaxInputTokens(null);
    }
  }, 120_000);

  it('/context shows what fills the window and /compact [focus] compacts now, without a model turn; neither is a message', async () => {
    const conversationId = await newConversation('Commands');
    const path = `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`;
    const empty = await fixture.server.api('POST', path, { text: '/compact', agentId });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ field: 'text', message: '/compact: the conversation has nothing to compact yet' });
    fixture.model.reset();
    fixture.model.script(reply().tool('bash', { command: 'echo compact-me-5150' }), reply().text('Ran it.'));
    expect((await post(conversationId, 'Run the echo.')).run.state).toBe('completed');

    const context = await fixture.server.api('POST', path, { text: '/context', agentId });
    expect(context.status).toBe(202);
    expect(context.body.run).toBeNull();
    expect(context.body.message).toMatchObject({ role: 'system' });
    for (const part of ['what filled the window', '- system prompt: ', '- skills: ', '- tools: ', '- history: ', '- tool results: ', 'of the budget']) expect(context.body.message.content).toContain(part);
    expect(context.body.message.content).toMatch(/- skills: [1-9]\d* tokens/);

    fixture.model.scriptFor(isCompaction, reply().text('SUMMARY-5150: ran echo compact-me-5150.'));
    const compacting = await fixture.server.api('POST', path, { text: '/compact the echo output', agentId });
    expect(compacting.status).toBe(202);
    expect(compacting.body.message).toBeNull();
    const detail = await fixture.waitForRun(compacting.body.run.id, 60_000);
    expect(detail.run.state).toBe('completed');
    const compaction = fixture.model.requests.filter(isCompaction);
    expect(compaction).toHaveLength(1);
    expect(compaction[0]!.lastUserText).toContain('Pay particular attention to: the echo output');
    expect(fixture.model.requests.filter((request) => !isCompaction(request))).toHaveLength(2);
    expect(detail.events.find((event: any) => event.type === 'context_compacted').data).toMatchObject({ trigger: 'operator', focus: 'the echo output' });
    const lines = await conversationMessages(conversationId);
    expect(lines.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['Run the echo.']);
    expect(lines.some((message) => message.role === 'system' && message.content.startsWith('Context compacted — summary (asked with /compact; focus: the echo output)'))).toBe(true);

    fixture.model.script(reply().text('From the summary.'));
    expect((await post(conversationId, 'What did it print?')).run.state).toBe('completed');
    const after = fixture.model.requests.at(-1)!;
    expect(after.allText).toContain('SUMMARY-5150');
    expect(blocksOf(after).some((block) => block.type === 'tool_use')).toBe(false);
  }, 120_000);

  it("near the budget the provider's own count (count_tokens) decides: a request the estimate alone would elide is sent whole", async () => {
    const conversationId = await newConversation('Counted');
    fixture.model.reset();
    await setContextSize(40_000);
    try {
      const print = (index: number) => reply().tool('bash', { command: `echo "chunk ${index}"; head -c 13000 /dev/zero | tr '\\0' y` });
      fixture.model.script(print(1), print(2), print(3), print(4), print(5), reply().text('Printed.'));
      const detail = await post(conversationId, 'Print five chunks.');
      expect(detail.run.state).toBe('completed');
      expect(fixture.model.received.filter((request) => request.path.startsWith('/v1/messages/count_tokens'))).toHaveLength(1);
      const last = fixture.model.requests.at(-1)!;
      // Budget: 40,000 less the answer's 16,000 and a margin = 23,000 tokens; the estimate (3.1 characters a token) is over it…
      expect(JSON.stringify([last.body!.system, last.body!.messages, last.body!.tools]).length / 3.1).toBeGreaterThan(23_000);
      // …the provider's count is not, so nothing was elided.
      expect(countPromptTokens(last.body!)).toBeLessThan(23_000);
      expect(JSON.stringify(last.body!.messages)).not.toContain('Elided to keep the context window');
      expect(last.toolResults).toHaveLength(1);
    } finally {
      await setContextSize(null);
    }
  }, 120_000);
});
