import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, type ScriptedModelServer, startScriptedModelServer, UNSCRIPTED_REPLY_TEXT } from './scripted-model-server.js';

interface SseEvent {
  event: string | undefined;
  data: string;
}

/** A minimal SSE parser, independent of both SDKs, to check the bytes on the wire. */
function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data };
    });
}

// Wire payloads are asserted field by field; a loose type keeps those assertions readable.
type WireJson = any;

async function readJson(response: Response): Promise<WireJson> {
  return (await response.json()) as WireJson;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const anthropicBody = (extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-5-5',
  max_tokens: 1024,
  system: 'You are a test.',
  messages: [{ role: 'user', content: 'Hello' }],
  ...extra,
});

const openAIBody = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-5.4',
  messages: [
    { role: 'system', content: 'You are a test.' },
    { role: 'user', content: 'Hello' },
  ],
  ...extra,
});

let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer();
});

afterEach(async () => {
  await server.close();
});

describe('scripted model server — Anthropic Messages wire', () => {
  it('streams the exact event sequence with text and tool_use blocks', async () => {
    server.script(reply().text('Let me look at the file for you').tool('read', { path: 'a.txt' }).usage({ input: 42, output: 17 }));
    const response = await post(`${server.url}/v1/messages?beta=true`, anthropicBody({ stream: true }), {
      'x-api-key': 'test-key',
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('request-id')).toMatch(/^req_011C/);
    const events = parseSse(await response.text());
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names.at(-2)).toBe('message_delta');
    expect(names.at(-1)).toBe('message_stop');
    for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event);

    const start = JSON.parse(events[0]!.data);
    expect(start.message.id).toMatch(/^msg_01[0-9A-Za-z]{22}$/);
    expect(start.message).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [], stop_reason: null });
    expect(start.message.usage.input_tokens).toBe(42);

    const blockStarts = events.filter((event) => event.event === 'content_block_start').map((event) => JSON.parse(event.data));
    expect(blockStarts.map((event) => event.content_block.type)).toEqual(['text', 'tool_use']);
    expect(blockStarts[1].content_block.id).toMatch(/^toolu_01[0-9A-Za-z]{22}$/);
    expect(blockStarts[1].content_block).toMatchObject({ name: 'read', input: {} });

    const deltas = events.filter((event) => event.event === 'content_block_delta').map((event) => JSON.parse(event.data));
    const text = deltas.filter((delta) => delta.delta.type === 'text_delta').map((delta) => delta.delta.text).join('');
    expect(text).toBe('Let me look at the file for you');
    expect(deltas.filter((delta) => delta.delta.type === 'text_delta').length).toBeGreaterThan(1);
    const json = deltas.filter((delta) => delta.delta.type === 'input_json_delta').map((delta) => delta.delta.partial_json).join('');
    expect(JSON.parse(json)).toEqual({ path: 'a.txt' });

    const messageDelta = JSON.parse(events.at(-2)!.data);
    expect(messageDelta.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
    expect(messageDelta.usage.output_tokens).toBe(17);

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ protocol: 'anthropic', path: '/v1/messages?beta=true', model: 'claude-sonnet-5-5', stream: true });
    expect(server.requests[0]!.headers['x-api-key']).toBe('test-key');
    expect(server.requests[0]!.body?.max_tokens).toBe(1024);
  });

  it('answers non-streaming requests with a complete message', async () => {
    server.script(reply().text('Hi there').stopReason('max_tokens'));
    const response = await post(`${server.url}/v1/messages`, anthropicBody());
    expect(response.headers.get('content-type')).toBe('application/json');
    const message = await readJson(response);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi there' }],
      stop_reason: 'max_tokens',
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_01/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('renders HTTP errors in the Anthropic error format', async () => {
    server.script(reply().error(529, 'Overloaded'));
    const response = await post(`${server.url}/v1/messages`, anthropicBody({ stream: true }));
    expect(response.status).toBe(529);
    expect(await readJson(response)).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('counts tokens and returns JSON 404 for unknown paths', async () => {
    const counted = await post(`${server.url}/v1/messages/count_tokens`, anthropicBody());
    expect(counted.status).toBe(200);
    const { input_tokens: inputTokens } = await readJson(counted);
    expect(inputTokens).toBeGreaterThan(0);

    const missing = await fetch(`${server.url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/json');
    expect(await readJson(missing)).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(server.unknownRequests).toEqual([{ method: 'GET', path: '/v1/models' }]);
    expect(server.requests).toHaveLength(0);
  });

  it('replies with a clear text when nothing is scripted, and records it', async () => {
    const response = await post(`${server.url}/v1/messages`, anthropicBody());
    const message = await readJson(response);
    expect(message.content).toEqual([{ type: 'text', text: UNSCRIPTED_REPLY_TEXT }]);
    expect(server.unscriptedRequests).toHaveLength(1);
    expect(server.requests[0]!.scripted).toBe(false);
  });

  it('works with the Anthropic SDK (stream helper and non-streaming create)', async () => {
    server.script(reply().thinking('Consider the file').text('Reading it').tool('read', { path: 'b.txt' }), reply().text('All done'));
    const client = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 512, messages: [{ role: 'user', content: 'Read b.txt' }] });
    const message = await stream.finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    const toolUse = message.content[2];
    expect(toolUse?.type === 'tool_use' && toolUse.input).toEqual({ path: 'b.txt' });
    expect(message.stop_reason).toBe('tool_use');

    const second = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 512, messages: [{ role: 'user', content: 'Go on' }] });
    expect(second.content).toEqual([{ type: 'text', text: 'All done' }]);
    expect(server.unscriptedRequests).toHaveLength(0);
  });
});

describe('scripted model server — OpenAI Chat Completions wire', () => {
  it('streams content, tool calls by index, a usage chunk and [DONE]', async () => {
    server.script(reply().text('Checking both files').tool('read', { path: 'a.txt' }).tool('read', { path: 'b.txt' }).usage({ input: 30, output: 12, cacheRead: 8 }));
    const response = await post(`${server.openaiBaseUrl}/chat/completions`, openAIBody({ stream: true, stream_options: { include_usage: true } }), {
      authorization: 'Bearer sk-test',
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(await response.text());
    expect(events.every((event) => event.event === undefined)).toBe(true);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
    for (const chunk of chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.id).toMatch(/^chatcmpl-/);
    }
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const content = chunks.flatMap((chunk) => chunk.choices.map((choice: { delta: { content?: string } }) => choice.delta.content ?? '')).join('');
    expect(content).toBe('Checking both files');

    const toolDeltas = chunks.flatMap((chunk) => chunk.choices.flatMap((choice: { delta: { tool_calls?: unknown[] } }) => choice.delta.tool_calls ?? []));
    const byIndex = new Map<number, { id?: string; name?: string; args: string }>();
    for (const delta of toolDeltas as Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>) {
      const entry = byIndex.get(delta.index) ?? { args: '' };
      if (delta.id) entry.id = delta.id;
      if (delta.function?.name) entry.name = delta.function.name;
      entry.args += delta.function?.arguments ?? '';
      byIndex.set(delta.index, entry);
    }
    expect([...byIndex.keys()]).toEqual([0, 1]);
    expect(byIndex.get(0)!.id).toMatch(/^call_/);
    expect(JSON.parse(byIndex.get(1)!.args)).toEqual({ path: 'b.txt' });

    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish.choices[0].finish_reason).toBe('tool_calls');
    const usageChunk = chunks.at(-1);
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: 38, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 8 } });
    expect(server.requests[0]).toMatchObject({ protocol: 'openai', path: '/v1/chat/completions', system: 'You are a test.', lastUserText: 'Hello' });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('omits the usage chunk unless asked, and answers non-streaming requests', async () => {
    server.script(reply().text('streamed'), reply().text('whole').tool('list', {}));
    const streamed = parseSse(await (await post(`${server.openaiBaseUrl}/chat/completions`, openAIBody({ stream: true }))).text());
    expect(streamed.slice(0, -1).every((event) => JSON.parse(event.data).usage === undefined)).toBe(true);

    const whole = await readJson(await post(`${server.openaiBaseUrl}/chat/completions`, openAIBody()));
    expect(whole).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'whole', tool_calls: [{ type: 'function', function: { name: 'list', arguments: '{}' } }] } }],
    });
    expect(whole.usage.total_tokens).toBe(whole.usage.prompt_tokens + whole.usage.completion_tokens);
  });

  it('renders HTTP errors in the OpenAI error format', async () => {
    server.script(reply().error(429, 'Rate limit reached'));
    const response = await post(`${server.openaiBaseUrl}/chat/completions`, openAIBody({ stream: true }));
    expect(response.status).toBe(429);
    expect(await readJson(response)).toEqual({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
  });

  it('works with the OpenAI SDK, streaming and not', async () => {
    server.script(reply().text('Hello from the script').usage({ input: 5, output: 4 }), reply().text('plain'));
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseUrl, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'gpt-5.4',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from the script');
    expect(usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4 });

    const completion = await client.chat.completions.create({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]?.message.content).toBe('plain');
  });
});

describe('scripted model server — scripting', () => {
  it('decides dynamic replies from the request (the last tool result)', async () => {
    const decide = reply((request) =>
      request.lastToolResult?.isError ? reply().text(`retrying after: ${request.lastToolResult.content}`) : reply().text('fine'),
    );
    server.script(decide);
    const response = await post(
      `${server.url}/v1/messages`,
      anthropicBody({
        messages: [
          { role: 'user', content: 'read it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ENOENT', is_error: true }] },
        ],
      }),
    );
    const message = await readJson(response);
    expect(message.content[0].text).toBe('retrying after: ENOENT');
    expect(server.requests[0]!.lastToolResult).toEqual({ toolCallId: 'toolu_1', content: 'ENOENT', isError: true });
  });

  it('a failed expect inside a dynamic reply fails the test: waitForRequests and close rethrow it, not only an HTTP 500', async () => {
    const own = await startScriptedModelServer();
    own.script(reply((request) => {
      expect(request.lastUserText).toBe('something else');
      return reply().text('unreachable');
    }));
    const response = await post(`${own.url}/v1/messages`, anthropicBody());
    expect(response.status).toBe(500);
    expect(own.callbackErrors).toHaveLength(1);
    await expect(own.waitForRequests(2)).rejects.toThrow(/expected 'Hello' to be 'something else'/);
    await expect(own.close()).rejects.toThrow(/expected 'Hello' to be 'something else'/);
  });

  it('a throwing conversation matcher fails the test at close', async () => {
    const own = await startScriptedModelServer();
    own.scriptFor(() => {
      throw new Error('matcher broke');
    }, reply().text('never'));
    const response = await post(`${own.url}/v1/chat/completions`, openAIBody());
    expect(response.status).toBe(500);
    await expect(own.close()).rejects.toThrow('matcher broke');
  });

  it('gives each of 150 concurrent requests its own next reply', async () => {
    const count = 150;
    server.script(...Array.from({ length: count }, (_, index) => reply().text(`reply ${index}`)));
    const texts = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const body = index % 2 === 0 ? anthropicBody({ stream: true }) : openAIBody({ stream: true });
        const path = index % 2 === 0 ? '/v1/messages' : '/v1/chat/completions';
        const events = parseSse(await (await post(`${server.url}${path}`, body)).text());
        return events
          .filter((event) => event.data !== '[DONE]')
          .map((event) => JSON.parse(event.data))
          .map((data) => data.delta?.text ?? data.choices?.[0]?.delta?.content ?? '')
          .join('');
      }),
    );
    expect(new Set(texts).size).toBe(count);
    expect(texts.every((text) => /^reply \d+$/.test(text))).toBe(true);
    expect(server.pendingReplies).toBe(0);
    expect(server.unscriptedRequests).toHaveLength(0);
  });

  it('keeps independent scripts per conversation key', async () => {
    const alpha = server.scriptFor('[run:alpha]', reply().text('alpha 1'), reply().text('alpha 2'));
    const beta = server.scriptFor((request) => request.system.includes('[run:beta]'), reply().text('beta 1'));
    server.script(reply().text('shared'));
    const ask = async (system: string) => (await readJson(await post(`${server.url}/v1/messages`, anthropicBody({ system })))).content[0].text;
    const answers = await Promise.all([ask('[run:beta] go'), ask('[run:alpha] go'), ask('nobody'), ask('[run:alpha] again')]);
    expect(answers[0]).toBe('beta 1');
    expect(answers[2]).toBe('shared');
    expect([answers[1], answers[3]].sort()).toEqual(['alpha 1', 'alpha 2']);
    expect(alpha.requests).toHaveLength(2);
    expect(beta.requests).toHaveLength(1);
    expect(alpha.remaining).toBe(0);
    // A matched conversation whose script ran out does not borrow from the shared queue.
    server.script(reply().text('not for beta'));
    expect(await ask('[run:beta] more')).toBe(UNSCRIPTED_REPLY_TEXT);
    expect(server.unscriptedRequests.map((request) => request.conversation)).toEqual([beta.name]);
    expect(alpha.name).toBe('[run:alpha]');
  });

  it('hangs until the server closes', async () => {
    server.script(reply().hang());
    const pending = post(`${server.url}/v1/messages`, anthropicBody({ stream: true })).then(
      () => 'answered',
      () => 'failed',
    );
    await server.waitForRequests(1);
    const raced = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 150))]);
    expect(raced).toBe('still waiting');
    await server.close();
    expect(await pending).toBe('failed');
  });

  it('slows chunks down when asked', async () => {
    server.script(reply().text('one two three four').chunkSize(4).slow(20));
    const started = Date.now();
    const events = parseSse(await (await post(`${server.url}/v1/messages`, anthropicBody({ stream: true }))).text());
    expect(events.at(-1)!.event).toBe('message_stop');
    expect(Date.now() - started).toBeGreaterThanOrEqual(20 * events.length - 20);
  });
});
