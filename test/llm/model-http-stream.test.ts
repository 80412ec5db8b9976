import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_API_VERSION, createAnthropicStreamFn, type AnthropicProviderOptions } from '../../src/llm/anthropic-provider.js';
import { findModel } from '../../src/llm/model-catalog.js';
import { createOpenAIStreamFn } from '../../src/llm/openai-provider.js';
import { SseParser, SseFramingError, type SseMessage } from '../../src/llm/sse-parser.js';
import { reply, type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { expectSingleDoneLast, modelRequest, runStream } from '../support/stream-helpers.js';

/**
 * The SDK-free model-call path (HAR-2): the Anthropic provider without a custom fetch posts
 * on a kept-alive node:http connection and parses the server-sent events itself. The provider suite
 * covers the stream semantics; these tests pin what the SDK did for free: headers, connection reuse,
 * retry policy, error bodies.
 */

let scripted: ScriptedModelServer | undefined;
let raw: Server | undefined;

afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
  if (raw) {
    raw.closeAllConnections();
    await new Promise((resolve) => raw!.close(resolve));
    raw = undefined;
  }
});

function anthropic(baseUrl: string, options: Partial<AnthropicProviderOptions> = {}) {
  return createAnthropicStreamFn({ apiKey: 'sk-test', baseUrl, maxRetries: 0, traitsFor: (id) => findModel('anthropic', id), ...options });
}

/** A bare HTTP server answering each request with `handle`, counting the TCP connections it accepts. */
async function rawServer(handle: (request: IncomingMessage, response: ServerResponse, index: number) => void): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  let index = 0;
  raw = createServer((request, response) => {
    request.resume();
    request.on('end', () => handle(request, response, index++));
  });
  raw.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => raw!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, connections: () => connections };
}

/** A whole Anthropic stream answering "ok". */
const okStream = [
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

describe('SDK-free Anthropic request', () => {
  it('sends the version, the bearer key and JSON, with configured default headers on top, to <base>/v1/messages', async () => {
    scripted = await startScriptedModelServer();
    scripted.script(reply().text('hi'));
    const { response } = await runStream(anthropic(`${scripted.anthropicBaseUrl}/`, { defaultHeaders: { 'X-Team': 'blue', 'Anthropic-Beta': 'feature-x' } }), modelRequest());
    expect(response.text).toBe('hi');
    const sent = scripted.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers).toMatchObject({
      'anthropic-version': ANTHROPIC_API_VERSION,
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      'x-team': 'blue',
      'anthropic-beta': 'feature-x',
    });
    expect(Number(sent.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(sent.body)));
  });

  it('reuses one kept-alive connection for consecutive calls', async () => {
    const server = await rawServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(okStream);
    });
    const streamFn = anthropic(server.url);
    for (let call = 0; call < 3; call += 1) {
      const { response } = await runStream(streamFn, modelRequest());
      expect(response.text).toBe('ok');
      expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    }
    expect(server.connections()).toBe(1);
  });

  it('retries once on a fresh connection when a kept-alive one turns out closed, even with no retries allowed', async () => {
    const seen = new Set<unknown>();
    const server = await rawServer((request, response) => {
      if (seen.has(request.socket)) {
        // What a server that timed the idle connection out looks like to the client: reset on reuse.
        request.socket.destroy();
        return;
      }
      seen.add(request.socket);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(okStream);
    });
    const streamFn = anthropic(server.url);
    expect((await runStream(streamFn, modelRequest())).response.text).toBe('ok');
    expect((await runStream(streamFn, modelRequest())).response.text).toBe('ok');
    expect(server.connections()).toBe(2);
  });

  it('keeps a non-JSON error body as the message and the status on the done event', async () => {
    const server = await rawServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<html>bad gateway</html>');
    });
    const { events, response } = await runStream(anthropic(server.url), modelRequest());
    expectSingleDoneLast(events);
    expect(response.done).toMatchObject({ stopReason: 'error', httpStatus: 502, retryable: true, errorMessage: 'Anthropic API error: HTTP 502: <html>bad gateway</html>' });
  });

  it('obeys x-should-retry: false on a retryable status, and retries a 429 after retry-after-ms', async () => {
    const server = await rawServer((_request, response, index) => {
      if (index === 0) {
        response.writeHead(529, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        response.end('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
      } else if (index === 1) {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '5' });
        response.end('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}');
      } else {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end('{"type":"error","error":{"type":"invalid_request_error","message":"third attempt reached"}}');
      }
    });
    const first = await runStream(anthropic(server.url, { maxRetries: 2 }), modelRequest());
    expect(first.response.errorMessage).toBe('Anthropic API error: HTTP 529 overloaded_error: Overloaded');
    const second = await runStream(anthropic(server.url, { maxRetries: 2 }), modelRequest());
    expect(second.response.errorMessage).toBe('Anthropic API error: HTTP 400 invalid_request_error: third attempt reached');
  });

  it('aborting while a retry waits ends the call at once with aborted', async () => {
    const server = await rawServer((_request, response) => {
      response.writeHead(503, { 'retry-after': '30' });
      response.end();
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const { events } = await runStream(anthropic(server.url, { maxRetries: 3 }), modelRequest(), controller.signal);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(events).toEqual([{ type: 'done', stopReason: 'aborted', errorMessage: 'Anthropic request aborted by the caller' }]);
  });

  it('turns a base URL that is not a URL into a done error without throwing', async () => {
    const { events, response } = await runStream(anthropic('not a url'), modelRequest());
    expectSingleDoneLast(events);
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toMatch(/^Anthropic request failed: .*Invalid URL/);
  });
});

