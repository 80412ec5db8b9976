import { afterEach, describe, expect, it } from 'vitest';
import type { AgentTransport } from '../../src/adapters/agent-transport.js';
import { GrokTransport } from '../../src/adapters/grok/grok-transport.js';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * SEC-8: two request fields let the provider act where the proxy's policy never looked. xAI Live
 * Search (`search_parameters`, mode "auto"/"on") searches the web on xAI's side: it is decided as
 * network egress, and when refused the request still goes, with the mode "off" (the Grok CLI names it
 * on its own, so refusing would fail ordinary turns). An OpenAI Responses `prompt` names a prompt
 * stored on the provider, with tools and instructions the proxy never sees: unseen code, refused
 * under the default rules. The real server and run executor; the scripted model server is the
 * upstream and records what reached it.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

async function heldXaiRun() {
  const held = heldTransport();
  const transport: AgentTransport = { ...held.transport, modelProvider: () => 'xai' };
  fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => transport } });
  const { runId, ctx } = await held.start(fixture);
  const f = fixture;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${modelProxyBaseUrl(f.url, 'xai')}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ctx.mcp.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  return { f, runId, post, token: ctx.mcp.token, finish: held.finish };
}

const chat = (extra: Record<string, unknown>) => ({ model: 'grok-4', messages: [{ role: 'user', content: 'latest news?' }], stream: false, ...extra });
const LIVE_SEARCH = { mode: 'auto', sources: [{ type: 'web' }, { type: 'x' }], max_search_results: 5 };

describe('xAI Live Search and stored prompts through the model proxy (SEC-8)', () => {
  it('Live Search goes through unchanged when egress is allowed, and reaches xAI switched off (and logged) under a deny', async () => {
    const { f, runId, post, finish } = await heldXaiRun();
    f.model.script(reply().text('searched'));
    expect((await post('/v1/chat/completions', chat({ search_parameters: LIVE_SEARCH }))).status).toBe(200);
    expect(f.model.requests[0]!.body!.search_parameters).toEqual(LIVE_SEARCH);

    const rule = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    const large = 'x'.repeat(1100 * 1024); // past the size read off the event loop: rewritten there too
    for (const [content, parameters] of [['latest news?', LIVE_SEARCH], ['now?', { mode: 'on' }], [large, { sources: [{ type: 'news' }] }]] as const) {
      f.model.script(reply().text('not searched'));
      const answer = await post('/v1/chat/completions', chat({ messages: [{ role: 'user', content }], search_parameters: parameters }));
      expect(answer.status).toBe(200);
      const reached = f.model.requests.at(-1)!.body!;
      const { sources: _sources, ...kept } = parameters as Record<string, unknown>;
      expect(reached.search_parameters).toEqual({ ...kept, mode: 'off' });
      expect(reached.messages).toEqual([{ role: 'user', content }]);
      expect(reached.model).toBe('grok-4');
    }
    // What the Grok CLI sends on most turns is already off: forwarded as it is, nothing to decide.
    f.model.script(reply().text('plain'));
    expect((await post('/v1/chat/completions', chat({ search_parameters: { mode: 'off' } }))).status).toBe(200);
    expect(f.model.requests.at(-1)!.body!.search_parameters).toEqual({ mode: 'off' });
    expect(f.model.requests).toHaveLength(5);
    finish();
    const detail = await f.waitForRun(runId);
    const decided = (detail.events as any[]).filter((event) => event.type === 'provider_tool_decided').map((event) => event.data);
    expect(decided.filter((d) => d.field === 'search_parameters')).toHaveLength(4);
    expect(decided[0]).toMatchObject({ field: 'search_parameters', decision: 'allow' });
    expect(decided[0].outcome).toBeUndefined();
    expect(decided[1]).toMatchObject({ field: 'search_parameters', what: 'xAI Live Search (mode "auto")', decision: 'deny', decidedBy: { scope: 'workspace', ruleId: rule.body.id } });
    expect(decided[1].outcome).toContain('turned off');
  });

  it('a Responses stored prompt is refused under the default rules, naming the field, and nothing leaves', async () => {
    const { f, post, finish } = await heldXaiRun();
    const refused = await post('/responses', { model: 'grok-4', input: 'hi', prompt: { id: 'pmpt_123', version: '2', variables: { city: 'x' } } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'provider_tool_refused', param: 'prompt' });
    expect(refused.body.error.message).toContain('stored prompt "pmpt_123"');
    expect(f.model.received).toEqual([]);
    f.model.script(reply().text('fine'));
    expect((await post('/responses', { model: 'grok-4', input: 'hi' })).status).toBe(200);
    expect(f.model.received).toHaveLength(1);
    finish();
  });

  it('a body naming a key twice in one object is refused, small or read off the event loop, and nothing leaves', async () => {
    const { f, token, finish } = await heldXaiRun();
    const raw = async (text: string) => {
      const response = await fetch(`${modelProxyBaseUrl(f.url, 'xai')}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: text });
      return { status: response.status, body: (await response.json()) as any };
    };
    const messages = (content: string) => JSON.stringify([{ role: 'user', content }]);
    const bodies = [
      // JSON.parse keeps the last "search_parameters"; a parser keeping the first would search.
      `{"model":"grok-4","messages":${messages('news?')},"search_parameters":{"mode":"on"},"search_parameters":{"mode":"off"}}`,
      // The same inside a tool, with the key spelled with an escape.
      `{"model":"grok-4","messages":${messages('news?')},"tools":[{"type":"web_search","\u0074ype":"function","function":{"name":"f"}}]}`,
      // Past the size parsed on a worker thread.
      `{"model":"grok-4","messages":${messages('x'.repeat(1100 * 1024))},"search_parameters":{"mode":"on"},"search_parameters":{"mode":"off"}}`,
    ];
    for (const text of bodies) {
      const refused = await raw(text);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toMatch(/names the key \\"(search_parameters|type)\\" twice/);
    }
    expect(f.model.received).toEqual([]);
    f.model.script(reply().text('fine'));
    expect((await raw(`{"model":"grok-4","messages":${messages('hi')},"search_parameters":{"mode":"off"}}`)).status).toBe(200);
    finish();
  });

  it('the real Grok CLI is started with Live Search off when the policy refuses it, so its requests already say "off"', { timeout: 120_000 }, async () => {
    fixture = await startClaudeCodeFixture({
      adapter: { id: 'grok', transport: (app, dataRoot) => new GrokTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true }) },
    });
    const f = fixture;
    const liveSearchOf = () => f.model.requests.filter((request) => request.path.endsWith('/chat/completions')).at(-1)!.body!.search_parameters;
    // The CLI's own heuristic asks for Live Search when the message wants news: allowed by default.
    f.model.script(reply().text('the news'));
    expect((await f.waitForRun(await f.send('what is the latest news?'))).run.state).toBe('completed');
    expect(liveSearchOf()).toEqual({ mode: 'auto' });
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'deny' })).status).toBe(201);
    f.model.script(reply().text('no news'));
    const detail = await f.waitForRun(await f.send('and the latest news now?'));
    expect(detail.run.state).toBe('completed');
    expect(liveSearchOf()).toEqual({ mode: 'off' });
    // Off before it reached the proxy: nothing for the proxy to switch off or record.
    expect((detail.events as any[]).filter((event) => event.type === 'provider_tool_decided')).toEqual([]);
  });
});
