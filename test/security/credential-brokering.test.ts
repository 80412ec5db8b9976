import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { computeCost, PROVIDERS } from '../../src/llm/model-catalog.js';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { runnerEnvironment } from '../../src/sandbox/runner-environment.js';
import { CREDENTIAL_VARIABLES, sanitizedEnv } from '../../src/sandbox/sanitized-env.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply, type ScriptedRequest } from '../support/scripted-model-server.js';

/**
 * SEC-6: real model keys and forge tokens never enter a runner's environment. Claude Code gets the
 * server's model proxy as its base URL and its run token as its key; the proxy adds the real key,
 * meters usage per run, and refuses every token but a live brokered run's. Claude Code without an OS
 * sandbox starts only on the operator's opt-in. Everything real (server, `claude`, bubblewrap) but
 * the model.
 */

const probe = await probeBubblewrap();
const REAL_KEY = `sk-ant-REAL-${process.pid}-d1st1nct1ve-k3y`;
const FORGE_TOKEN = `ghp_REALFORGE${process.pid}xyz`;
/** Secrets in the server's environment the runner must never see. */
const SERVER_SECRETS = { ANTHROPIC_API_KEY: REAL_KEY, GH_TOKEN: FORGE_TOKEN, GITHUB_TOKEN: FORGE_TOKEN, OPENAI_API_KEY: `${REAL_KEY}-openai`, ANTHROPIC_AUTH_TOKEN: `${REAL_KEY}-auth` };

let fixture: ClaudeCodeFixture | null = null;
let harness: HarnessFixture | null = null;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  await harness?.dispose();
  harness = null;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const modelRequests = (f: ClaudeCodeFixture): ScriptedRequest[] => f.model.requests.filter((request) => request.path.startsWith('/v1/messages'));
/** The tool results the model was shown, in order (one per request after a tool call). */
const toolResults = (f: ClaudeCodeFixture): string[] => modelRequests(f).flatMap((request) => (request.lastToolResult ? [request.lastToolResult.content] : []));