describe('SDK-free OpenAI-compatible request', () => {
  it('sends the bearer key (a placeholder for keyless local servers) to <base>/chat/completions', async () => {
    scripted = await startScriptedModelServer();
    scripted.script(reply().text('one'), reply().text('two'));
    await runStream(createOpenAIStreamFn({ baseUrl: scripted.openaiBaseUrl, maxRetries: 0 }), modelRequest({ model: 'local-model' }));
    await runStream(createOpenAIStreamFn({ apiKey: 'sk-o', baseUrl: scripted.openaiBaseUrl, maxRetries: 0, defaultHeaders: { 'X-Title': 'cc' } }), modelRequest({ model: 'gpt-x' }));
    expect(scripted.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
      ['/v1/chat/completions', 'Bearer not-needed'],
      ['/v1/chat/completions', 'Bearer sk-o'],
    ]);
    expect(scripted.requests[1]!.headers['x-title']).toBe('cc');
  });

  it('ignores what follows [DONE], reads the stream to its end and keeps the connection for the next call', async () => {
    const chunk = (body: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', ...body })}\n\n`;
    const server = await rawServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        chunk({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] }) +
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 4, completion_tokens: 1 } }) +
          'data: [DONE]\n\n' +
          'data: {not json after done}\n\n',
      );
    });
    const streamFn = createOpenAIStreamFn({ baseUrl: `${server.url}/v1`, maxRetries: 0 });
    for (let call = 0; call < 2; call += 1) {
      const { response } = await runStream(streamFn, modelRequest({ model: 'm' }));
      expect(response).toMatchObject({ text: 'ok', stopReason: 'end_turn', usage: { inputTokens: 4, outputTokens: 1, cacheReadTokens: 0 } });
    }
    expect(server.connections()).toBe(1);
  });
});

describe('server-sent events parser', () => {
  const parse = (chunks: string[], max?: number) => {
    const messages: SseMessage[] = [];
    const parser = new SseParser((message) => messages.push(message), max);
    for (const chunk of chunks) parser.push(chunk);
    parser.end();
    return messages;
  };

  it('joins data lines, takes CRLF and split chunks, skips comments, and drops an unterminated last event', () => {
    expect(parse(['event: a\r\ndata: 1\r\nda', 'ta:2\r\n\r\n: ping\n\nid: 7\ndata: x\n\n', 'event: cut\ndata: {"partial'])).toEqual([
      { event: 'a', data: '1\n2' },
      { event: null, data: 'x' },
    ]);
  });

  it('refuses a line or an event larger than its limit', () => {
    expect(() => parse(['data: ', 'x'.repeat(50)], 32)).toThrow(SseFramingError);
    expect(() => parse(['data: 0123456789\n'.repeat(4)], 32)).toThrow(/larger than 32 characters/);
  });
});
