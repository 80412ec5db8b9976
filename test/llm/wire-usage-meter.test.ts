import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WireUsageMeter, type MeteredWire } from '../../src/llm/wire-usage-meter.js';

const ANTHROPIC_SSE = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"m1","model":"claude-sonnet-5-5","usage":{"input_tokens":1200,"cache_read_input_tokens":300,"cache_creation_input_tokens":40,"output_tokens":1}}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo \\"usage\\": {}"}}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":57}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
  '',
].join('\r\n');

const OPENAI_SSE = [
  'data: {"id":"c","model":"gpt-5.4","choices":[{"index":0,"delta":{"content":"hi"}}],"usage":null}',
  '',
  'data: {"id":"c","model":"gpt-5.4","choices":[],"usage":{"prompt_tokens":500,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":100}}}',
  '',
  'data: [DONE]',
  '',
  '',
].join('\n');

const RESPONSES_SSE = [
  'event: response.created',
  'data: {"type":"response.created","response":{"id":"r","model":"gpt-5.4","usage":null}}',
  '',
  'event: response.completed',
  'data: {"type":"response.completed","response":{"id":"r","model":"gpt-5.4","usage":{"input_tokens":80,"output_tokens":9,"input_tokens_details":{"cached_tokens":30}}}}',
  '',
  '',
].join('\n');

function meter(wire: MeteredWire, contentType: string, chunks: Uint8Array[]) {
  const instance = new WireUsageMeter(wire, contentType);
  for (const chunk of chunks) instance.push(chunk);
  return instance.end();
}

/** Splits bytes at the given cut points (multi-byte characters may be cut in half). */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...sorted, bytes.length]) {
    chunks.push(bytes.slice(start, point));
    start = point;
  }
  return chunks;
}

describe('WireUsageMeter (SEC-6 per-run metering)', () => {
  const cases: Array<[string, MeteredWire, string, object]> = [
    ['Anthropic Messages SSE', 'anthropic-messages', ANTHROPIC_SSE, { model: 'claude-sonnet-5-5', usage: { inputTokens: 1200, outputTokens: 57, cacheReadTokens: 300, cacheWriteTokens: 40 } }],
    ['OpenAI Chat Completions SSE', 'openai-chat-completions', OPENAI_SSE, { model: 'gpt-5.4', usage: { inputTokens: 400, outputTokens: 20, cacheReadTokens: 100, cacheWriteTokens: 0 } }],
    ['OpenAI Responses SSE', 'openai-responses', RESPONSES_SSE, { model: 'gpt-5.4', usage: { inputTokens: 50, outputTokens: 9, cacheReadTokens: 30, cacheWriteTokens: 0 } }],
  ];
  for (const [name, wire, stream, expected] of cases) {
    it(`reads the usage of ${name} however the stream is chunked`, () => {
      const bytes = new TextEncoder().encode(stream);
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 40 }), (points) => {
          expect(meter(wire, 'text/event-stream; charset=utf-8', cut(bytes, points))).toEqual(expected);
        }),
      );
    });
  }

  it('reads whole JSON bodies, and reports nothing for bodies without usage or that are not JSON', () => {
    const body = (value: unknown) => [new TextEncoder().encode(JSON.stringify(value))];
    expect(meter('anthropic-messages', 'application/json', body({ model: 'claude-haiku-4-5', usage: { input_tokens: 10, output_tokens: 2 } }))).toEqual({
      model: 'claude-haiku-4-5',
      usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(meter('openai-responses', 'application/json', body({ model: 'gpt-5.4', usage: { input_tokens: 7, output_tokens: 3 } }))?.usage).toEqual({ inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(meter('anthropic-messages', 'application/json', body({ type: 'error', error: { message: 'overloaded' } }))).toBeNull();
    expect(meter('openai-chat-completions', 'text/html', [new TextEncoder().encode('<html>bad gateway</html>')])).toBeNull();
    expect(meter('anthropic-messages', 'text/event-stream', [new TextEncoder().encode('data: {not json\n\n')])).toBeNull();
  });
});
