import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findModel } from '../../src/llm/model-catalog.js';
import type { ModelMessage } from '../../src/llm/model-types.js';
import { createOpenAIStreamFn, type OpenAIProviderOptions } from '../../src/llm/openai-provider.js';
import { reply, type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { expectSingleDoneLast, modelRequest, readTool, runStream } from '../support/stream-helpers.js';

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});

afterEach(async () => {
  await server.close();
});

function provider(options: Partial<OpenAIProviderOptions> = {}) {
  return createOpenAIStreamFn({
    apiKey: 'sk-test',
    baseUrl: server.openaiBaseUrl,
    maxRetries: 0,
    traitsFor: (modelId) => {
      const model = findModel('openai', modelId);
      return model.known ? model : undefined;
    },
    ...options,
  });
}

const gptRequest = (overrides: Parameters<typeof modelRequest>[0] = {}) => modelRequest({ model: 'gpt-5.4', ...overrides });

describe('OpenAI-compatible provider — streaming', () => {
  it('streams text deltas, usage (cached tokens split out) and end_turn', async () => {
    server.script(reply().text('Here is what the file contains, in short').usage({ input: 100, output: 20, cacheRead: 60 }));
    const { events, response } = await runStream(provider(), gptRequest());
    expectSingleDoneLast(events);
    expect(events.filter((event) => event.type === 'text_delta').length).toBeGreaterThan(1);
    expect(response.text).toBe('Here is what the file contains, in short');
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 60 });

    const sent = server.requests[0]!;
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toMatchObject({
      model: 'gpt-5.4',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1024,
      messages: [
        { role: 'system', content: 'You are a careful assistant.' },
        { role: 'user', content: 'Read a.txt' },
      ],
      tools: [{ type: 'function', function: { name: 'read', description: 'Read a file', parameters: readTool.inputSchema } }],
    });
  });

  it('accumulates a single tool call and emits it complete', async () => {
    server.script(reply().text('Reading').tool('read', { path: 'a.txt', deep: { n: 1 } }, { id: 'call_fixed' }).chunkSize(3));
    const { events, response } = await runStream(provider(), gptRequest());
    expectSingleDoneLast(events);
    expect(events.filter((event) => event.type === 'tool_call')).toEqual([
      { type: 'tool_call', id: 'call_fixed', name: 'read', input: { path: 'a.txt', deep: { n: 1 } } },
    ]);
    expect(response.stopReason).toBe('tool_use');
    expect(response.message.content.map((block) => block.type)).toEqual(['text', 'tool_call']);
  });

  it('accumulates parallel tool calls by index, even when their deltas interleave', async () => {
    server.script(reply().tool('read', { path: 'first.txt' }).tool('read', { path: 'second.txt' }).tool('list', { dir: '.' }).chunkSize(4).interleaved());
    const { response } = await runStream(provider(), gptRequest());
    expect(response.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ['read', { path: 'first.txt' }],
      ['read', { path: 'second.txt' }],
      ['list', { dir: '.' }],
    ]);
    expect(response.toolCalls.every((call) => call.id.startsWith('call_'))).toBe(true);
  });

  it('sends tool results as tool messages and reasoning back only when asked', async () => {
    server.script(reply().thinking('think first').tool('read', { path: 'a.txt' }), reply().text('done'), reply().text('done again'));
    const first = await runStream(provider({ replayReasoningContent: true }), gptRequest());
    expect(first.events.some((event) => event.type === 'thinking_delta')).toBe(true);
    expect(first.response.message.content[0]).toEqual({ type: 'thinking', text: 'think first' });
    const call = first.response.toolCalls[0]!;
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Read a.txt' },
      first.response.message,
      { role: 'tool', toolCallId: call.id, content: 'no such file', isError: true },
    ];
    await runStream(provider({ replayReasoningContent: true }), gptRequest({ messages }));
    const replayed = server.requests[1]!.body as { messages: Array<Record<string, unknown>> };
    expect(replayed.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'think first',
        tool_calls: [{ id: call.id, type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }],
      },
      { role: 'tool', tool_call_id: call.id, content: 'Error: no such file' },
    ]);
    expect(server.requests[1]!.lastToolResult).toEqual({ toolCallId: call.id, content: 'Error: no such file', isError: true });

    await runStream(provider(), gptRequest({ messages }));
    const plain = server.requests[2]!.body as { messages: Array<Record<string, unknown>> };
    expect(plain.messages[2]).not.toHaveProperty('reasoning_content');
  });

  it('maps finish_reason length to max_tokens', async () => {
    server.script(reply().text('cut').stopReason('max_tokens'));
    expect((await runStream(provider(), gptRequest())).response.stopReason).toBe('max_tokens');
  });
});

