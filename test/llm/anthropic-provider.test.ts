import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicStreamFn, type AnthropicProviderOptions } from '../../src/llm/anthropic-provider.js';
import { findModel } from '../../src/llm/model-catalog.js';
import type { ModelMessage } from '../../src/llm/model-types.js';
import { reply, type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { expectSingleDoneLast, modelRequest, readTool, runStream } from '../support/stream-helpers.js';

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});

afterEach(async () => {
  await server.close();
});

function provider(options: Partial<AnthropicProviderOptions> = {}) {
  return createAnthropicStreamFn({
    apiKey: 'test-anthropic-key',
    baseUrl: server.anthropicBaseUrl,
    maxRetries: 0,
    traitsFor: (modelId) => findModel('anthropic', modelId),
    ...options,
  });
}

describe('Anthropic provider — streaming', () => {
  it('streams text deltas, usage and end_turn', async () => {
    server.script(reply().text('The file says hello to everyone who reads it').usage({ input: 120, output: 33, cacheRead: 80, cacheWrite: 40 }));
    const { events, response } = await runStream(provider(), modelRequest());
    expectSingleDoneLast(events);
    const deltas = events.filter((event) => event.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(response.text).toBe('The file says hello to everyone who reads it');
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage).toEqual({ inputTokens: 120, outputTokens: 33, cacheReadTokens: 80, cacheWriteTokens: 40 });
    expect(events.at(-2)?.type).toBe('usage');

    const sent = server.requests[0]!;
    // SDK 1.x sends the key as a bearer token; older clients (and the claude CLI) use x-api-key.
    expect(sent.headers['x-api-key'] ?? sent.headers.authorization).toMatch(/test-anthropic-key$/);
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-5-5',
      stream: true,
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are a careful assistant.', cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'read', description: 'Read a file', input_schema: readTool.inputSchema }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Read a.txt', cache_control: { type: 'ephemeral' } }] }],
    });
  });

  it('emits a single tool call once its JSON is complete', async () => {
    server.script(reply().text('Let me look').tool('read', { path: 'a.txt', options: { lines: [1, 2] } }, { id: 'toolu_fixed' }).chunkSize(3));
    const { events, response } = await runStream(provider(), modelRequest());
    expectSingleDoneLast(events);
    const toolEvents = events.filter((event) => event.type === 'tool_call');
    expect(toolEvents).toEqual([{ type: 'tool_call', id: 'toolu_fixed', name: 'read', input: { path: 'a.txt', options: { lines: [1, 2] } } }]);
    expect(events.findIndex((event) => event.type === 'text_delta')).toBeLessThan(events.findIndex((event) => event.type === 'tool_call'));
    expect(response.stopReason).toBe('tool_use');
    expect(response.message.content).toEqual([
      { type: 'text', text: 'Let me look' },
      { type: 'tool_call', id: 'toolu_fixed', name: 'read', input: { path: 'a.txt', options: { lines: [1, 2] } } },
    ]);
  });

  it('emits multiple (parallel) tool calls in order', async () => {
    server.script(reply().tool('read', { path: 'a.txt' }).tool('read', { path: 'b.txt' }).tool('list', {}));
    const { response } = await runStream(provider(), modelRequest());
    expect(response.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ['read', { path: 'a.txt' }],
      ['read', { path: 'b.txt' }],
      ['list', {}],
    ]);
    expect(new Set(response.toolCalls.map((call) => call.id)).size).toBe(3);
    expect(response.toolCalls.every((call) => /^toolu_01/.test(call.id))).toBe(true);
    expect(response.stopReason).toBe('tool_use');
  });

  it('replays a whole tool loop: thinking with signature, tool results merged into one user turn', async () => {
    server.script(reply().thinking('I should read both').tool('read', { path: 'a.txt' }).tool('read', { path: 'b.txt' }), reply().text('Both read'));
    const streamFn = provider();
    const first = await runStream(streamFn, modelRequest());
    const thinking = first.response.message.content[0];
    expect(thinking).toMatchObject({ type: 'thinking', text: 'I should read both' });
    expect(thinking?.type === 'thinking' && thinking.signature).toBeTruthy();
    expect(first.events.some((event) => event.type === 'thinking_delta')).toBe(true);

    const [callA, callB] = first.response.toolCalls;
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Read a.txt' },
      first.response.message,
      { role: 'tool', toolCallId: callA!.id, content: 'alpha', isError: false },
      { role: 'tool', toolCallId: callB!.id, content: 'ENOENT: b.txt', isError: true },
      { role: 'user', content: 'and be quick' },
    ];
    const second = await runStream(streamFn, modelRequest({ messages }));
    expect(second.response.text).toBe('Both read');

    const sent = server.requests[1]!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect(sent.messages).toHaveLength(3);
    expect(sent.messages[1]!.content.map((block) => block.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
    expect(sent.messages[1]!.content[0]).toMatchObject({ type: 'thinking', thinking: 'I should read both' });
    expect(sent.messages[1]!.content[0]!.signature).toBe((thinking as { signature: string }).signature);
    expect(sent.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: callA!.id, content: 'alpha' },
        { type: 'tool_result', tool_use_id: callB!.id, content: 'ENOENT: b.txt', is_error: true },
        { type: 'text', text: 'and be quick', cache_control: { type: 'ephemeral' } },
      ],
    });
    expect(server.requests[1]!.lastToolResult).toEqual({ toolCallId: callB!.id, content: 'ENOENT: b.txt', isError: true });
  });

  it('maps max_tokens and refusal stop reasons', async () => {
    server.script(reply().text('cut off').stopReason('max_tokens'), reply().text('no').stopReason('refusal'));
    expect((await runStream(provider(), modelRequest())).response.stopReason).toBe('max_tokens');
    const refused = await runStream(provider(), modelRequest());
    expect(refused.response.stopReason).toBe('error');
    expect(refused.response.errorMessage).toMatch(/refusal/);
  });
});

