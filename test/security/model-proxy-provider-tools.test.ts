import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentTransport } from '../../src/adapters/agent-transport.js';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * SEC-8: the model proxy once forwarded a request body and its `anthropic-beta` header untouched, so
 * a run token made the PROVIDER fetch pages, search the web, run code or connect to MCP servers on
 * its side — egress no networkEgress rule ever saw. Every provider-side tool a body names is now put
 * to the run's own policy as the effect it is; anything not allowed is refused before forwarding with
 * the protocol's own error shape (403, final), and only client-side betas go upstream. The answers'
 * headers are an allowlist too. The real server and run executor, the real `claude` for its WebSearch
 * tool; the scripted model server is the upstream and records what reached it.
 */
let fixture: ClaudeCodeFixture | null = null;
let upstream: Server | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  await new Promise((resolve) => (upstream ? upstream.close(resolve) : resolve(null)));
  upstream = null;
});

const DENY_EGRESS = { scope: 'workspace', match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'deny' };

/** A run held open on a transport whose token spends `provider`, with its run token. */
async function heldRun(provider: 'anthropic' | 'xai') {
  const held = heldTransport();
  const transport: AgentTransport = { ...held.transport, modelProvider: () => provider };
  fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => transport } });
  const { runId, ctx } = await held.start(fixture);
  return { f: fixture, runId, token: ctx.mcp.token, finish: held.finish };
}

async function post(f: ClaudeCodeFixture, token: string, provider: 'anthropic' | 'xai', path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${modelProxyBaseUrl(f.url, provider)}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

const messages = (extra: Record<string, unknown>) => JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...extra });
const CUSTOM_TOOL = { name: 'lookup', description: 'a client tool', input_schema: { type: 'object', properties: {} } };

