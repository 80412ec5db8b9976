import { expect } from 'vitest';
import { ClaudeAgentSdkTransport, type ClaudeAgentSdkTransportOptions } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import type { ClaudeCodeFixture } from './claude-code-fixture.js';
import { questionCards } from './relay-fixture.js';
import { useRunnerFixture, type RunnerStartOptions } from './runner-fixture.js';

/** What a DeepSeek test chooses: the relay fixture's mode and autonomy, and transport overrides (the sandbox, say). */
export interface DeepSeekStartOptions extends RunnerStartOptions {
  transport?: Partial<ClaudeAgentSdkTransportOptions>;
}

/**
 * DeepSeek (RLY-7): the Claude Agent SDK path with DeepSeek's Anthropic-compatible endpoint. The
 * scripted model server stands in for that endpoint, configured as the workspace's
 * `deepseek-anthropic` base URL and key; the runner only ever sees the model proxy and its run token.
 * Call at the top of a test file; the returned `start` gives a fixture whose agent runs on DeepSeek.
 */
export function useDeepSeekFixture(): (options?: DeepSeekStartOptions) => Promise<ClaudeCodeFixture> {
  const start = useRunnerFixture('deepseek', ({ app, base }, options: DeepSeekStartOptions) => new ClaudeAgentSdkTransport({ backend: 'deepseek', ...base, askUser: questionCards(app), ...options.transport }));
  return async (options = {}) => {
    const fixture = await start(options);
    const settings = await fixture.api('PATCH', `/api/workspaces/${fixture.workspaceId}/settings`, {
      apiKeys: { 'deepseek-anthropic': 'deepseek-secret-key' },
      baseUrls: { 'deepseek-anthropic': fixture.model.anthropicBaseUrl },
    });
    expect(settings.status).toBe(200);
    return fixture;
  };
}
