import type { ModelSettings } from '../../llm/model-catalog.js';
import type { ProviderId } from '../../llm/provider-ids.js';
import type { AdapterId } from '../../schemas/agent.js';
import type { RunnerKeyProvider, WorkspaceSettings } from '../../schemas/settings.js';

/**
 * Which model-catalog providers a runner key stands for when the model proxy forwards a runner's
 * call (SEC-6): the key goes with every listed id; the base URL only with the id a runner's calls
 * use (DeepSeek's runners speak its Anthropic-compatible API). Cursor has no proxied API: its
 * transport reads its key in the server's process ({@link runnerCredential}).
 */
const PROXIED: Record<RunnerKeyProvider, { keyFor: ProviderId[]; baseUrlFor: ProviderId[] }> = {
  anthropic: { keyFor: ['anthropic'], baseUrlFor: ['anthropic'] },
  openai: { keyFor: ['openai'], baseUrlFor: ['openai'] },
  deepseek: { keyFor: ['deepseek', 'deepseek-anthropic'], baseUrlFor: ['deepseek-anthropic'] },
  grok: { keyFor: ['xai'], baseUrlFor: ['xai'] },
  cursor: { keyFor: [], baseUrlFor: [] },
};

/**
 * The provider settings the model proxy uses for runners' calls: the workspace's `apiKeys` and
 * `baseUrls`, with each runner key and runner base URL set in Settings taking their place for the
 * providers it stands for. The key is added by the proxy; the runner only ever holds its run token.
 */
export function runnerModelSettings(settings: WorkspaceSettings): ModelSettings & WorkspaceSettings {
  const apiKeys = { ...settings.apiKeys };
  const baseUrls = { ...settings.baseUrls };
  for (const [provider, mapping] of Object.entries(PROXIED) as Array<[RunnerKeyProvider, (typeof PROXIED)[RunnerKeyProvider]]>) {
    const key = settings.runnerKeys[provider];
    const baseUrl = settings.runnerBaseUrls[provider];
    if (key) for (const id of mapping.keyFor) apiKeys[id] = key;
    if (baseUrl) for (const id of mapping.baseUrlFor) baseUrls[id] = baseUrl;
  }
  return { ...settings, apiKeys, baseUrls };
}

/** A runner provider's key and base URL for a transport that calls its vendor from the server's process (never a runner's environment). */
export function runnerCredential(settings: Pick<WorkspaceSettings, 'runnerKeys' | 'runnerBaseUrls'>, provider: RunnerKeyProvider): { apiKey: string | undefined; baseUrl: string | undefined } {
  return { apiKey: settings.runnerKeys[provider], baseUrl: settings.runnerBaseUrls[provider] };
}

/**
 * The model an agent runs on: its own `modelId`, else the workspace's default for its
 * provider (the adapter id, `builtin` for the built-in harness), else none (the transport's default).
 */
export function withDefaultModel<T extends { adapterId: string | null; modelId: string | null }>(agent: T, settings: Pick<WorkspaceSettings, 'defaultModels'>): T {
  if (agent.modelId) return agent;
  const fallback = settings.defaultModels[(agent.adapterId ?? 'builtin') as AdapterId | 'builtin'];
  return fallback ? { ...agent, modelId: fallback } : agent;
}
