import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { WireUsageMeter } from '../../src/llm/wire-usage-meter.js';
import { MODEL_ANSWER_BYTES } from '../../src/services/model-broker.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';

/**
 * SEC-10: the model proxy reads an upstream answer that is not streamed whole (to scrub the key from
 * it and meter it), so it reads it within a cap. A hostile or broken upstream (a base URL in settings
 * can point anywhere) that answers with hundreds of MiB, or declares gigabytes, is cut off at the cap:
 * the runner gets a 502 naming it and the server keeps answering. The real server and proxy route, a
 * run token of an open run; the upstream is a local server writing from a generator, never a buffer.
 */
const MIB = 1024 * 1024;

let fixture: ClaudeCodeFixture | null = null;
let upstream: Server | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  upstream?.closeAllConnections();
  await new Promise((resolve) => (upstream ? upstream.close(resolve) : resolve(undefined)));
  upstream = null;
});

/** Writes `total` bytes of JSON-looking text, 1 MiB at a time with backpressure, stopping when the client hangs up; resolves with what it wrote. */
function pour(response: ServerResponse, total: number): Promise<number> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(MIB, 'a');
    let sent = 0;
    let closed = false;
    response.on('close', () => {
      closed = true;
      resolve(sent);
    });
    response.on('error', () => undefined);
    const pump = () => {
      while (!closed && sent < total) {
        sent += chunk.length;
        if (!response.write(sent === chunk.length ? Buffer.concat([Buffer.from('{"pad":"'), chunk.subarray(8)]) : chunk)) return void response.once('drain', pump);
      }
      if (!closed) response.end('"}');
    };
    pump();
  });
}

/** A model upstream whose every answer is `answer`; the bytes each answer wrote, as they finish. */
async function hostileUpstream(answer: (response: ServerResponse) => Promise<number>): Promise<{ url: string; written: Promise<number>[] }> {
  const written: Promise<number>[] = [];
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => written.push(answer(response)));
  });
  await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, written };
}

async function openRun(f: ClaudeCodeFixture, runId: string): Promise<string> {
  f.app.modelBroker.open(runId, f.workspaceId, 'anthropic');
  return f.app.runTokens.issue({ workspaceId: f.workspaceId, runId, agentId: f.agentId });
}

async function callMessages(f: ClaudeCodeFixture, token: string) {
  const response = await fetch(`${modelProxyBaseUrl(f.url, 'anthropic')}/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, text: await response.text() };
}

describe('model proxy: non-streamed answers are read within a cap (SEC-10)', () => {
  it(`an upstream answering with 256 MiB is cut off at ${MODEL_ANSWER_BYTES / MIB} MiB: 502 naming the cap, the upstream connection is dropped, the server keeps answering`, async () => {
    const hostile = await hostileUpstream((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      return pour(response, 256 * MIB);
    });
    fixture = await startClaudeCodeFixture({ mode: 'chat', env: { ANTHROPIC_BASE_URL: hostile.url } });
    const f = fixture;
    const token = await openRun(f, 'run_huge_answer');
    const answer = await callMessages(f, token);
    expect(answer.status).toBe(502);
    const error = JSON.parse(answer.text).error;
    expect(error.code).toBe('upstream_answer_too_large');
    expect(error.message).toMatch(/answered with more than 32 MiB, the most the model proxy reads of an answer that is not streamed/);
    // The proxy hung up on the upstream near the cap (plus what sat in socket buffers), not at the end of the answer.
    const [written] = await Promise.all(hostile.written);
    expect(written).toBeLessThan(128 * MIB);
    expect((await fetch(`${f.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('an upstream declaring a body of 8 GiB is refused before its body is read', async () => {
    const hostile = await hostileUpstream(async (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(8 * 1024 * MIB) });
      // A little, then silence: only a proxy that trusts the declared length answers at once.
      response.write('{"pad":"');
      return new Promise((resolve) => response.on('close', () => resolve(8)));
    });
    fixture = await startClaudeCodeFixture({ mode: 'chat', env: { ANTHROPIC_BASE_URL: hostile.url } });
    const f = fixture;
    const answer = await callMessages(f, await openRun(f, 'run_declared_huge'));
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text).error.code).toBe('upstream_answer_too_large');
    expect((await fetch(`${f.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('a streamed answer passes on as it arrives; the meter keeps no line past 16 MiB of it (a line that never ends), and meters the lines after it', () => {
    const meter = new WireUsageMeter('anthropic-messages', 'text/event-stream');
    const start = new TextEncoder().encode('event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":7,"output_tokens":0}},"pad":"');
    meter.push(start);
    const chunk = new Uint8Array(MIB).fill(0x61);
    for (let sent = 0; sent <= 16 * MIB; sent += MIB) meter.push(chunk);
    meter.push(new TextEncoder().encode('"}\n\nevent: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":3}}\n\n'));
    // The oversized line was dropped unread (its input tokens with it); the next event is metered.
    expect(meter.end()?.usage).toMatchObject({ inputTokens: 0, outputTokens: 3 });
  });
});
