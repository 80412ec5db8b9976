import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentTransport } from '../../src/adapters/agent-transport.js';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { CodexTransport } from '../../src/adapters/codex/codex-transport.js';
import { CopilotTransport } from '../../src/adapters/copilot/copilot-transport.js';
import { GrokTransport } from '../../src/adapters/grok/grok-transport.js';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import type { ControlCenter } from '../../src/services/control-center.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture, type ClaudeCodeFixtureOptions } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * TRUTH-4: a run that cannot reach its model fails at once and names what to fix. Each external
 * runtime is the real one (the `claude` CLI, the Claude Agent SDK, its DeepSeek backend, `codex
 * app-server`, the Copilot runtime, the Grok CLI); the scripted model server is the only stand-in.
 * - no key: the run is refused before its runner starts, naming the environment variable and the page;
 * - the model proxy answers a call without a key with a 401 in the provider's own shape (not a
 *   retryable 503) and ends the run with that cause;
 * - a base URL where nothing listens: the runner's first call fails and the run is failed naming the URL.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

/** The Copilot runtime unpacks once per machine; every test shares the copy its own tests use. */
const copilotRuntimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');

type Build = (app: ControlCenter, dataRoot: string) => AgentTransport;
const runner = (app: ControlCenter, dataRoot: string) => ({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none' as const, allowUnsandboxed: true });

/** Every transport whose runner reaches its model through the proxy: its adapter, how it is built, the variables of its provider. */
const RUNTIMES: Array<{ name: string; adapter: NonNullable<ClaudeCodeFixtureOptions['adapter']>['id'] | 'claude-code'; build?: Build; keyVar: string; baseUrlVar: string; label: string }> = [
  { name: 'Claude Code', adapter: 'claude-code', keyVar: 'ANTHROPIC_API_KEY', baseUrlVar: 'ANTHROPIC_BASE_URL', label: 'Anthropic' },
  { name: 'Claude Agent SDK', adapter: 'claude-agent-sdk', build: (app, dataRoot) => new ClaudeAgentSdkTransport({ ...runner(app, dataRoot), askUser: async () => [] }), keyVar: 'ANTHROPIC_API_KEY', baseUrlVar: 'ANTHROPIC_BASE_URL', label: 'Anthropic' },
  { name: 'DeepSeek', adapter: 'deepseek', build: (app, dataRoot) => new ClaudeAgentSdkTransport({ backend: 'deepseek', ...runner(app, dataRoot), askUser: async () => [] }), keyVar: 'DEEPSEEK_API_KEY', baseUrlVar: 'DEEPSEEK_ANTHROPIC_BASE_URL', label: 'DeepSeek (Anthropic API)' },
  { name: 'Codex', adapter: 'codex', build: (app, dataRoot) => new CodexTransport({ ...runner(app, dataRoot), askUser: async () => [] }), keyVar: 'OPENAI_API_KEY', baseUrlVar: 'OPENAI_BASE_URL', label: 'OpenAI' },
  { name: 'Copilot', adapter: 'copilot', build: (app, dataRoot) => new CopilotTransport({ ...runner(app, dataRoot), askUser: async () => [], runtimeCacheDir: copilotRuntimeCacheDir }), keyVar: 'OPENAI_API_KEY', baseUrlVar: 'OPENAI_BASE_URL', label: 'OpenAI' },
  { name: 'Grok', adapter: 'grok', build: (app, dataRoot) => new GrokTransport(runner(app, dataRoot)), keyVar: 'XAI_API_KEY', baseUrlVar: 'XAI_BASE_URL', label: 'xAI' },
];

async function start(runtime: (typeof RUNTIMES)[number], env: Record<string, string>): Promise<ClaudeCodeFixture> {
  const { adapter, build } = runtime;
  fixture = await startClaudeCodeFixture({
    env,
    ...(adapter === 'claude-code' || !build ? { transport: { sandbox: 'none', allowUnsandboxed: true } } : { adapter: { id: adapter, transport: build } }),
  });
  return fixture;
}

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Sends a message, waits for the run; logs how long it took (figures, never asserted). */
async function timedRun(f: ClaudeCodeFixture, what: string): Promise<any> {
  const started = performance.now();
  const detail = await f.waitForRun(await f.send('hello'), 90_000);
  console.log(`${what}: ${detail.run.state} after ${Math.round(performance.now() - started)} ms`);
  return detail;
}

describe('a run without its provider’s key fails before its runner starts, naming the setting (TRUTH-4)', { timeout: 120_000 }, () => {
  it.each(RUNTIMES)('$name', async (runtime) => {
    const f = await start(runtime, { [runtime.keyVar]: '' });
    const detail = await timedRun(f, `${runtime.name}, no key`);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe(`${runtime.label} has no API key: set it in Settings → General, or ${runtime.keyVar} in the server's environment`);
    // Nothing was started: no model call reached anything, and no runner was launched.
    expect(f.model.received).toEqual([]);
    expect(detail.events.some((event: { type: string }) => event.type === 'run_start')).toBe(false);
  });

  it('a key set in Settings instead of the environment lets the run start', async () => {
    const f = await start(RUNTIMES[0]!, { ANTHROPIC_API_KEY: '' });
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { apiKeys: { anthropic: 'workspace-key' } })).status).toBe(200);
    f.model.script(reply().text('Hello from the settings key.'));
    const detail = await f.waitForRun(await f.send('hello'), 90_000);
    expect(detail.run.state).toBe('completed');
    expect(f.model.requests.at(-1)?.headers['x-api-key']).toBe('workspace-key');
  });
});

