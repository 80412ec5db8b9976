import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODEL_PROXY_BODY_LIMIT } from '../../src/server/routes/model-proxy-routes.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { rawRequest } from '../support/raw-request.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * SEC-8: the model proxy forwards only an explicit allowlist of (method, exact path) pairs, decided on
 * the path as the runner sent it: dot segments, doubled or encoded slashes, backslashes and NUL — in
 * any encoding — are refused before anything is forwarded. The real server, real HTTP, the scripted
 * model server as every provider's upstream (it records every request it receives).
 */

/** What the upstream may ever receive (method and path below its origin): the allowlist, written out here independently of the code. */
const UPSTREAM_ALLOWLIST: ReadonlyArray<{ method: string; path: RegExp }> = [
  // Anthropic (base URL = the scripted server's origin).
  { method: 'POST', path: /^\/v1\/messages(\?beta=true)?$/ },
  { method: 'POST', path: /^\/v1\/messages\/count_tokens(\?beta=true)?$/ },
  { method: 'GET', path: /^\/v1\/models$/ },
  { method: 'GET', path: /^\/v1\/models\/[A-Za-z0-9][A-Za-z0-9._:@+-]*$/ },
  // OpenAI-style (base URL = origin + /v1).
  { method: 'POST', path: /^\/v1\/chat\/completions$/ },
  { method: 'POST', path: /^\/v1\/responses$/ },
];
const allowlisted = (received: { method: string; path: string }) => UPSTREAM_ALLOWLIST.some((entry) => entry.method === received.method && entry.path.test(received.path));

const MESSAGE = { model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

let fixture: ClaudeCodeFixture;
let token: string;
const RUN_ID = 'run_model_proxy_paths';

beforeAll(async () => {
  fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
}, 60_000);
afterAll(async () => {
  await fixture?.dispose();
});
/** A run in progress on a transport whose runner speaks `provider` (what the run executor opens). */
function openRun(provider: 'anthropic' | 'openai'): string {
  fixture.app.modelBroker.close(RUN_ID);
  fixture.app.runTokens.revoke(RUN_ID);
  fixture.app.modelBroker.open(RUN_ID, fixture.workspaceId, provider);
  return fixture.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId: RUN_ID, agentId: fixture.agentId });
}
beforeEach(() => {
  fixture.model.reset();
});

const send = (method: string, path: string, bearer = token) =>
  rawRequest(fixture.url, method, path, { headers: { authorization: `Bearer ${bearer}`, 'anthropic-version': '2023-06-01' }, ...(method === 'POST' ? { body: MESSAGE } : {}) });

