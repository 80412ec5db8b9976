import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveClaudePath } from '../../src/adapters/claude-code/claude-binary.js';
import { runnerEnvironment } from '../../src/sandbox/runner-environment.js';
import type { BrokerRequest } from '../../src/services/model-broker.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { rawRequest } from '../support/raw-request.js';

/**
 * TRUTH-4: a runner pointed at a provider the model proxy does not know gets the same final answer
 * as one whose provider has no key — a 401 in its protocol's own error shape, naming the provider —
 * and its run ends at once with that cause. SEC-8 still decides first: a path that is not plain is
 * 400, one off every allowlist 404. The real server over real HTTP, the real `claude` CLI; the
 * scripted model server is every provider's upstream and records every request it receives.
 */
let fixture: ClaudeCodeFixture | null = null;
const scratch: string[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

const UNKNOWN = 'no-such-provider';
const causeFor = (bound: string, label: string) =>
  `the model proxy knows no provider "${UNKNOWN}" (it serves anthropic, openai, deepseek, xai, ollama, openai-compatible, deepseek-anthropic); this run's runner should call /api/model-proxy/${bound} (${label})`;

/** A run open at the broker for `provider`, its token, and the causes the broker reports for it. */
function openRun(f: ClaudeCodeFixture, runId: string, provider: 'anthropic' | 'openai'): { token: string; causes: string[] } {
  const causes: string[] = [];
  f.app.modelBroker.open(runId, f.workspaceId, provider, (cause) => causes.push(cause));
  return { token: f.app.runTokens.issue({ workspaceId: f.workspaceId, runId, agentId: f.agentId }), causes };
}

function closeRun(f: ClaudeCodeFixture, runId: string): void {
  f.app.modelBroker.close(runId);
  f.app.runTokens.revoke(runId);
}

async function post(f: ClaudeCodeFixture, token: string, path: string, body: unknown) {
  const response = await fetch(`${f.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  return { status: response.status, retry: response.headers.get('x-should-retry'), body: await response.json() };
}

/** Sent exactly as written (fetch would resolve the dot segments a path check must see). */
async function postRaw(f: ClaudeCodeFixture, token: string, path: string) {
  const response = await rawRequest(f.url, 'POST', path, { headers: { authorization: `Bearer ${token}` }, body: {} });
  return { status: response.status, body: JSON.parse(response.body) };
}

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-unknown-provider-'));
  scratch.push(dir);
  return dir;
}

describe('an unknown provider gets a final 401 in the protocol’s shape, naming it (TRUTH-4)', { timeout: 60_000 }, () => {
  it('Anthropic shape on an Anthropic endpoint, OpenAI shape on an OpenAI one; the run is told the cause once; nothing is forwarded', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat' });
    const f = fixture;
    const anthropic = openRun(f, 'run_unknown_anthropic', 'anthropic');
    const message = { model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
    const answer = await post(f, anthropic.token, `/api/model-proxy/${UNKNOWN}/v1/messages?beta=true`, message);
    expect(answer.status).toBe(401);
    expect(answer.retry).toBe('false');
    const cause = causeFor('anthropic', 'Anthropic');
    expect(answer.body).toEqual({ type: 'error', error: { type: 'authentication_error', message: cause } });
    // A second call (a runtime that retried anyway) gets the same answer; the run heard the cause once.
    expect((await post(f, anthropic.token, `/api/model-proxy/${UNKNOWN}/v1/messages`, message)).status).toBe(401);
    expect(anthropic.causes).toEqual([cause]);
    expect(f.app.modelBroker.fatalCause('run_unknown_anthropic')).toBe(cause);
    closeRun(f, 'run_unknown_anthropic');

    // The provider is read from the raw URL: `%6fpenai` is no provider, not a second spelling of one.
    const openai = openRun(f, 'run_unknown_openai', 'openai');
    const chat = { model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }] };
    const respelled = await post(f, openai.token, '/api/model-proxy/%6fpenai/chat/completions', chat);
    expect(respelled.status).toBe(401);
    expect(respelled.retry).toBe('false');
    expect(respelled.body).toEqual({
      error: { message: causeFor('openai', 'OpenAI').replace(`"${UNKNOWN}"`, '"%6fpenai"'), type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
    closeRun(f, 'run_unknown_openai');
    expect(f.model.received).toEqual([]);
  });

  it('SEC-8 decides first: a path that is not plain is 400, one off every allowlist 404, and neither ends the run', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat' });
    const f = fixture;
    const run = openRun(f, 'run_unknown_paths', 'anthropic');
    for (const path of ['/v1/../v1/messages', '/v1/%2e%2e/messages', '/v1//messages', '/v1/messages%2fcount_tokens']) {
      const answer = await postRaw(f, run.token, `/api/model-proxy/${UNKNOWN}${path}`);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.field, path).toBe('path');
    }
    for (const path of ['/v1/files', '/v1/messages/batches', '/embeddings', '/v1/organizations/api_keys']) {
      const answer = await postRaw(f, run.token, `/api/model-proxy/${UNKNOWN}${path}`);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.field, path).toBe('path');
    }
    expect(run.causes).toEqual([]);
    expect(f.app.modelBroker.fatalCause('run_unknown_paths')).toBeNull();
    closeRun(f, 'run_unknown_paths');
    expect(f.model.received).toEqual([]);
  });
});

describe('the real `claude` CLI pointed at an unknown provider stops at once (TRUTH-4)', { timeout: 120_000 }, () => {
  it('the CLI sends one model request, does not retry it, and exits showing the cause', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat' });
    const f = fixture;
    // Opened without a listener: nothing ends the CLI on the proxy's behalf, so what it does is its own.
    f.app.modelBroker.open('run_unknown_cli', f.workspaceId, 'anthropic');
    const token = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId: 'run_unknown_cli', agentId: f.agentId });
    const admitted: string[] = [];
    const admit = f.app.modelBroker.admit.bind(f.app.modelBroker);
    vi.spyOn(f.app.modelBroker, 'admit').mockImplementation((request: BrokerRequest) => {
      admitted.push(`${request.method} ${request.provider}${request.rawPath}`);
      return admit(request);
    });
    const home = await scratchDir();
    const env = runnerEnvironment({
      source: process.env,
      home,
      brokered: { ANTHROPIC_BASE_URL: `${f.url}/api/model-proxy/${UNKNOWN}`, ANTHROPIC_API_KEY: token },
      extra: { CLAUDE_CONFIG_DIR: join(home, 'config'), ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}) },
    });
    const started = performance.now();
    const child = spawn(resolveClaudePath(), ['-p', 'hello', '--output-format', 'json', '--model', 'claude-sonnet-5-5'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    console.log(`claude against an unknown provider: exit ${code} after ${Math.round(performance.now() - started)} ms: ${output.slice(0, 600)}`);
    expect(code).not.toBe(0);
    expect(output).toContain(`knows no provider \\"${UNKNOWN}\\"`);
    expect(admitted).toEqual([`POST ${UNKNOWN}/v1/messages`]);
    expect(f.model.received).toEqual([]);
    closeRun(f, 'run_unknown_cli');
  });

  it('a Claude Code run whose runner calls an unknown provider fails at once with the cause', async () => {
    // The real CLI, started by the transport as always; only its base URL is turned to a provider
    // the proxy does not know (a misconfigured runner), by a wrapper around the binary.
    const wrapper = join(await scratchDir(), 'claude-misdirected');
    await writeFile(wrapper, `#!/bin/sh\nANTHROPIC_BASE_URL="\${ANTHROPIC_BASE_URL%/anthropic}/${UNKNOWN}"\nexport ANTHROPIC_BASE_URL\nexec '${resolveClaudePath()}' "$@"\n`);
    await chmod(wrapper, 0o755);
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true, claudePath: wrapper } });
    const f = fixture;
    const started = performance.now();
    const detail = await f.waitForRun(await f.send('hello'), 90_000);
    console.log(`Claude Code run against an unknown provider: ${detail.run.state} after ${Math.round(performance.now() - started)} ms`);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe(causeFor('anthropic', 'Anthropic'));
    // The runner did start; the cause came from the proxy.
    expect(detail.events.some((event: { type: string }) => event.type === 'run_start')).toBe(true);
    expect(f.model.received).toEqual([]);
  });
});
