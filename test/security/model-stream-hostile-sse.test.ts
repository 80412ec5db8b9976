import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicStreamFn } from '../../src/llm/anthropic-provider.js';
import { findModel } from '../../src/llm/model-catalog.js';
import { MAX_SSE_EVENT_CHARS } from '../../src/llm/sse-parser.js';
import { expectSingleDoneLast, modelRequest, runStream } from '../support/stream-helpers.js';

/**
 * A model endpoint is outside our control (a base URL in settings can point anywhere, HAR-2): what it
 * streams back must end the call with a clear, bounded error — never a crash, an unbounded buffer, or
 * its own text repeated whole into the run log (the SDK-free client parses the stream itself).
 */

let server: Server | undefined;

afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

async function endpoint(answer: (response: ServerResponse) => void): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const provider = (baseUrl: string) =>
  createAnthropicStreamFn({ apiKey: 'k', baseUrl, maxRetries: 0, idleTimeoutMs: 5_000, traitsFor: (id) => findModel('anthropic', id) });

const messageStart = 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":0}}}\n\n';

describe('hostile model streams (HAR-2)', () => {
  it('a line that never ends is refused past the event size limit, and the socket is dropped', async () => {
    const url = await endpoint((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(messageStart);
      const chunk = 'A'.repeat(1024 * 1024);
      // One more mebibyte than the limit, never a newline; the writes stop once the client hangs up.
      let sent = 0;
      const pump = () => {
        while (sent <= MAX_SSE_EVENT_CHARS && response.write(sent === 0 ? `data: ${chunk}` : chunk)) sent += chunk.length;
        if (sent <= MAX_SSE_EVENT_CHARS) response.once('drain', pump);
      };
      response.on('error', () => undefined);
      pump();
    });
    const { events, response } = await runStream(provider(url), modelRequest());
    expectSingleDoneLast(events);
    expect(response.stopReason).toBe('error');
    expect(response.errorMessage).toMatch(/^Anthropic request failed: a server-sent event line is longer than 16777216 characters$/);
    expect(response.usage?.inputTokens).toBe(5);
  });

  it('malformed JSON in an event ends the call with a short error that does not repeat the payload', async () => {
    const payload = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'\u001b[2J'.repeat(20_000)}`;
    const url = await endpoint((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`${messageStart}event: ${'E'.repeat(10_000)}\ndata: ${payload}\n\n`);
    });
    const { events, response } = await runStream(provider(url), modelRequest());
    expectSingleDoneLast(events);
    expect(response.done).toMatchObject({ stopReason: 'error', retryable: true });
    expect(response.errorMessage).toMatch(/^Anthropic sent a malformed stream: event "E{64}" is not valid JSON \(/);
    expect(response.errorMessage!.length).toBeLessThan(600);
  });

  it('a huge error body and a huge in-stream error message are cut in the error message', async () => {
    const huge = 'x'.repeat(1_000_000);
    let call = 0;
    const url = await endpoint((response) => {
      if (call++ === 0) {
        response.writeHead(400, { 'content-type': 'text/plain' });
        response.end(huge);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`${messageStart}event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: huge } })}\n\n`);
    });
    const rejected = await runStream(provider(url), modelRequest());
    expect(rejected.response.done).toMatchObject({ stopReason: 'error', httpStatus: 400 });
    expect(rejected.response.errorMessage!.length).toBeLessThan(2_200);
    expect(rejected.response.errorMessage).toMatch(/more characters\)$/);
    const inStream = await runStream(provider(url), modelRequest());
    expect(inStream.response.errorMessage).toMatch(/^Anthropic stream error \(api_error\): x+… \(998000 more characters\)$/);
  });

  it('an error response whose body never ends is cut by the idle timeout, not waited on forever', async () => {
    const url = await endpoint((response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.write('{"type":"error","error":');
    });
    const streamFn = createAnthropicStreamFn({ apiKey: 'k', baseUrl: url, maxRetries: 0, idleTimeoutMs: 200 });
    const started = Date.now();
    const { events, response } = await runStream(streamFn, modelRequest());
    expectSingleDoneLast(events);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.done).toMatchObject({ stopReason: 'error', retryable: true });
    expect(response.errorMessage).toContain('no data for 200 ms (idle timeout)');
  });

  it('invalid UTF-8 and control bytes in a text delta arrive as text, without breaking the stream', async () => {
    const url = await endpoint((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(messageStart);
      response.write('event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n');
      response.write(Buffer.concat([Buffer.from('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('\\u0000b"}}\n\n')]));
      response.end('event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n');
    });
    const { response } = await runStream(provider(url), modelRequest());
    expect(response.stopReason).toBe('end_turn');
    expect(response.text).toBe('a\ufffd\ufffd\u0000b');
  });
});
