import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { startForgeReviewWorkspace, type ForgeReviewWorkspace } from '../support/forge-review-workspace.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { hugeBody, streamBody, type StreamedBody } from '../support/stream-body.js';
import { createSeededWorkspace, startTestServer } from '../support/test-server.js';

/**
 * SEC-10: answers from remote services the server does not control — a forge's API, a search API, a
 * model endpoint's error body — are read within a cap. A hostile or broken remote streams a huge (or
 * endless) answer from a generator; the server stops reading at the cap, drops the connection, says
 * which service and which cap, and keeps answering. The real server over real HTTP, local fakes.
 */
const MIB = 1024 * 1024;

/** A local remote whose every answer is `status` with a streamed `body`; what each answer came to, once over. */
async function streamingRemote(status: number, body: () => AsyncIterable<Buffer>): Promise<{ url: string; server: Server; answers: Promise<StreamedBody>[] }> {
  const answers: Promise<StreamedBody>[] = [];
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(status, { 'content-type': 'application/json' });
    answers.push(streamBody(response, body()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, answers };
}

async function closeRemote(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/**
 * Just enough of an MCP server over streamable HTTP (JSON answers) to be added, listed and called: its
 * one tool, `dump`, answers with `dumpBytes` of JSON streamed from a generator.
 */
async function hostileMcpServer(dumpBytes: number): Promise<{ url: string; server: Server; dumps: Promise<StreamedBody>[] }> {
  const dumps: Promise<StreamedBody>[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) return void response.writeHead(202).end();
      response.writeHead(200, { 'content-type': 'application/json' });
      const answer = (result: unknown) => response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.method === 'initialize') return answer({ protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } });
      if (message.method === 'tools/list') return answer({ tools: [{ name: 'dump', description: 'Dumps data.', inputSchema: { type: 'object', properties: {} } }] });
      dumps.push(streamBody(response, hugeBody(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`, dumpBytes)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server, dumps };
}

describe('a forge API answer is read within a cap (SEC-10)', () => {
  let forge: ForgeReviewWorkspace;
  beforeAll(async () => {
    forge = await startForgeReviewWorkspace('Huge forge answers', 'Fix');
  }, 120_000);
  afterAll(async () => {
    await forge?.dispose();
  });

  it('a pull request answered with 96 MiB: the review step fails naming GitHub and the 8 MiB cap, the forge is cut off, the server keeps working', async () => {
    const { api, github } = forge;
    github.streamApiAnswer = (path) => (path.endsWith('/pulls/7') ? hugeBody('{"number":7,"title":"', 96 * MIB) : undefined);
    const answer = await api('POST', '/reviews', { prUrl: forge.prUrl });
    github.streamApiAnswer = undefined;
    expect(answer.status).toBe(409);
    expect(answer.body.error.field).toBe('prUrl');
    expect(answer.body.error.message).toMatch(/GitHub answered \/repos\/acme\/math\/pulls\/7 with more than 8 MiB, the most the server reads of a GitHub API answer; it was not read further/);
    // The server hung up near the cap (plus what sat in socket buffers), long before the end of the answer.
    await expect.poll(() => github.streamedAnswers.length).toBe(1);
    expect(github.streamedAnswers[0]).toMatchObject({ path: '/api/repos/acme/math/pulls/7', hungUp: true });
    expect(github.streamedAnswers[0]!.written).toBeLessThan(48 * MIB);
    expect((await api('GET', '/reviews')).body.reviews).toEqual([]);
    // Healthy: it answers, and the same pull request, answered normally, opens a review.
    expect((await fetch(`${forge.server.url}/healthz`)).status).toBe(200);
    const opened = await api('POST', '/reviews', { prUrl: forge.prUrl });
    expect(opened.status).toBe(201);
  }, 120_000);
});

describe('answers to the built-in harness and its tools are read within a cap (SEC-10)', () => {
  let fixture: HarnessFixture | undefined;
  let remote: Server | undefined;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
    await closeRemote(remote);
    remote = undefined;
  });

  it('a search API answering with 64 MiB: the web_search result names the 2 MiB cap, the API is cut off', async () => {
    const brave = await streamingRemote(200, () => hugeBody('{"web":{"results":[{"title":"', 64 * MIB));
    remote = brave.server;
    fixture = await startHarnessFixture();
    const settings = await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/settings`, { webSearchKeys: { brave: 'BSA-test-key-123' }, webSearchBaseUrl: brave.url });
    expect(settings.status).toBe(200);
    fixture.model.script(reply().tool('web_search', { query: 'parser release', count: 5 }), reply().text('Nothing usable.'));
    const detail = await fixture.waitForRun(await fixture.send('search please'), 60_000);
    expect(detail.run.state).toBe('completed');
    expect(detail.toolCalls[0]).toMatchObject({ name: 'web_search', executed: true, isError: true });
    const result = fixture.model.requests.at(-1)!.lastToolResult!.content;
    expect(result).toContain('the search provider answered with more than 2 MiB, the most the server reads of a search answer; it was not read further');
    const [streamed] = await Promise.all(brave.answers);
    expect(streamed).toMatchObject({ hungUp: true });
    expect(streamed!.written).toBeLessThan(32 * MIB);
    expect((await fetch(`${fixture.server.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('a model endpoint whose error body never ends: the call fails with the start of the body, the endpoint is cut off', async () => {
    const model = await streamingRemote(400, () => hugeBody('{"type":"error","error":{"type":"invalid_request_error","message":"no such model ', Number.POSITIVE_INFINITY));
    remote = model.server;
    fixture = await startHarnessFixture({
      server: { env: { ANTHROPIC_API_KEY: 'hostile-key', ANTHROPIC_BASE_URL: model.url, OPENAI_API_KEY: 'hostile-key', OPENAI_BASE_URL: `${model.url}/v1` } },
    });
    const detail = await fixture.waitForRun(await fixture.send('hello'), 60_000);
    expect(detail.run.state).toBe('failed');
    expect(JSON.stringify(detail)).toContain('no such model');
    const [streamed] = await Promise.all(model.answers);
    expect(streamed).toMatchObject({ hungUp: true });
    expect(streamed!.written).toBeLessThan(32 * MIB);
    expect((await fetch(`${fixture.server.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('an MCP server\'s tool answering with 64 MiB over HTTP: the tool result names the server and its 1 MiB cap, the server is cut off', async () => {
    const hostile = await hostileMcpServer(64 * MIB);
    remote = hostile.server;
    fixture = await startHarnessFixture({ operatorConnected: false });
    const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);
    const created = await api('POST', '/mcp-servers', { name: 'hostile', transport: 'http', url: hostile.url, agents: [fixture.agents.engineer!.id] });
    expect(created.status).toBe(201);
    expect((await api('POST', `/mcp-servers/${created.body.id}/tools/list`)).body.lastError).toBeNull();
    await api('PUT', `/mcp-servers/${created.body.id}/tools/dump/effects`, { effects: [] });
    fixture.model.script(reply().tool('mcp__hostile__dump', {}), reply().text('too much'));
    const detail = await fixture.waitForRun(await fixture.send('@engineer dump'), 60_000);
    expect(detail.toolCalls[0]).toMatchObject({ name: 'mcp__hostile__dump', executed: true, isError: true });
    expect(detail.toolCalls[0].output).toContain("The MCP server 'hostile' answered with more than 1 MiB, the most the server reads of one of its answers; it was not read further");
    const [streamed] = await Promise.all(hostile.dumps);
    expect(streamed).toMatchObject({ hungUp: true });
    expect(streamed!.written).toBeLessThan(32 * MIB);
    expect((await fetch(`${fixture.server.url}/healthz`)).status).toBe(200);
  }, 120_000);
});

describe('the model proxy waits a bounded time for an upstream to answer (SEC-10)', () => {
  let remote: Server | undefined;
  afterEach(async () => {
    await closeRemote(remote);
    remote = undefined;
  });

  it('an upstream that takes the request and never answers: 504 naming the deadline, the server keeps answering', async () => {
    remote = createServer((request) => request.resume());
    await new Promise<void>((resolve) => remote!.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    const server = await startTestServer({ env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'silent-key', ANTHROPIC_BASE_URL: upstreamUrl }, modelProxyAnswerStartMs: 500 });
    try {
      const workspace = await createSeededWorkspace(server, 'Silent upstream');
      const agentId = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents[0].id as string;
      server.running.app.modelBroker.open('run_silent_upstream', workspace.id, 'anthropic');
      const token = server.running.app.runTokens.issue({ workspaceId: workspace.id, runId: 'run_silent_upstream', agentId });
      const answer = await fetch(`${modelProxyBaseUrl(server.url, 'anthropic')}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(answer.status).toBe(504);
      const error = ((await answer.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('upstream_timeout');
      expect(error.message).toContain(`at ${upstreamUrl} did not start its answer within 0.5 s; the request was dropped`);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.dispose();
    }
  }, 60_000);
});
