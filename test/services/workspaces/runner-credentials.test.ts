import { describe, expect, it } from 'vitest';
import { runnerModelSettings } from '../../../src/services/workspaces/runner-credentials.js';
import { WorkspaceSettings } from '../../../src/schemas/settings.js';

/**
 * Which broker provider a runner key and a runner base URL stand for (SEC-6). DeepSeek has
 * two APIs in the model catalog: `deepseek` (OpenAI-style, the built-in harness's) and
 * `deepseek-anthropic` (the one the `deepseek` runner — the Claude Agent SDK path — speaks). No
 * transport sends its model traffic to the proxy's `deepseek` provider (every runner uses
 * `anthropic`, `deepseek-anthropic`, `openai` or `xai`), and one URL cannot serve both APIs, so the
 * runner base URL goes only to `deepseek-anthropic`; the key serves both.
 */
describe('runner keys and base URLs at the model proxy (SEC-6)', () => {
  const settings = WorkspaceSettings.parse({
    apiKeys: { deepseek: 'workspace-deepseek-key' },
    baseUrls: { deepseek: 'https://workspace.example/openai-style' },
    runnerKeys: { deepseek: 'runner-deepseek-key', grok: 'runner-grok-key' },
    runnerBaseUrls: { deepseek: 'https://gateway.example/anthropic', grok: 'https://grok.example/v1' },
  });
  const proxied = runnerModelSettings(settings);

  it('runnerBaseUrls.deepseek applies to the Anthropic-compatible API the deepseek runner speaks, not to the OpenAI-style one', () => {
    expect(proxied.baseUrls['deepseek-anthropic']).toBe('https://gateway.example/anthropic');
    expect(proxied.baseUrls.deepseek).toBe('https://workspace.example/openai-style');
  });

  it('runnerKeys.deepseek serves both DeepSeek APIs; grok maps to xai', () => {
    expect(proxied.apiKeys['deepseek-anthropic']).toBe('runner-deepseek-key');
    expect(proxied.apiKeys.deepseek).toBe('runner-deepseek-key');
    expect(proxied.apiKeys.xai).toBe('runner-grok-key');
    expect(proxied.baseUrls.xai).toBe('https://grok.example/v1');
  });

  it('the workspace settings themselves are not changed', () => {
    expect(settings.apiKeys.deepseek).toBe('workspace-deepseek-key');
    expect(settings.baseUrls['deepseek-anthropic']).toBeUndefined();
  });
});