/** A Grok runner's model call through the proxy, with its run token. */
function grokModelCall(f: ClaudeCodeFixture, token: string): Promise<Response> {
  return fetch(`${modelProxyBaseUrl(f.url, 'xai')}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'grok-4.7', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('the model proxy answers a call without a key with a final 401 in the provider’s shape (TRUTH-4)', { timeout: 60_000 }, () => {
  it('OpenAI shape for a Grok run whose key was removed while it ran; the run fails at once naming the setting', async () => {
    const held = heldTransport();
    fixture = await startClaudeCodeFixture({ env: { XAI_API_KEY: '' }, adapter: { id: 'grok', transport: () => held.transport } });
    const f = fixture;
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { apiKeys: { xai: 'workspace-xai-key' } })).status).toBe(200);
    const { runId, ctx } = await held.start(f);
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { apiKeys: { xai: null } })).status).toBe(200);
    const response = await grokModelCall(f, ctx.mcp.token);
    expect(response.status).toBe(401);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const message = "xAI has no API key: set it in Settings → General, or XAI_API_KEY in the server's environment";
    expect(await response.json()).toEqual({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    expect(f.model.received).toEqual([]);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe(message);
  });

  it('Anthropic shape for an Anthropic run without a key', async () => {
    fixture = await startClaudeCodeFixture({ env: { ANTHROPIC_API_KEY: '' } });
    const f = fixture;
    const causes: string[] = [];
    f.app.modelBroker.open('run_without_key', f.workspaceId, 'anthropic', (cause) => causes.push(cause));
    const token = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId: 'run_without_key', agentId: f.agentId });
    const response = await fetch(`${modelProxyBaseUrl(f.url, 'anthropic')}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(401);
    const message = "Anthropic has no API key: set it in Settings → General, or ANTHROPIC_API_KEY in the server's environment";
    expect(await response.json()).toEqual({ type: 'error', error: { type: 'authentication_error', message } });
    expect(causes).toEqual([message]);
    expect(f.app.modelBroker.fatalCause('run_without_key')).toBe(message);
    f.app.modelBroker.close('run_without_key');
  });
});

const baseUrlOn = (runtime: (typeof RUNTIMES)[number], port: number) => `http://127.0.0.1:${port}${runtime.label === 'Anthropic' || runtime.adapter === 'deepseek' ? '' : '/v1'}`;

describe('a base URL where nothing listens fails the run at once, naming the URL (TRUTH-4)', { timeout: 120_000 }, () => {
  it.each(RUNTIMES)('$name: refused before its runner starts', async (runtime) => {
    const unreachable = baseUrlOn(runtime, await closedPort());
    const f = await start(runtime, { [runtime.baseUrlVar]: unreachable });
    const detail = await timedRun(f, `${runtime.name}, nothing at the base URL`);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe(`${runtime.label} base URL ${unreachable} could not be reached (ECONNREFUSED): check ${runtime.baseUrlVar} or the base URL in Settings → General`);
    expect(detail.events.some((event: { type: string }) => event.type === 'run_start')).toBe(false);
  });

  it.each(RUNTIMES)('$name: a base URL that stops answering after the run started — the runtime gets a final answer and the run fails with the cause', async (runtime) => {
    // Accepts the run's start-up check, then stops listening: the runner's first model call is refused.
    const listener = createServer((socket) => {
      socket.destroy();
      listener.close();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const address = listener.address();
    const gone = baseUrlOn(runtime, typeof address === 'object' && address ? address.port : 0);
    const f = await start(runtime, { [runtime.baseUrlVar]: gone });
    const detail = await timedRun(f, `${runtime.name}, base URL gone after start`);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe(`${runtime.label} base URL ${gone} could not be reached (ECONNREFUSED): check ${runtime.baseUrlVar} or the base URL in Settings → General`);
    // The runner did start and call its model: the cause came from the proxy, not the start-up check.
    expect(detail.events.some((event: { type: string }) => event.type === 'run_start')).toBe(true);
  });

  it('the proxy answers such a call with a final 400 in the provider’s shape', async () => {
    const held = heldTransport();
    fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => held.transport } });
    const f = fixture;
    const { runId, ctx } = await held.start(f);
    const unreachable = `http://127.0.0.1:${await closedPort()}/v1`;
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { baseUrls: { xai: unreachable } })).status).toBe(200);
    const response = await grokModelCall(f, ctx.mcp.token);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const message = `xAI base URL ${unreachable} could not be reached (ECONNREFUSED): check XAI_BASE_URL or the base URL in Settings → General`;
    expect(await response.json()).toEqual({ error: { message, type: 'invalid_request_error', param: null, code: 'upstream_unreachable' } });
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe(message);
  });
});