describe('OpenAI-compatible provider — request shaping', () => {
  it('passes reasoning_effort and max_completion_tokens for reasoning models, without temperature', async () => {
    server.script(reply().text('ok'));
    await runStream(provider({ maxTokensField: 'max_completion_tokens' }), gptRequest({ effort: 'high', temperature: 0.3 }));
    const body = server.requests[0]!.body!;
    expect(body).toMatchObject({ reasoning_effort: 'high', max_completion_tokens: 1024 });
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('temperature');
  });

  it('passes temperature to plain chat models and omits stream_options when told', async () => {
    server.script(reply().text('ok'));
    const { response } = await runStream(provider({ includeUsage: false }), gptRequest({ model: 'gpt-4.1', temperature: 0.3 }));
    expect(server.requests[0]!.body).toMatchObject({ temperature: 0.3 });
    expect(server.requests[0]!.body).not.toHaveProperty('stream_options');
    expect(response.usage).toBeUndefined();
    expect(response.stopReason).toBe('end_turn');
  });

  it('passes any effort through for models it does not know (local servers)', async () => {
    server.script(reply().text('ok'));
    await runStream(provider({ traitsFor: () => undefined }), gptRequest({ model: 'qwen3-coder:30b', effort: 'low' }));
    expect(server.requests[0]!.body).toMatchObject({ model: 'qwen3-coder:30b', reasoning_effort: 'low' });
  });

  it('rejects an effort outside a known vocabulary without sending a request', async () => {
    const { response } = await runStream(provider(), gptRequest({ model: 'gpt-4.1', effort: 'high' }));
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toContain('model gpt-4.1 has no effort setting');
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAI-compatible provider — failures end the stream, never throw', () => {
  it('turns HTTP 4xx into done error with status and the provider message', async () => {
    server.script(reply().error(401, 'Incorrect API key provided'));
    const { events, response } = await runStream(provider({ providerLabel: 'DeepSeek' }), gptRequest());
    expectSingleDoneLast(events);
    expect(response.done).toMatchObject({
      stopReason: 'error',
      httpStatus: 401,
      retryable: false,
      errorMessage: 'DeepSeek API error: HTTP 401 invalid_request_error: Incorrect API key provided',
    });
  });

  it('turns HTTP 5xx into a retryable done error, and retries when allowed', async () => {
    server.script(reply().error(503, 'upstream unavailable'));
    const failed = await runStream(provider(), gptRequest());
    expect(failed.response.done).toMatchObject({ stopReason: 'error', httpStatus: 503, retryable: true });
    expect(failed.response.errorMessage).toContain('HTTP 503 server_error: upstream unavailable');

    server.script(reply().error(503, 'busy', { retryAfterMs: 1 }), reply().text('recovered'));
    const retried = await runStream(provider({ maxRetries: 1 }), gptRequest());
    expect(retried.response.text).toBe('recovered');
  });

  it('ends a hung request with an idle-timeout error', async () => {
    server.script(reply().hang());
    const { events, response } = await runStream(provider({ idleTimeoutMs: 250, providerLabel: 'Ollama' }), gptRequest());
    expectSingleDoneLast(events);
    expect(response.errorMessage).toBe('Ollama sent no data for 250 ms (idle timeout); the request was cancelled');
  });

  it('ends with aborted when the caller aborts mid-stream', async () => {
    server.script(reply().text('one two three four five six seven eight').chunkSize(4).slow(40));
    const controller = new AbortController();
    const events = [];
    for await (const event of provider()(gptRequest(), controller.signal)) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    expectSingleDoneLast(events);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'aborted' });
  });

  it('turns a malformed chunk into done error', async () => {
    server.script(reply().text('before').malformed());
    const { response } = await runStream(provider(), gptRequest());
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toMatch(/^OpenAI sent a malformed stream: /);
  });

  it('turns an in-stream error object into done error', async () => {
    server.script(reply().text('before').streamError('The server had an error', 'server_error'));
    const { response } = await runStream(provider(), gptRequest());
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toBe('OpenAI stream error (server_error): The server had an error');
  });

  it('turns a connection reset mid-stream into done error', async () => {
    server.script(reply().text('before the reset').disconnect());
    const { events, response } = await runStream(provider(), gptRequest());
    expectSingleDoneLast(events);
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toMatch(/^OpenAI (connection error|stream ended without a finish_reason)/);
  });
});
