import type { ProviderId } from './model-catalog.js';

/**
 * Where runners reach the model broker: `<server>/api/model-proxy/<provider>` (SEC-6). It lives below
 * services so a transport can point its runner at the broker without importing the broker itself.
 */
export const MODEL_PROXY_PATH = '/api/model-proxy';

/** The base URL a runner is given for a provider (its SDK appends `/v1/messages`, `/chat/completions`, …). */
export function modelProxyBaseUrl(serverUrl: string, provider: ProviderId): string {
  return `${serverUrl.replace(/\/$/, '')}${MODEL_PROXY_PATH}/${provider}`;
}