describe('model proxy paths are decided after decoding; ambiguous ones are refused (SEC-8)', () => {
  it('the observed traversal and its encodings get 400 naming the path, and nothing reaches the provider', async () => {
    token = openRun('openai');
    const traversals = [
      '/models/../files',
      '/models/../organization/api_keys',
      '/v1/models/../../organization/usage',
      '/models/%2e%2e/files',
      '/models/%2E%2E/files',
      '/models/.%2e/files',
      '/models/%252e%252e/files',
      '/models/%25252e%25252e/files',
      '/./chat/completions',
      '/chat/./completions',
      '/models%2f..%2ffiles',
      '/models/..%2Ffiles',
      '/models/%252f..',
      '//files',
      '/models//files',
      '/chat/completions/',
      '/models/..%5cfiles',
      '/models/%5C..%5Cfiles',
      '/models/x%00',
    ];
    for (const traversal of traversals) {
      for (const method of ['GET', 'POST']) {
        const response = await send(method, `/api/model-proxy/openai${traversal}`);
        expect(response.status, `${method} ${traversal}`).toBe(400);
        const error = JSON.parse(response.body).error;
        expect(error.field, traversal).toBe('path');
        expect(error.message, traversal).toMatch(/dot|slash|backslash|NUL|percent-encoding|not allowed/);
      }
    }
    // A raw backslash, and percent-encoding the router cannot decode: refused whoever answers first.
    for (const raw of ['/models\\..\\files', '/models/..\\files', '/models/%e0%a4%a', '/models/%zz']) expect((await send('GET', `/api/model-proxy/openai${raw}`)).status, raw).toBe(400);
    expect(fixture.model.received).toEqual([]);
  });

  it('allowlisted calls reach exactly their canonical path; unlisted query parameters are dropped', async () => {
    token = openRun('anthropic');
    fixture.model.script(reply().text('one'), reply().text('two'));
    expect((await send('POST', '/api/model-proxy/anthropic/v1/messages?beta=true')).status).toBe(200);
    expect((await send('POST', '/api/model-proxy/anthropic/v1/messages?beta=true&limit=1&x=%2e%2e')).status).toBe(200);
    expect((await send('POST', '/api/model-proxy/anthropic/v1/messages/count_tokens?beta=true')).status).toBe(200);
    await send('GET', '/api/model-proxy/anthropic/v1/models/claude-sonnet-5-5?after_id=x');
    await send('GET', '/api/model-proxy/anthropic/v1/models');
    expect(fixture.model.received).toEqual([
      { method: 'POST', path: '/v1/messages?beta=true' },
      { method: 'POST', path: '/v1/messages?beta=true' },
      { method: 'POST', path: '/v1/messages/count_tokens?beta=true' },
      { method: 'GET', path: '/v1/models/claude-sonnet-5-5' },
      { method: 'GET', path: '/v1/models' },
    ]);

    fixture.model.reset();
    token = openRun('openai');
    fixture.model.script(reply().text('three'));
    expect((await send('POST', '/api/model-proxy/openai/v1/chat/completions?stream=false')).status).toBe(200);
    await send('GET', '/api/model-proxy/openai/models/gpt-5.4');
    expect(fixture.model.received).toEqual([
      { method: 'POST', path: '/v1/chat/completions' },
      { method: 'GET', path: '/v1/models/gpt-5.4' },
    ]);
  });

  it('plain paths and methods off the allowlist get 404 naming the path, and nothing reaches the provider', async () => {
    const offTheList = {
      anthropic: ['GET /v1/files', 'POST /v1/files', 'POST /v1/messages/batches', 'GET /v1/organizations/api_keys', 'GET /v1/messages', 'POST /v1/models', 'POST /v1/complete'],
      openai: ['GET /files', 'POST /embeddings', 'POST /completions', 'GET /organization/costs', 'POST /fine_tuning/jobs', 'GET /chat/completions'],
    } as const;
    for (const [provider, calls] of Object.entries(offTheList) as Array<[keyof typeof offTheList, readonly string[]]>) {
      token = openRun(provider);
      for (const call of calls) {
        const [method, path] = call.split(' ') as [string, string];
        const response = await send(method, `/api/model-proxy/${provider}${path}`);
        expect(response.status, call).toBe(404);
        expect(JSON.parse(response.body).error.field).toBe('path');
      }
    }
    // A respelled provider is no provider (decided on the raw URL, not the router's decoded parameter):
    // a final authentication error naming it (TRUTH-4), never a second way to the OpenAI key.
    const respelled = await send('POST', '/api/model-proxy/%6fpenai/chat/completions');
    expect(respelled.status).toBe(401);
    expect(JSON.parse(respelled.body).error).toMatchObject({ code: 'invalid_api_key', message: expect.stringContaining('knows no provider "%6fpenai"') });
    expect(fixture.model.received).toEqual([]);
  });

  it(`a body over the cap (${MODEL_PROXY_BODY_LIMIT} bytes) is refused with 413 and a JSON error; nothing is forwarded`, async () => {
    token = openRun('anthropic');
    const declared = await oversizedPost({ declareLength: true });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.field).toBe('body');
    const chunked = await oversizedPost({ declareLength: false });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error.field).toBe('body');
    expect(fixture.model.received).toEqual([]);
  });

  it('the real claude binary still works through the proxy: every path it calls is on the allowlist', async () => {
    fixture.model.script(reply().tool('Bash', { command: 'echo through-the-proxy' }), reply().text('done'));
    const detail = await fixture.waitForRun(await fixture.send('run one command'), 60_000);
    expect(detail.run.state).toBe('completed');
    const modelCalls = fixture.model.received.filter((received) => received.path.startsWith('/v1/messages'));
    expect(modelCalls.length).toBeGreaterThanOrEqual(2);
    // Claude Code sends its model calls with `?beta=true`: the one query the allowlist forwards.
    expect(modelCalls.every((received) => received.method === 'POST' && received.path === '/v1/messages?beta=true')).toBe(true);
    for (const received of fixture.model.received) expect(allowlisted(received), `${received.method} ${received.path}`).toBe(true);
    expect(fixture.model.requests.some((request) => request.lastToolResult?.content.includes('through-the-proxy'))).toBe(true);
  });

  it('property: whatever encodings of dots, slashes and backslashes surround real paths, only allowlisted calls are forwarded', async () => {
    const tricks = ['.', '..', '%2e', '%2E', '%2e%2e', '.%2e', '%2e.', '%252e', '%252e%252e', '%25252e', '', '%2f', '%2F', '%252f', '%5c', '%5C', '%255c', '%00', '%2500', ';', '%3b', '~', 'v1'];
    const real = ['v1', 'messages', 'count_tokens', 'models', 'claude-sonnet-5-5', 'chat', 'completions', 'responses', 'files', 'organization', 'organizations', 'api_keys', 'batches', 'embeddings'];
    const segment = fc.oneof(
      fc.constantFrom(...real),
      fc.constantFrom(...tricks),
      fc.tuple(fc.constantFrom(...real), fc.constantFrom(...tricks)).map(([name, trick]) => `${name}${trick}`),
      fc.tuple(fc.constantFrom(...tricks), fc.constantFrom(...real)).map(([trick, name]) => `${trick}${name}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('anthropic', 'openai'), fc.constantFrom('GET', 'POST'), fc.array(segment, { minLength: 1, maxLength: 6 }), async (provider, method, segments) => {
        token = openRun(provider);
        fixture.model.reset();
        const path = `/api/model-proxy/${provider}/${segments.join('/')}`;
        const response = await send(method, path);
        for (const received of fixture.model.received) expect(allowlisted(received), `${method} ${path} reached ${received.method} ${received.path}`).toBe(true);
        // An ambiguous spelling is refused outright, never normalized into something else.
        const ambiguous = segments.some((part) => part === '' || /%2f|%5c|%00|%25/i.test(part) || decodedOnce(part).startsWith('.'));
        if (ambiguous) {
          expect(response.status, path).toBe(400);
          expect(fixture.model.received).toEqual([]);
        }
      }),
      { numRuns: 300, seed: 8_20261206 },
    );
  });
});

function decodedOnce(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** A POST one byte over the cap, with its length declared up front or streamed chunked. */
function oversizedPost(options: { declareLength: boolean }): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(fixture.url);
  const total = MODEL_PROXY_BODY_LIMIT + 1;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method: 'POST',
        path: '/api/model-proxy/anthropic/v1/messages',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(options.declareLength ? { 'content-length': String(total) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    // The server may answer and close before the whole body is written; that is the point.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    const pump = () => {
      while (written < total) {
        const piece = written + chunk.length <= total ? chunk : chunk.subarray(0, total - written);
        written += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    req.on('response', () => (written = total));
    pump();
  });
}
