import { resolveProviderEndpoint, type ModelSettings, type ProviderInfo } from '../llm/model-catalog.js';
import { ModelNotConfiguredError } from '../llm/model-not-configured-error.js';

/** Where a provider's key and base URL are set: the page a person opens, or the server's environment. */
const SETTINGS_PAGE = 'Settings → General';

/**
 * TRUTH-4: why `provider` cannot be called with these settings and this environment, naming the
 * setting to fix ("DeepSeek has no API key: set it in Settings → General, or DEEPSEEK_API_KEY in the
 * server's environment"), or null when it has what it needs (a keyless provider such as Ollama needs
 * only its base URL). The same resolution the model proxy forwards with, so the check and the call agree.
 */
export function providerSetupProblem(provider: ProviderInfo, settings: ModelSettings, env: Record<string, string | undefined>): string | null {
  try {
    resolveProviderEndpoint(provider, settings, env);
    return null;
  } catch (error) {
    if (!(error instanceof ModelNotConfiguredError)) throw error;
    if (error.reason === 'missing_base_url') return `${provider.label} has no base URL: set it in ${SETTINGS_PAGE}, or ${provider.baseUrlEnvVar} in the server's environment`;
    return `${provider.label} has no API key: set it in ${SETTINGS_PAGE}${provider.apiKeyEnvVar ? `, or ${provider.apiKeyEnvVar} in the server's environment` : ''}`;
  }
}

/** TRUTH-4: what a run says when its provider's base URL cannot be reached at all. */
export function unreachableBaseUrlCause(provider: ProviderInfo, baseUrl: string, code: string): string {
  return `${provider.label} base URL ${baseUrl} could not be reached (${code}): check ${provider.baseUrlEnvVar} or the base URL in Settings → General`;
}
