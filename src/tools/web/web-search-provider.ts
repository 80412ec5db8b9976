/** One search hit as the model reads it. */
export interface WebSearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** A configured web search provider (TOOL-1); `web_search` is on the surface only when one is. */
export interface WebSearchProvider {
  /** The provider's name, for the result header and the run log. */
  readonly name: string;
  search(query: string, options: { count: number; signal: AbortSignal }): Promise<WebSearchHit[]>;
}

/** A search that failed, with a sentence the model can act on. */
export class WebSearchError extends Error {
  readonly code = 'web_search_failed';
}
