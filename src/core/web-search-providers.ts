/**
 * The web search providers a workspace can configure for `web_search` (TOOL-1). The key of each lives
 * in the workspace's settings, write-only; without one the tool is not on any surface.
 */
export const WEB_SEARCH_PROVIDERS = ['brave'] as const;
export type WebSearchProviderId = (typeof WEB_SEARCH_PROVIDERS)[number];

/** Brave Search API's public endpoint; a workspace may point elsewhere (a proxy; tests: a local fake). */
export const BRAVE_SEARCH_DEFAULT_BASE_URL = 'https://api.search.brave.com';
