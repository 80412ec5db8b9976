import { braveSearchProvider } from './brave-search-provider.js';
import type { WebSearchProvider } from './web-search-provider.js';

/** What of the workspace's settings picks the search provider (TOOL-1). */
export interface WebSearchSettings {
  webSearchKeys: Partial<Record<'brave', string>>;
  webSearchBaseUrl: string;
}

/** The provider the workspace configured, or null when no key is set — then `web_search` is not built at all. */
export function configuredSearchProvider(settings: WebSearchSettings): WebSearchProvider | null {
  const apiKey = settings.webSearchKeys.brave;
  return apiKey ? braveSearchProvider({ apiKey, baseUrl: settings.webSearchBaseUrl }) : null;
}
