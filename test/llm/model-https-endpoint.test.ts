import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicStreamFn } from '../../src/llm/anthropic-provider.js';
import { modelRequest, runStream } from '../support/stream-helpers.js';

/**
 * An https base URL (HAR-2) goes over TLS with the certificate checked, on the SDK-free client
 *: a certificate no CA vouches for is refused, and one the process trusts
 * (NODE_EXTRA_CA_CERTS, read at start-up, hence the child process) carries the stream.
 */

let dir: string;
let server: Server;
let url: string;

const stream = [
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":2,"output_tokens":0}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"over tls"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cc-model-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(stream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('https model endpoints (HAR-2)', () => {
  it('refuses a certificate no trusted CA signed, as a connection error naming the reason', async () => {
    const { response } = await runStream(createAnthropicStreamFn({ apiKey: 'k', baseUrl: url, maxRetries: 0 }), modelRequest());
    expect(response.done).toMatchObject({ stopReason: 'error', retryable: true });
    expect(response.errorMessage).toMatch(/^Anthropic connection error: DEPTH_ZERO_SELF_SIGNED_CERT: /);
  });

  it('streams over TLS when the process trusts the certificate', async () => {
    const provider = fileURLToPath(new URL('../../src/llm/anthropic-provider.ts', import.meta.url));
    const script = `
      const { createAnthropicStreamFn } = await import(${JSON.stringify(provider)});
      const events = [];
      for await (const event of createAnthropicStreamFn({ apiKey: 'k', baseUrl: process.env.MODEL_URL, maxRetries: 0 })(
        { model: 'claude-sonnet-5-5', system: '', messages: [{ role: 'user', content: 'hi' }], tools: [], maxTokens: 16 },
        new AbortController().signal,
      )) events.push(event);
      process.stdout.write(JSON.stringify(events));`;
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'), MODEL_URL: url } }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(output)).toEqual([
      { type: 'text_delta', text: 'over tls' },
      { type: 'usage', inputTokens: 2, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  }, 30_000);
});
