import { readCappedResponse } from '../../llm/read-capped-body.js';
import { WebSearchError, type WebSearchHit, type WebSearchProvider } from './web-search-provider.js';

const SEARCH_TIMEOUT_MS = 20_000;
/** Most of a search answer read (SEC-10): twenty results are tens of KB; past this the read stops and the tool says so. */
const MAX_SEARCH_ANSWER_BYTES = 2 * 1024 * 1024;

/** The part of Brave's web search answer the tool reads (`GET /res/v1/web/search`). */
interface BraveWebSearchAnswer {
  web?: { results?: Array<{ title?: unknown; url?: unknown; description?: unknown }> };
}

/** Brave marks matched words with <strong>; the model reads plain text. */
function plain(text: unknown): string {
  return typeof text === 'string' ? text.replace(/<\/?strong>/g, '').replace(/&#x27;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&') : '';
}

function failureSentence(status: number): string {
  if (status === 401 || status === 403) return 'the search provider refused the workspace’s key (an operator sets it in Settings → General → Web search)';
  if (status === 422) return 'the search provider refused the query as invalid';
  if (status === 429) return 'the search provider’s rate limit was reached; try again later';
  return `the search provider answered HTTP ${status}`;
}

/**
 * Brave Search API (TOOL-1): `GET {base}/res/v1/web/search?q=…&count=…` with the key in the
 * `X-Subscription-Token` header; results are `web.results[]` with `title`, `url`, `description`.
 * The base URL is the operator's (settings), so it is called directly, not through web_fetch's guard.
 */
export function braveSearchProvider(config: { apiKey: string; baseUrl: string }): WebSearchProvider {
  return {
    name: 'Brave Search',
    async search(query, { count, signal }) {
      const url = new URL('/res/v1/web/search', config.baseUrl);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      let response: Response;
      try {
        response = await fetch(url, {
          headers: { accept: 'application/json', 'x-subscription-token': config.apiKey },
          signal: AbortSignal.any([signal, AbortSignal.timeout(SEARCH_TIMEOUT_MS)]),
        });
      } catch (error) {
        throw new WebSearchError(`the search provider could not be reached (${(error as Error).name === 'TimeoutError' ? `no answer in ${SEARCH_TIMEOUT_MS / 1000} s` : (error as Error).message})`);
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new WebSearchError(failureSentence(response.status));
      }
      let answer: BraveWebSearchAnswer;
      try {
        const read = await readCappedResponse(response, MAX_SEARCH_ANSWER_BYTES);
        if (read.overCap) throw new WebSearchError(`the search provider answered with more than ${MAX_SEARCH_ANSWER_BYTES / 1024 ** 2} MiB, the most the server reads of a search answer; it was not read further`);
        answer = JSON.parse(read.bytes.toString('utf8')) as BraveWebSearchAnswer;
      } catch (error) {
        if (error instanceof WebSearchError) throw error;
        if (!(error instanceof SyntaxError)) throw new WebSearchError(`the search provider's answer broke off (${(error as Error).name === 'TimeoutError' ? `not complete in ${SEARCH_TIMEOUT_MS / 1000} s` : (error as Error).message})`);
        throw new WebSearchError('the search provider answered something that is not JSON');
      }
      const results = Array.isArray(answer.web?.results) ? answer.web.results : [];
      return results
        .map((result): WebSearchHit => ({ title: plain(result.title), url: typeof result.url === 'string' ? result.url : '', snippet: plain(result.description) }))
        .filter((hit) => hit.url.length > 0)
        .slice(0, count);
    },
  };
}