describe('Anthropic provider — effort mapping', () => {
  it('uses adaptive thinking and output_config.effort on current models, without temperature', async () => {
    server.script(reply().text('ok'));
    await runStream(provider(), modelRequest({ effort: 'medium', temperature: 0.2 }));
    const body = server.requests[0]!.body!;
    expect(body.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
    expect(body.output_config).toEqual({ effort: 'medium' });
    expect(body).not.toHaveProperty('temperature');
  });

  it('uses a thinking budget on older models, on top of max_tokens', async () => {
    server.script(reply().text('ok'), reply().text('ok'));
    await runStream(provider(), modelRequest({ model: 'claude-haiku-4-5', effort: 'high', maxTokens: 4000, temperature: 0.5 }));
    expect(server.requests[0]!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 24_576 }, max_tokens: 28_576 });
    expect(server.requests[0]!.body).not.toHaveProperty('temperature');
    await runStream(provider(), modelRequest({ model: 'claude-haiku-4-5', temperature: 0.5 }));
    expect(server.requests[1]!.body).toMatchObject({ temperature: 0.5, max_tokens: 1024 });
    expect(server.requests[1]!.body).not.toHaveProperty('thinking');
  });

  it('rejects an effort outside the model vocabulary without sending a request', async () => {
    const { events, response } = await runStream(provider(), modelRequest({ model: 'claude-haiku-4-5', effort: 'max' }));
    expectSingleDoneLast(events);
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toContain("effort 'max' is not valid for model claude-haiku-4-5; use one of low, medium, high");
    expect(server.requests).toHaveLength(0);
  });
});

