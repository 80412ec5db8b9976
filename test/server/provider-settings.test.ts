import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { reply } from '../support/scripted-reply.js';
import { SseClient } from '../support/sse-client.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Per-provider settings (SEC-6): runner keys are write-only — never in a response, an
 * event or an error — base URLs are http(s) only, default models are wired into run launch, and a
 * runner's model call through the model proxy carries the runner key the runner never sees.
 */
let server: TestServer;
let model: ScriptedModelServer;
let ws: string;
let settingsPath: string;

const SECRETS = { cursor: 'key_cursor_SECRET_0001', grok: 'xai-grok-SECRET-0002', deepseek: 'sk-deepseek-SECRET-0003', openai: 'sk-openai-SECRET-0004', anthropic: 'sk-ant-runner-SECRET-0005' };
const leaks = (value: unknown) => Object.values(SECRETS).filter((secret) => JSON.stringify(value).includes(secret));

beforeAll(async () => {
  server = await startTestServer();
  model = await startScriptedModelServer();
  ws = (await createSeededWorkspace(server)).id;
  settingsPath = `/api/workspaces/${ws}/settings`;
});
afterAll(async () => {
  await server.dispose();
  await model.close();
});

describe('per-provider settings over HTTP', () => {
  it('runner keys are write-only: the answer, a later read and the settings event show only "set"', async () => {
    const events = await SseClient.open(`${server.url}/api/workspaces/${ws}/events`, { authorization: `Bearer ${server.token}` });
    try {
      const updated = await server.api('PATCH', settingsPath, {
        runnerKeys: SECRETS,
        runnerBaseUrls: { cursor: 'https://api.cursor.example/v1', grok: 'http://127.0.0.1:9/v1' },
        defaultModels: { codex: 'gpt-5.4', deepseek: 'deepseek-reasoner' },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.runnerKeys).toEqual({ cursor: 'set', grok: 'set', deepseek: 'set', openai: 'set', anthropic: 'set' });
      expect(updated.body.runnerBaseUrls).toEqual({ cursor: 'https://api.cursor.example/v1', grok: 'http://127.0.0.1:9/v1' });
      expect(updated.body.defaultModels).toEqual({ codex: 'gpt-5.4', deepseek: 'deepseek-reasoner' });
      expect(leaks(updated.body)).toEqual([]);
      expect(leaks((await server.api('GET', settingsPath)).body)).toEqual([]);
      const event = await events.waitFor((received) => received.event === 'settings.updated');
      expect(leaks(event)).toEqual([]);
      expect(JSON.stringify(event)).toContain('"runnerKeys":{');
    } finally {
      events.close();
    }
    // null removes one key and leaves the others.
    const removed = await server.api('PATCH', settingsPath, { runnerKeys: { grok: null }, defaultModels: { codex: null } });
    expect(removed.body.runnerKeys).toEqual({ cursor: 'set', deepseek: 'set', openai: 'set', anthropic: 'set' });
    expect(removed.body.defaultModels).toEqual({ deepseek: 'deepseek-reasoner' });
  });

  it('bad input is a 400 naming the field, never echoing the key, and nothing changes', async () => {
    const before = (await server.api('GET', settingsPath)).body;
    const badKey = 'sk-bad SECRET-with space';
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ runnerBaseUrls: { grok: 'file:///etc/passwd' } }, 'runnerBaseUrls.grok'],
      [{ runnerBaseUrls: { cursor: 'javascript:alert(1)' } }, 'runnerBaseUrls.cursor'],
      [{ runnerBaseUrls: { openai: 'ftp://models.example' } }, 'runnerBaseUrls.openai'],
      [{ runnerBaseUrls: { openai: 'not a url' } }, 'runnerBaseUrls.openai'],
      [{ runnerKeys: { openai: badKey } }, 'runnerKeys.openai'],
      [{ runnerKeys: { cursor: 'short' } }, 'runnerKeys.cursor'],
      [{ runnerKeys: { deepseek: 'sk-SECRET\r\nX-Injected: 1' } }, 'runnerKeys.deepseek'],
      [{ runnerKeys: { deepseek: 'k'.repeat(513) } }, 'runnerKeys.deepseek'],
      [{ runnerKeys: { openai: 42 } }, 'runnerKeys.openai'],
      [{ runnerKeys: { mystery: 'sk-abcdefgh-123' } }, 'runnerKeys'],
      [{ defaultModels: { codex: 'gpt; rm -rf /' } }, 'defaultModels.codex'],
      [{ defaultModels: { codex: '' } }, 'defaultModels.codex'],
      [{ defaultModels: { codex: '-oProxyCommand' } }, 'defaultModels.codex'],
      [{ defaultModels: { 'not-an-adapter': 'gpt-5.4' } }, 'defaultModels'],
    ];
    for (const [body, field] of cases) {
      const response = await server.api('PATCH', settingsPath, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.field ?? response.body.error.issues?.[0]?.field, JSON.stringify(body)).toMatch(new RegExp(`^${field.replace('.', '\\.')}`));
      expect(JSON.stringify(response.body)).not.toContain('SECRET');
    }
    expect((await server.api('GET', settingsPath)).body).toEqual(before);
  });

  it("a provider's default model is what an agent without its own model runs on; the agent's model overrides (run launch)", async () => {
    await server.api('PATCH', settingsPath, { apiKeys: { anthropic: 'scripted-key' }, baseUrls: { anthropic: model.url }, defaultModels: { builtin: 'claude-haiku-4-5' } });
    const plain = (await server.api('POST', `/api/workspaces/${ws}/agents`, { name: 'plain' })).body;
    const own = (await server.api('POST', `/api/workspaces/${ws}/agents`, { name: 'own', modelId: 'claude-opus-5-5' })).body;
    const space = (await server.api('POST', `/api/workspaces/${ws}/spaces`, { name: 'Defaults' })).body;
    const conversation = (await server.api('POST', `/api/workspaces/${ws}/spaces/${space.id}/conversations`, { title: 'Models' })).body;
    const ask = async (agentId: string) => {
      model.script(reply().text('ok'));
      const posted = await server.api('POST', `/api/workspaces/${ws}/conversations/${conversation.id}/messages`, { text: 'which model?', agentId });
      expect(posted.status).toBe(202);
      let run: any;
      await expect.poll(async () => (run = (await server.api('GET', `/api/workspaces/${ws}/runs/${posted.body.run.id}`)).body.run).state, { timeout: 30_000 }).toBe('completed');
      return run;
    };
    const first = await ask(plain.id);
    expect(first.model).toMatch(/claude-haiku-4-5$/);
    expect(model.requests.at(-1)!.model).toBe('claude-haiku-4-5');
    const second = await ask(own.id);
    expect(second.model).toMatch(/claude-opus-5-5$/);
    expect(model.requests.at(-1)!.model).toBe('claude-opus-5-5');
  }, 90_000);

  it("a runner's model call through the proxy carries the runner key; the runner holds only its run token and the answer never has the key (SEC-6)", async () => {
    await server.api('PATCH', settingsPath, { apiKeys: { anthropic: 'workspace-key-not-for-runners' }, baseUrls: { anthropic: model.url }, runnerKeys: { anthropic: SECRETS.anthropic } });
    const agent = (await server.api('GET', `/api/workspaces/${ws}/agents`)).body.agents[0];
    const app = server.running.app;
    // A run in progress on a transport: the broker lets its token through (what the executor does at launch).
    app.modelBroker.open('run_proxied', ws, 'anthropic');
    const runToken = app.runTokens.issue({ workspaceId: ws, runId: 'run_proxied', agentId: agent.id });
    try {
      model.script(reply().text('from the proxy'));
      const response = await fetch(`${server.url}/api/model-proxy/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': runToken, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).toContain('from the proxy');
      expect(text).not.toContain(SECRETS.anthropic);
      const upstream = model.requests.at(-1)!;
      expect(upstream.headers['x-api-key']).toBe(SECRETS.anthropic);
      expect(JSON.stringify(upstream.headers)).not.toContain(runToken);
    } finally {
      app.modelBroker.close('run_proxied');
    }
  });
});
