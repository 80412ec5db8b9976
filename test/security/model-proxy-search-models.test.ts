import { afterEach, describe, expect, it } from 'vitest';
import type { AgentTransport } from '../../src/adapters/agent-transport.js';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * SEC-8: some models search the web on the provider's side with no tool named in the request —
 * OpenAI's search models (`gpt-4o-search-preview`, `gpt-5-search-api`) on every Chat Completions
 * call, deep-research models as they work. A run token under a networkEgress deny reached the web
 * through them just by naming the model. The model id is now decided as the web search it is. The
 * real server and run executor; the scripted model server is the upstream and records what reached it.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

async function heldOpenAIRun() {
  const held = heldTransport();
  const transport: AgentTransport = { ...held.transport, modelProvider: () => 'openai' };
  fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => transport } });
  const { ctx } = await held.start(fixture);
  return { f: fixture, token: ctx.mcp.token, finish: held.finish };
}

async function post(f: ClaudeCodeFixture, token: string, path: string, body: Record<string, unknown>) {
  const response = await fetch(`${modelProxyBaseUrl(f.url, 'openai')}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'what happened today?' }] });
const SEARCH_MODELS = ['gpt-4o-search-preview', 'gpt-4o-mini-search-preview-2025-03-11', 'gpt-5-search-api', 'openai/gpt-4o-search-preview'];

describe('models that search by themselves are web search to the model proxy (SEC-8)', () => {
  it('under a networkEgress deny a search or deep-research model is refused (403 naming the model), nothing is forwarded; other models go through', async () => {
    const { f, token, finish } = await heldOpenAIRun();
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'deny' })).status).toBe(201);
    for (const model of SEARCH_MODELS) {
      const refused = await post(f, token, '/chat/completions', chat(model));
      expect(refused.status, model).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'provider_tool_refused', param: `model ${JSON.stringify(model)}` });
      expect(refused.body.error.message).toMatch(/web search/);
    }
    for (const model of ['o3-deep-research', 'o4-mini-deep-research-2025-06-26']) {
      const refused = await post(f, token, '/responses', { model, input: 'research this', tools: [{ type: 'function', name: 'noop', parameters: { type: 'object' } }] });
      expect(refused.status, model).toBe(403);
      expect(refused.body.error.param).toBe(`model ${JSON.stringify(model)}`);
    }
    expect(f.model.received).toEqual([]);
    // A model that does not search by itself (a word merely containing "search" included) is forwarded.
    f.model.script(reply().text('plain'), reply().text('plain too'));
    expect((await post(f, token, '/chat/completions', chat('gpt-5.4'))).status).toBe(200);
    expect((await post(f, token, '/chat/completions', chat('researcher-7b'))).status).toBe(200);
    expect(f.model.received.map((entry) => entry.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    finish();
  });

  it('under the default rules (network egress allowed) a search model is forwarded as before', async () => {
    const { f, token, finish } = await heldOpenAIRun();
    f.model.script(reply().text('searched'));
    expect((await post(f, token, '/chat/completions', chat('gpt-4o-search-preview'))).status).toBe(200);
    expect(f.model.received).toEqual([{ method: 'POST', path: '/v1/chat/completions' }]);
    finish();
  });
});