describe('Anthropic provider — failures end the stream, never throw', () => {
  it('turns an HTTP 4xx into done error with status and the provider message', async () => {
    server.script(reply().error(400, 'messages: text content blocks must be non-empty'));
    const { events, response } = await runStream(provider(), modelRequest());
    expectSingleDoneLast(events);
    expect(response.done).toMatchObject({
      stopReason: 'error',
      httpStatus: 400,
      retryable: false,
      errorMessage: 'Anthropic API error: HTTP 400 invalid_request_error: messages: text content blocks must be non-empty',
    });
  });

  it('turns an HTTP 5xx into a retryable done error', async () => {
    server.script(reply().error(529, 'Overloaded'));
    const { response } = await runStream(provider(), modelRequest());
    expect(response.done).toMatchObject({ stopReason: 'error', httpStatus: 529, retryable: true });
    expect(response.errorMessage).toContain('HTTP 529 overloaded_error: Overloaded');
  });

  it('retries transient errors before the stream starts when allowed', async () => {
    server.script(reply().error(529, 'Overloaded', { retryAfterMs: 1 }), reply().text('second time lucky'));
    const { response } = await runStream(provider({ maxRetries: 2 }), modelRequest());
    expect(response.text).toBe('second time lucky');
    expect(server.requests).toHaveLength(2);
  });

  it('ends a hung request with an idle-timeout error', async () => {
    server.script(reply().hang());
    const started = Date.now();
    const { events, response } = await runStream(provider({ idleTimeoutMs: 250 }), modelRequest());
    expectSingleDoneLast(events);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.done).toMatchObject({ stopReason: 'error', retryable: true });
    expect(response.errorMessage).toContain('no data for 250 ms (idle timeout)');
  });

  it('ends a stream that stalls midway with an idle-timeout error, keeping what arrived', async () => {
    server.script(reply().text('partial answer').hang());
    const { events, response } = await runStream(provider({ idleTimeoutMs: 250 }), modelRequest());
    expectSingleDoneLast(events);
    expect(response.text).toBe('partial answer');
    expect(response.errorMessage).toMatch(/idle timeout/);
    expect(response.usage?.inputTokens).toBeGreaterThan(0);
  });

  it('does not time out a slow consumer while bytes keep flowing', async () => {
    server.script(reply().text('a b c').chunkSize(2));
    const streamFn = provider({ idleTimeoutMs: 150 });
    const events = [];
    // Each pause is longer than the idle timeout: the clock must stop while the consumer holds an event.
    for await (const event of streamFn(modelRequest(), new AbortController().signal)) {
      events.push(event);
      if (event.type === 'text_delta') await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'end_turn' });
  });

  it('ends with aborted when the caller aborts mid-stream', async () => {
    server.script(reply().text('one two three four five six seven eight').chunkSize(4).slow(40));
    const controller = new AbortController();
    const events = [];
    for await (const event of provider()(modelRequest(), controller.signal)) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    expectSingleDoneLast(events);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'aborted' });
    expect(events.filter((event) => event.type === 'text_delta').length).toBeLessThan(5);
  });

  it('ends with aborted without a request when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { events } = await runStream(provider(), modelRequest(), controller.signal);
    expect(events).toEqual([{ type: 'done', stopReason: 'aborted', errorMessage: 'Anthropic request aborted by the caller' }]);
    expect(server.requests).toHaveLength(0);
  });

  it('turns a malformed event into done error', async () => {
    server.script(reply().text('before').malformed());
    const { events, response } = await runStream(provider(), modelRequest());
    expectSingleDoneLast(events);
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toMatch(/^Anthropic sent a malformed stream: /);
  });

  it('turns an in-stream error event into done error', async () => {
    server.script(reply().text('before').streamError('Overloaded'));
    const { response } = await runStream(provider(), modelRequest());
    expect(response.done).toMatchObject({ stopReason: 'error', retryable: true, errorMessage: 'Anthropic stream error (overloaded_error): Overloaded' });
  });

  it('turns a connection reset mid-stream into done error', async () => {
    server.script(reply().text('before the reset').disconnect());
    const { events, response } = await runStream(provider(), modelRequest());
    expectSingleDoneLast(events);
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toMatch(/^Anthropic (connection error|stream ended before message_stop)/);
  });

  it('turns a refused connection into done error', async () => {
    const port = server.port;
    await server.close();
    const { response } = await runStream(provider({ baseUrl: `http://127.0.0.1:${port}` }), modelRequest());
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toMatch(/^Anthropic connection error: .*ECONNREFUSED/);
  });
});