describe('provider-side tools through the model proxy (SEC-8)', () => {
  it('Anthropic: server tools, MCP servers and containers are decided by the run’s policy; a refusal is a final 403 naming the field and the rule, and nothing leaves', async () => {
    const { f, runId, token, finish } = await heldRun('anthropic');
    const betas = 'claude-code-20250219,interleaved-thinking-2025-05-14,web-fetch-2025-09-10,mcp-client-2025-04-04,code-execution-2025-08-25,files-api-2025-04-14';
    // Default policy: network egress is allowed, so the provider's web search goes through — with the
    // client-side betas only.
    f.model.script(reply().text('searched'));
    const allowed = await post(f, token, 'anthropic', '/v1/messages?beta=true', messages({ tools: [CUSTOM_TOOL, { type: 'web_search_20250305', name: 'web_search' }] }), { 'anthropic-beta': betas });
    expect(allowed.status).toBe(200);
    expect(f.model.requests).toHaveLength(1);
    expect(f.model.requests[0]!.headers['anthropic-beta']).toBe('claude-code-20250219,interleaved-thinking-2025-05-14');
    // Code the provider runs is unseen code: every class, so the default ask on pushes refuses it.
    const container = await post(f, token, 'anthropic', '/v1/messages', messages({ tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] }));
    expect(container.status).toBe(403);
    expect(container.body.error.message).toContain('tools[0].type "code_execution_20250825"');
    expect(container.body.error.message).toContain('needs an operator');

    const rule = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, DENY_EGRESS);
    expect(rule.status).toBe(201);
    const attempts: Array<[string, string]> = [
      [messages({ tools: [CUSTOM_TOOL, { type: 'web_fetch_20250910', name: 'web_fetch' }, { type: 'web_search_20250305', name: 'web_search' }] }), 'tools[1].type "web_fetch_20250910"'],
      // A JSON escape is the same string once parsed: no substring scan to slip past.
      ['{"model":"claude-sonnet-4-5","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"\\u0077eb_search_20250305","name":"web_search"}]}', 'tools[0].type "web_search_20250305"'],
      [messages({ mcp_servers: [{ type: 'url', url: 'https://203.0.113.9/mcp', name: 'x', authorization_token: 'SECRET' }] }), 'mcp_servers[0]'],
      [messages({ tools: [{ type: 'mcp_toolset', mcp_server_name: 'x' }] }), 'tools[0].type "mcp_toolset"'],
      [messages({ container: 'container_011' }), 'container'],
      [messages({ tools: [{ type: 'computer_20250124', name: 'computer', display_width_px: 1, display_height_px: 1 }] }), 'tools[0].type "computer_20250124"'],
    ];
    for (const [body, field] of attempts) {
      for (const path of ['/v1/messages?beta=true', '/v1/messages/count_tokens']) {
        const refused = await post(f, token, 'anthropic', path, body, { 'anthropic-beta': betas });
        expect(refused.status, field).toBe(403);
        expect(refused.headers.get('x-should-retry')).toBe('false');
        expect(refused.body.type).toBe('error');
        expect(refused.body.error.type).toBe('permission_error');
        expect(refused.body.error.message).toContain(field);
        expect(refused.body.error.message).toContain(`rule ${rule.body.id}`);
      }
    }
    // Not one of them reached the provider; a request with client tools only still does.
    expect(f.model.requests).toHaveLength(1);
    f.model.script(reply().text('plain'));
    expect((await post(f, token, 'anthropic', '/v1/messages', messages({ tools: [CUSTOM_TOOL, { ...CUSTOM_TOOL, name: 'typed', type: 'custom' }] }))).status).toBe(200);
    expect(f.model.requests).toHaveLength(2);
    // A large body is read off the event loop, with the same answer.
    const large = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: Array.from({ length: 1500 }, () => ({ role: 'user', content: 'x'.repeat(1000) })), tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] });
    const largeRefused = await post(f, token, 'anthropic', '/v1/messages', large);
    expect(largeRefused.status).toBe(403);
    expect(largeRefused.body.error.message).toContain('tools[0].type "web_fetch_20250910"');
    expect((await post(f, token, 'anthropic', '/v1/messages', `${large.slice(0, -1)},`)).status).toBe(400);
    // A body the proxy cannot read is not forwarded either.
    const garbled = await post(f, token, 'anthropic', '/v1/messages', '{"tools": [');
    expect(garbled.status).toBe(400);
    expect(garbled.body.error.field).toBe('body');
    finish();
    const detail = await f.waitForRun(runId);
    const decided = (detail.events as any[]).filter((event) => event.type === 'provider_tool_decided').map((event) => event.data);
    expect(decided).toContainEqual(expect.objectContaining({ field: 'tools[1].type "web_fetch_20250910"', decision: 'deny', decidedBy: { scope: 'workspace', ruleId: rule.body.id } }));
    expect(decided).toContainEqual(expect.objectContaining({ field: 'tools[1].type "web_search_20250305"', decision: 'allow' }));
  });

  it('OpenAI-style: Responses built-in tools and Chat Completions web search are refused under a deny, in the OpenAI error shape', async () => {
    const { f, token, finish } = await heldRun('xai');
    const rule = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, DENY_EGRESS);
    expect(rule.status).toBe(201);
    const input = { model: 'grok-4', input: 'hi' };
    const fn = { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } };
    for (const tool of [{ type: 'web_search' }, { type: 'web_search_preview' }, { type: 'mcp', server_label: 'x', server_url: 'https://203.0.113.9/mcp' }, { type: 'code_interpreter', container: { type: 'auto' } }, { type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'image_generation' }, { type: 'computer_use_preview' }]) {
      const refused = await post(f, token, 'xai', '/responses', JSON.stringify({ ...input, tools: [fn, tool] }));
      expect(refused.status, tool.type).toBe(403);
      expect(refused.headers.get('x-should-retry')).toBe('false');
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'provider_tool_refused', param: `tools[1].type "${tool.type}"` });
      expect(refused.body.error.message).toContain(`rule ${rule.body.id}`);
    }
    const chat = await post(f, token, 'xai', '/v1/chat/completions', JSON.stringify({ model: 'grok-4', messages: [{ role: 'user', content: 'hi' }], web_search_options: {} }));
    expect(chat.status).toBe(403);
    expect(chat.body.error.param).toBe('web_search_options');
    expect(f.model.received).toEqual([]);
    // A namespace (how Codex groups its MCP tools) is a folder of client tools; what is inside is read too.
    const nested = await post(f, token, 'xai', '/responses', JSON.stringify({ ...input, tools: [{ type: 'namespace', name: 'mcp__x', tools: [fn, { type: 'web_search' }] }] }));
    expect(nested.status).toBe(403);
    expect(nested.body.error.param).toBe('tools[0].tools[1].type "web_search"');
    expect(f.model.received).toEqual([]);
    f.model.script(reply().text('fine'));
    expect((await post(f, token, 'xai', '/responses', JSON.stringify({ ...input, tools: [fn, { type: 'namespace', name: 'mcp__x', tools: [fn] }] }))).status).toBe(200);
    expect(f.model.received).toHaveLength(1);
    finish();
  });

  it('the provider’s account headers never reach the runner; what its back-off reads does', async () => {
    upstream = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, {
          'content-type': 'application/json',
          'x-request-id': 'req_1',
          'retry-after': '1',
          'x-ratelimit-remaining-requests': '99',
          'x-should-retry': 'true',
          'openai-organization': 'org-operator-secret',
          'openai-project': 'proj_operator',
          'openai-processing-ms': '12',
          'anthropic-organization-id': 'operator-org-id',
          'set-cookie': 'session=operator',
          'x-internal-route': 'shard-7',
        });
        response.end(JSON.stringify({ id: 'resp_1', object: 'response', output: [], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } }));
      });
    });
    await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
    const { f, token, finish } = await heldRun('xai');
    const port = (upstream.address() as AddressInfo).port;
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { baseUrls: { xai: `http://127.0.0.1:${port}/v1` } })).status).toBe(200);
    const answer = await post(f, token, 'xai', '/responses', JSON.stringify({ model: 'grok-4', input: 'hi' }));
    expect(answer.status).toBe(200);
    const names = [...answer.headers.keys()];
    for (const kept of ['content-type', 'x-request-id', 'retry-after', 'x-ratelimit-remaining-requests', 'x-should-retry']) expect(names, kept).toContain(kept);
    for (const dropped of ['openai-organization', 'openai-project', 'openai-processing-ms', 'anthropic-organization-id', 'set-cookie', 'x-internal-route']) expect(names, dropped).not.toContain(dropped);
    finish();
  });
});

