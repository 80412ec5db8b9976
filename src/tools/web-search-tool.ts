import { z } from 'zod';
import { defineTool, fail, ok, type Tool } from './define-tool.js';
import { WebSearchError, type WebSearchProvider } from './web/web-search-provider.js';

const WebSearchInput = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(400).describe('What to search the web for.'),
  count: z.number().int().min(1).max(20).default(8).describe('How many results (1–20).'),
});

/**
 * Builds `web_search` (TOOL-1) over the workspace's configured provider: networkEgress at read tier,
 * like `web_fetch`, so research modes keep it; it is built only when a provider is configured, so an
 * unconfigured workspace never shows it to the model.
 */
export function createWebSearchTool(provider: WebSearchProvider): Tool<z.output<typeof WebSearchInput>> {
  return defineTool({
    name: 'web_search',
    description: 'Search the web. Returns titles, URLs and snippets; read a result with web_fetch.',
    parameters: WebSearchInput,
    tier: 'read',
    effects: ['networkEgress'],
    group: 'web',
    async execute(input, context) {
      try {
        const hits = await provider.search(input.query, { count: input.count, signal: context.signal });
        if (hits.length === 0) return ok(`No results from ${provider.name} for ${JSON.stringify(input.query)}.`, { provider: provider.name, results: 0 });
        const lines = hits.map((hit, index) => `${index + 1}. ${hit.title || '(untitled)'}\n   ${hit.url}${hit.snippet ? `\n   ${hit.snippet}` : ''}`);
        return ok([`Results from ${provider.name} for ${JSON.stringify(input.query)}:`, '', ...lines].join('\n'), { provider: provider.name, results: hits.length });
      } catch (error) {
        if (error instanceof WebSearchError) return fail(`web_search failed: ${error.message}.`, { provider: provider.name });
        if (context.signal.aborted) return fail('Stopped: the run was cancelled.');
        throw error;
      }
    },
  });
}