async function proxy(f: ClaudeCodeFixture, headers: Record<string, string>, path = '/api/model-proxy/anthropic/v1/messages', body: unknown = { model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }) {
  const response = await fetch(`${f.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** A Claude Code run that lists its environment every way a Bash command can, then ends. */
async function runEnvProbe(f: ClaudeCodeFixture): Promise<any> {
  f.model.script(
    reply().tool('Bash', { command: 'env' }),
    reply().tool('Bash', { command: 'cat /proc/self/environ; echo' }),
    reply().tool('Bash', { command: 'echo "key=$ANTHROPIC_API_KEY base=$ANTHROPIC_BASE_URL gh=$GH_TOKEN"' }),
    // The CLI's own process (the Bash tool's ancestors) holds no real key either.
    reply().tool('Bash', { command: "for p in $(ps -o ppid= -p $$) $PPID; do tr '\\0' '\\n' < /proc/$p/environ; done 2>&1; true" }),
    reply().text('listed'),
  );
  return f.waitForRun(await f.send('show me your environment'));
}

function expectNoRealSecret(text: string): void {
  for (const secret of Object.values(SERVER_SECRETS)) expect(text).not.toContain(secret);
}

describe('Claude Code reaches its model only through the broker (SEC-6)', () => {
  const variants = [
    { name: 'in bubblewrap', transport: { sandbox: 'auto' as const }, skip: !probe.available },
    { name: 'unsandboxed by opt-in', transport: { sandbox: 'none' as const, allowUnsandboxed: true }, skip: false },
  ];
  for (const variant of variants) {
    it.skipIf(variant.skip)(`the real key reaches the model only from the broker; Bash never sees it (${variant.name})`, async () => {
      fixture = await startClaudeCodeFixture({ mode: 'chat', transport: variant.transport, env: SERVER_SECRETS });
      const f = fixture;
      const detail = await runEnvProbe(f);
      expect(detail.run.state).toBe('completed');
      const requests = modelRequests(f);
      expect(requests.length).toBe(5);
      // Every model request arrived with the real key, added by the broker (the runner only has its run token).
      for (const request of requests) {
        expect(request.headers['x-api-key']).toBe(REAL_KEY);
        expect(request.headers.authorization).toBeUndefined();
      }
      const results = toolResults(f);
      expect(results).toHaveLength(4);
      for (const result of results) expectNoRealSecret(result);
      expect(results[0]).toContain(`ANTHROPIC_BASE_URL=${f.url}/api/model-proxy/anthropic`);
      expect(results[1]).toContain('ANTHROPIC_API_KEY=cca_');
      expect(results[2]).toMatch(new RegExp(`^key=cca_\\S+ base=${f.url}/api/model-proxy/anthropic gh=$`, 'm'));
      expect(results[3]).toContain('ANTHROPIC_API_KEY=cca_');
      // Nothing the API serves about the run carries the key either.
      expectNoRealSecret(JSON.stringify(detail));
    });
  }

  it('the run token stops working when the run ends; operator, missing, unknown and unbrokered tokens are refused', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: probe.available ? 'auto' : 'none', allowUnsandboxed: true }, env: SERVER_SECRETS });
    const f = fixture;
    f.model.script(reply().tool('Bash', { command: 'echo "token=$ANTHROPIC_API_KEY"' }), reply().text('done'));
    await f.waitForRun(await f.send('tell me your token'));
    const runToken = /token=(cca_\S+)/.exec(toolResults(f)[0] ?? '')?.[1];
    expect(runToken).toMatch(/^cca_/);
    const before = f.model.requests.length;

    // The leaked run token is dead once its run has ended, however it is sent.
    expect((await proxy(f, { 'x-api-key': runToken! })).status).toBe(401);
    expect((await proxy(f, { authorization: `Bearer ${runToken}` })).status).toBe(401);
    // No token, a made-up token.
    expect((await proxy(f, {})).status).toBe(401);
    expect((await proxy(f, { 'x-api-key': 'cca_made_up' })).status).toBe(401);
    // The operator token is for the API, not for spending model credit as an agent: the route
    // accepts run tokens only (SEC-1 access `agent`), so the operator's token is not a principal here.
    const operator = await proxy(f, { authorization: `Bearer ${f.token}` });
    expect(operator.status).toBe(401);
    expect(JSON.parse(operator.text).error.field).toBe('authorization');
    // A live run token of a run that is not on a transport (say a built-in run's push token).
    const other = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId: 'run_not_brokered', agentId: f.agentId });
    cleanups.push(() => f.app.runTokens.revoke('run_not_brokered'));
    expect((await proxy(f, { 'x-api-key': other })).status).toBe(403);
    // None of these reached the model server.
    expect(f.model.requests.length).toBe(before);
  });

  it('usage and cost recorded for the run are what the model reported, priced by the catalog', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: probe.available ? 'auto' : 'none', allowUnsandboxed: true }, env: SERVER_SECRETS });
    const f = fixture;
    // A model Claude Code has no price for but the catalog has: the cost can only be the broker's.
    const patched = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`, { modelId: 'claude-sonnet-5-5' });
    expect(patched.status).toBe(200);
    f.model.script(
      reply().tool('Bash', { command: 'true' }).usage({ input: 1000, output: 40, cacheRead: 300, cacheWrite: 20 }),
      reply().text('done').usage({ input: 2000, output: 60, cacheRead: 500, cacheWrite: 0 }),
    );
    const detail = await f.waitForRun(await f.send('use some tokens'));
    expect(detail.run.state).toBe('completed');
    expect(modelRequests(f).map((request) => request.model)).toEqual(['claude-sonnet-5-5', 'claude-sonnet-5-5']);
    const usage = { inputTokens: 3000, outputTokens: 100, cacheReadTokens: 800, cacheWriteTokens: 20 };
    expect(detail.run.usage).toEqual(usage);
    const pricing = PROVIDERS.anthropic.models.find((model) => model.id === 'claude-sonnet-5-5')!.pricing;
    expect(detail.run.costUsd).toBeCloseTo(computeCost(usage, pricing), 12);
  });
});

