import { afterEach, describe, expect, it } from 'vitest';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * SEC-8: a run token is bound to its run, its workspace and the one provider its run's transport
 * points the runner at; it spends nothing else (an Anthropic run's token once spent the workspace's
 * OpenAI key). The real server, the real run executor, the real `claude`; the scripted model server is
 * every provider's upstream and records every request it receives.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const CHAT_BODY = JSON.stringify({ model: 'gpt-5.4', stream: false, messages: [{ role: 'user', content: 'hi' }] });

async function callProxy(f: ClaudeCodeFixture, token: string, provider: 'anthropic' | 'openai' | 'xai' | 'deepseek-anthropic', path: string) {
  const response = await fetch(`${modelProxyBaseUrl(f.url, provider)}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: CHAT_BODY,
  });
  return { status: response.status, body: (await response.json()) as { error?: { field?: string; message: string } } };
}

describe('a run token spends only its own run’s provider (SEC-8)', () => {
  it('a real Claude Code run’s token cannot spend OpenAI, xAI or DeepSeek; its own Anthropic calls go through', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    // The runner itself tries the other providers with the token it was given.
    const probe = [
      'root="${ANTHROPIC_BASE_URL%/anthropic}"',
      `for target in openai/chat/completions xai/chat/completions deepseek-anthropic/v1/messages; do`,
      `  curl -s -X POST -H "authorization: Bearer $ANTHROPIC_API_KEY" -H 'content-type: application/json' -d '${CHAT_BODY}' -w " status=%{http_code}\\n" "$root/$target"`,
      'done',
    ].join('\n');
    f.model.script(reply().tool('Bash', { command: probe }), reply().text('done'));
    const detail = await f.waitForRun(await f.send('try the other providers'), 60_000);
    expect(detail.run.state).toBe('completed');
    const output = f.model.requests.map((request) => request.lastToolResult?.content ?? '').join('\n');
    const statuses = [...output.matchAll(/status=(\d+)/g)].map((match) => match[1]);
    expect(statuses).toEqual(['403', '403', '403']);
    for (const name of ['OpenAI', 'xAI', 'DeepSeek']) expect(output).toContain(name);
    expect(output).toContain('"field":"provider"');
    // Only the run's own Anthropic model calls reached the upstream.
    expect(f.model.received.length).toBe(2);
    for (const received of f.model.received) expect(received.path).toMatch(/^\/v1\/messages/);
  });

  it('a run on another transport is bound to that transport’s provider by the run executor (a Grok run: xAI only)', async () => {
    const held = heldTransport();
    fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => held.transport } });
    const f = fixture;
    const { runId, ctx } = await held.start(f);
    f.model.script(reply().text('from xai'));
    const anthropic = await callProxy(f, ctx.mcp.token, 'anthropic', '/v1/messages');
    expect(anthropic.status).toBe(403);
    expect(anthropic.body.error?.field).toBe('provider');
    expect(anthropic.body.error?.message).toMatch(/may not spend Anthropic \(anthropic\).*only xAI \(xai\)/);
    const openai = await callProxy(f, ctx.mcp.token, 'openai', '/chat/completions');
    expect(openai.status).toBe(403);
    expect(f.model.received).toEqual([]);
    expect((await callProxy(f, ctx.mcp.token, 'xai', '/chat/completions')).status).toBe(200);
    expect(f.model.received).toEqual([{ method: 'POST', path: '/v1/chat/completions' }]);
    held.finish();
    expect((await f.waitForRun(runId)).run.state).toBe('completed');
  });

  it('a token whose run declares no provider spends none; a token naming another workspace for an open run spends nothing', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat' });
    const f = fixture;
    // A transport without a model provider (a runner that reaches no model through the proxy).
    f.app.modelBroker.open('run_no_provider', f.workspaceId, null);
    const none = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId: 'run_no_provider', agentId: f.agentId });
    for (const provider of ['anthropic', 'openai'] as const) {
      const answer = await callProxy(f, none, provider, provider === 'anthropic' ? '/v1/messages' : '/chat/completions');
      expect(answer.status).toBe(403);
      expect(answer.body.error?.message).toMatch(/spends only no provider/);
    }
    // The run is open in this workspace; a token naming another workspace for it is refused.
    f.app.modelBroker.open('run_bound', f.workspaceId, 'anthropic');
    const foreign = f.app.runTokens.issue({ workspaceId: 'ws_someone_else', runId: 'run_bound', agentId: f.agentId });
    expect((await callProxy(f, foreign, 'anthropic', '/v1/messages')).status).toBe(403);
    expect(f.model.received).toEqual([]);
    for (const runId of ['run_no_provider', 'run_bound']) {
      f.app.modelBroker.close(runId);
      f.app.runTokens.revoke(runId);
    }
  });

  it('every registered runner transport declares the provider it points its runner at (ACP by the agent’s model)', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat' });
    const f = fixture;
    const transports = (f.app.executor as unknown as { transports: { get(id: string): { modelProvider?(agent: unknown): string | null } | undefined } }).transports;
    const agent = (await f.api('GET', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`)).body;
    const expected: Record<string, string | null> = {
      'claude-code': 'anthropic',
      'claude-agent-sdk': 'anthropic',
      deepseek: 'deepseek-anthropic',
      codex: 'openai',
      copilot: 'openai',
      'copilot-extension': 'openai',
      grok: 'xai',
      acp: 'anthropic',
      // Cursor calls its vendor from the server's process: its runner's token spends no provider.
      cursor: null,
    };
    for (const [adapterId, provider] of Object.entries(expected)) {
      const transport = transports.get(adapterId);
      expect(transport, adapterId).toBeDefined();
      expect(transport!.modelProvider?.({ ...agent, adapterId }) ?? null, adapterId).toBe(provider);
    }
    expect(transports.get('acp')!.modelProvider!({ ...agent, adapterId: 'acp', modelId: 'gpt-5.4' })).toBe('openai');
  });
});
