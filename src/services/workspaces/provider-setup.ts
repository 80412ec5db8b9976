import { PROVIDER_IDS, PROVIDERS } from '../../llm/model-catalog.js';
import type { ProviderId } from '../../llm/provider-ids.js';
import type { ProviderSetupView, WorkspaceSettings } from '../../schemas/settings.js';

const present = (value: string | undefined): boolean => Boolean(value?.trim());

/**
 * TRUTH-4: for every model provider, where its key and base URL come from, in the order calls
 * resolve them (the workspace's settings, then the server's environment, then the provider's
 * default), so Settings never says "not set" for a key the server runs on from its environment.
 * Says where, never what: no key or environment value leaves the server.
 */
export function providerSetup(settings: Pick<WorkspaceSettings, 'apiKeys' | 'baseUrls'>, env: Record<string, string | undefined>): Record<ProviderId, ProviderSetupView> {
  const entries = PROVIDER_IDS.map((id): [ProviderId, ProviderSetupView] => {
    const provider = PROVIDERS[id];
    const key = present(settings.apiKeys[id])
      ? 'settings'
      : provider.apiKeyEnvVar && present(env[provider.apiKeyEnvVar])
        ? 'environment'
        : provider.apiKeyRequired
          ? 'missing'
          : 'notNeeded';
    const baseUrl = present(settings.baseUrls[id]) ? 'settings' : present(env[provider.baseUrlEnvVar]) ? 'environment' : provider.defaultBaseUrl ? 'default' : 'missing';
    return [id, { key, keyEnvVar: provider.apiKeyEnvVar, baseUrl, baseUrlEnvVar: provider.baseUrlEnvVar }];
  });
  return Object.fromEntries(entries) as Record<ProviderId, ProviderSetupView>;
}