describe('unsandboxed Claude Code needs the operator opt-in (SEC-6)', () => {
  it('without a sandbox and without the opt-in the run fails with the reason and never starts the CLI', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none' } });
    const f = fixture;
    f.model.script(reply().text('should not run'));
    const detail = await f.waitForRun(await f.send('hello'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/needs an OS sandbox/);
    expect(detail.run.error).toMatch(/--allow-unsandboxed-runners/);
    expect(detail.run.sandbox).toMatch(/^none: disabled by configuration; refused/);
    expect(f.model.requests).toHaveLength(0);
    const messages = (await f.api('GET', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`)).body.messages;
    expect(messages.some((message: any) => message.role === 'system' && /allow-unsandboxed-runners/.test(message.content))).toBe(true);
  });

  it('the server option reaches the Claude Code transport, off by default', async () => {
    const { ControlCenter } = await import('../../src/services/control-center.js');
    const { makeDataRoot } = await import('../support/test-server.js');
    const { rm } = await import('node:fs/promises');
    for (const [option, expected] of [[undefined, false], [false, false], [true, true]] as const) {
      const dataRoot = await makeDataRoot();
      const app = await ControlCenter.open({ dataRoot, env: {}, ...(option === undefined ? {} : { allowUnsandboxedRunners: option }) });
      try {
        // Reads the registered transport's options: the wiring from serve's flag to the transport.
        const transport = (app.executor as unknown as { transports: Map<string, { options: { allowUnsandboxed?: boolean } }> }).transports.get('claude-code');
        expect(transport?.options.allowUnsandboxed ?? false).toBe(expected);
      } finally {
        await app.close();
        await rm(dataRoot, { recursive: true, force: true });
      }
    }
  });

  it('with the opt-in it starts, and the run log says it is unsandboxed by the operator', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    f.model.script(reply().text('ran'));
    const detail = await f.waitForRun(await f.send('hello'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/unsandboxed by operator opt-in/);
    expect(f.model.requests).toHaveLength(1);
  });
});

/** A stand-in upstream that answers like a provider and echoes what it was sent (to prove what the broker adds and strips). */
async function startEchoUpstream(): Promise<{ url: string; seen: Array<{ path: string; headers: Record<string, unknown>; body: string }> }> {
  const seen: Array<{ path: string; headers: Record<string, unknown>; body: string }> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      seen.push({ path: request.url ?? '', headers: request.headers, body });
      if (request.url?.startsWith('/v1/chat/completions')) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'set-cookie': 'upstream=1', 'x-request-id': 'req_1' });
        response.write('data: {"id":"c1","model":"gpt-5.4","choices":[{"index":0,"delta":{"content":"he"}}]}\n\n');
        response.write('data: {"id":"c1","model":"gpt-5.4","choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":"stop"}]}\n\n');
        response.end('data: {"id":"c1","model":"gpt-5.4","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":20}}}\n\ndata: [DONE]\n\n');
        return;
      }
      if (request.url?.startsWith('/v1/responses')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: 'r1', model: 'gpt-5.4', output: [], usage: { input_tokens: 50, output_tokens: 5, input_tokens_details: { cached_tokens: 10 } } }));
        return;
      }
      // An error that quotes the key it was given, as some providers do.
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${String(request.headers.authorization ?? request.headers['x-api-key'])}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A run token the broker accepts, as the run executor makes one for a transport run (closed after the test). */
function openBrokeredRun(f: ClaudeCodeFixture, runId: string, provider: 'anthropic' | 'openai'): string {
  const token = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId, agentId: f.agentId });
  f.app.modelBroker.open(runId, f.workspaceId, provider);
  cleanups.push(() => {
    f.app.modelBroker.close(runId);
    f.app.runTokens.revoke(runId);
  });
  return token;
}

describe('the model proxy forwards, streams and meters OpenAI-style calls too (SEC-6)', () => {
  it('chat completions stream through with the real key added, usage metered, the run token and cookies not forwarded', async () => {
    const upstream = await startEchoUpstream();
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true }, env: { OPENAI_API_KEY: REAL_KEY, OPENAI_BASE_URL: `${upstream.url}/v1` } });
    const f = fixture;
    const runId = 'run_brokered_direct';
    const token = openBrokeredRun(f, runId, 'openai');
    const body = { model: 'gpt-5.4', stream: true, messages: [{ role: 'user', content: 'hi' }] };
    const response = await proxy(f, { authorization: `Bearer ${token}`, cookie: 'session=operator' }, '/api/model-proxy/openai/chat/completions', body);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.text).toContain('"content":"llo"');
    expect(response.text).toContain('[DONE]');
    expect(upstream.seen[0]!.path).toBe('/v1/chat/completions');
    expect(upstream.seen[0]!.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
    expect(upstream.seen[0]!.headers.cookie).toBeUndefined();
    expect(JSON.stringify(upstream.seen[0]!.headers)).not.toContain(token);
    expect(JSON.parse(upstream.seen[0]!.body)).toEqual(body);

    // The Responses API, with a /v1 prefix the client added itself.
    const responses = await proxy(f, { authorization: `Bearer ${token}` }, '/api/model-proxy/openai/v1/responses', { model: 'gpt-5.4', input: 'hi' });
    expect(responses.status).toBe(200);
    expect(upstream.seen[1]!.path).toBe('/v1/responses');
    expect(f.app.modelBroker.usage(runId)).toMatchObject({ responses: 2, usage: { inputTokens: 100 + 40, outputTokens: 12, cacheReadTokens: 30, cacheWriteTokens: 0 } });
  });

  it('only model endpoints are reachable, and an upstream error never echoes the real key', async () => {
    const upstream = await startEchoUpstream();
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true }, env: { ANTHROPIC_API_KEY: REAL_KEY, ANTHROPIC_BASE_URL: upstream.url } });
    const f = fixture;
    const runId = 'run_brokered_paths';
    const token = openBrokeredRun(f, runId, 'anthropic');
    // The upstream answers the messages call with an error quoting the key: the broker scrubs it.
    const scrubbed = await proxy(f, { 'x-api-key': token });
    expect(scrubbed.status).toBe(401);
    expect(scrubbed.text).toContain('Incorrect API key provided: [redacted]');
    expect(scrubbed.text).not.toContain(REAL_KEY);
    const seen = upstream.seen.length;
    for (const path of [
      '/api/model-proxy/anthropic/v1/files',
      '/api/model-proxy/anthropic/v1/messages/batches',
      '/api/model-proxy/anthropic/v1/organizations/api_keys',
      '/api/model-proxy/anthropic/v1/messages/../organizations',
      '/api/model-proxy/anthropic/%2e%2e/v1/messages',
      '/api/model-proxy/anthropic//evil.example/v1/messages',
      '/api/model-proxy/openai/files',
      '/api/model-proxy/not-a-provider/v1/messages',
    ]) {
      const response = await proxy(f, { 'x-api-key': token }, path);
      // 400: not a plain path; 403: another provider than the run's (SEC-8); 404: not on the allowlist;
      // 401: a provider the proxy does not know (a final authentication error, TRUTH-4).
      expect([400, 401, 403, 404], path).toContain(response.status);
    }
    expect(upstream.seen.length).toBe(seen);
    // The start-up probe of the base URL is answered by the proxy itself.
    const head = await fetch(`${f.url}/api/model-proxy/anthropic`, { method: 'HEAD', headers: { 'x-api-key': token } });
    expect(head.status).toBe(200);
    expect(upstream.seen.length).toBe(seen);
  });
});

describe('runner and shell environments never carry a real credential (SEC-6)', () => {
  it('the built-in harness bash never sees a real key from the server environment', async () => {
    const saved = Object.fromEntries(Object.keys(SERVER_SECRETS).map((name) => [name, process.env[name]]));
    Object.assign(process.env, SERVER_SECRETS);
    cleanups.push(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    harness = await startHarnessFixture({ space: { autonomy: 'actFreely' } });
    const h = harness;
    h.model.script(
      reply().tool('bash', { command: 'env' }),
      reply().tool('bash', { command: "tr '\\0' '\\n' < /proc/self/environ; echo key=$ANTHROPIC_API_KEY gh=$GH_TOKEN" }),
      reply().text('listed'),
    );
    const detail = await h.waitForRun(await h.send('list your environment'), 30_000);
    expect(detail.run.state).toBe('completed');
    const results = h.model.requests.flatMap((request) => (request.lastToolResult ? [request.lastToolResult.content] : []));
    expect(results).toHaveLength(2);
    expect(results[0]).toContain('PATH=');
    expect(results[1]).toContain('key= gh=');
    for (const result of results) expectNoRealSecret(result);
  });

  it('property: no credential variable of the source reaches a runner or shell environment', () => {
    const credentialNames = [...CREDENTIAL_VARIABLES, 'MY_SERVICE_API_KEY', 'DB_PASSWORD', 'SOME_SECRET_VALUE', 'VAULT_TOKEN'];
    const harmless = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TERM', 'HOME', 'ANTHROPIC_MODEL'];
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...credentialNames, ...harmless), fc.string({ minLength: 1, maxLength: 12 }).map((value) => `v-${value}`)),
        fc.dictionary(fc.constantFrom(...credentialNames, 'CLAUDE_CONFIG_DIR', 'GIT_CONFIG_COUNT'), fc.constant('extra-value')),
        (source, extra) => {
          const runner = runnerEnvironment({ source, home: '/h', brokered: { ANTHROPIC_API_KEY: 'cca_run', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1/api/model-proxy/anthropic' }, extra });
          const shell = sanitizedEnv(source, {});
          for (const name of credentialNames) {
            expect(shell[name]).toBeUndefined();
            if (name === 'ANTHROPIC_API_KEY') expect(runner[name]).toBe('cca_run');
            else if (name === 'ANTHROPIC_BASE_URL') expect(runner[name]).toBe('http://127.0.0.1:1/api/model-proxy/anthropic');
            else expect(runner[name]).toBeUndefined();
          }
        },
      ),
    );
  });

  it('every provider key and base URL variable of the catalog is a credential variable', () => {
    for (const provider of Object.values(PROVIDERS)) {
      expect(CREDENTIAL_VARIABLES.has(provider.baseUrlEnvVar)).toBe(true);
      if (provider.apiKeyEnvVar) expect(CREDENTIAL_VARIABLES.has(provider.apiKeyEnvVar)).toBe(true);
    }
    for (const name of ['GH_TOKEN', 'GITHUB_TOKEN', 'GITLAB_TOKEN', 'ANTHROPIC_AUTH_TOKEN', 'AWS_SECRET_ACCESS_KEY']) expect(CREDENTIAL_VARIABLES.has(name)).toBe(true);
  });
});