describe('Claude Code’s WebSearch through the model proxy (SEC-8)', () => {
  it('works under a rule allowing network egress and is refused, naming the rule, under a deny', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const allow = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'allow' });
    expect(allow.status).toBe(201);
    f.model.script(reply().tool('WebSearch', { query: 'weather in paris' }), reply().text('the search ran'), reply().text('done'));
    const searched = await f.waitForRun(await f.send('search the web'), 90_000);
    expect(searched.run.state).toBe('completed');
    // The search request itself (the provider's web_search tool) reached the provider.
    const searches = () => f.model.requests.filter((request) => JSON.stringify(request.body?.tools ?? []).includes('web_search_20250305'));
    expect(searches()).toHaveLength(1);

    expect((await f.api('DELETE', `/api/workspaces/${f.workspaceId}/policy/rules/${allow.body.id}`)).status).toBeLessThan(300);
    const deny = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, DENY_EGRESS);
    expect(deny.status).toBe(201);
    f.model.script(reply().tool('WebSearch', { query: 'weather in rome' }), reply().text('refused'));
    const refused = await f.waitForRun(await f.send('search the web again'), 90_000);
    expect(refused.run.state).toBe('completed');
    expect(searches()).toHaveLength(1);
    const result = f.model.requests.at(-1)!.lastToolResult;
    expect(result?.content).toContain(`rule ${deny.body.id}`);
    expect(JSON.stringify(refused.events)).toContain('provider_tool_decided');
  });
});
