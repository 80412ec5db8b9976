import { z } from 'zod';
import { normalizeHost } from '../core/policy/domain-pattern.js';
import { defineTool, fail, ok, type EgressVerdict, type Tool, type ToolContext, type ToolResult } from './define-tool.js';
import { fetchWebPage, type HopDecision, type ResolveHost, type WebFetchLimits } from './web/fetch-web-page.js';
import { pageToText, type PageToTextLimits } from './web/page-to-text.js';

/** What the model reads of one page at most; the rest is cut with a note (the page itself may be larger, up to the byte cap). */
export const WEB_FETCH_MAX_TEXT_CHARS = 100_000;

const CACHE_KEY = 'web_fetch.cache';

const WebFetchInput = z.strictObject({
  url: z.string().min(1).max(8_000).describe('The http(s) URL to read.'),
  prompt: z.string().min(1).max(4_000).optional().describe('What you want from the page; returned with the page to keep in mind while reading it.'),
});

/** Test seams: smaller caps, and a resolver (production resolves through the system's DNS). */
export interface WebFetchToolOptions {
  limits?: Partial<WebFetchLimits>;
  resolveHost?: ResolveHost;
  /** The bounds of turning a page into text (off the event loop, SEC-10). */
  conversionLimits?: Partial<PageToTextLimits>;
}

/** The run's cache of pages already read (TOOL-1): the same URL twice in a run is fetched once. */
function runCache(context: ToolContext): Map<string, ToolResult> {
  let cache = context.runState.get(CACHE_KEY) as Map<string, ToolResult> | undefined;
  if (!cache) {
    cache = new Map();
    context.runState.set(CACHE_KEY, cache);
  }
  return cache;
}

/**
 * Per hop: the gate decided the first URL already (asking the operator if a rule said so), so the
 * first hop is asked only whether a rule names its host. A redirect is decided afresh: an allow
 * follows it, a deny stops there, and an ask stops with the advice to fetch that URL directly, so the
 * operator is asked at the gate instead of a redirect slipping past the question. A redirect that
 * stays on a host already approved in this call follows.
 */
function hopDecider(context: ToolContext): (url: URL, hop: number) => Promise<HopDecision> {
  const approvedHosts = new Set<string>();
  return async (url, hop) => {
    const host = normalizeHost(url.hostname);
    if (!context.decideEgress) {
      if (hop === 0 || approvedHosts.has(host)) {
        approvedHosts.add(host);
        return { allowed: true, hostNamedByRule: false };
      }
      return { allowed: false, reason: `Refused: the redirect leaves for another host (${host}) and no policy is available to decide it.` };
    }
    const verdict: EgressVerdict = await context.decideEgress(url.href);
    if (verdict.decision === 'deny') return { allowed: false, reason: hop === 0 ? `Denied by policy: ${verdict.explanation}` : `Refused: the redirect to ${url.href} is denied by policy: ${verdict.explanation}` };
    if (verdict.decision === 'ask' && hop > 0 && !approvedHosts.has(host)) {
      return { allowed: false, reason: `Stopped at a redirect to ${url.href}: reaching ${host} needs an operator's approval (${verdict.explanation}). Call web_fetch with that URL to ask for it.` };
    }
    approvedHosts.add(host);
    return { allowed: true, hostNamedByRule: verdict.hostNamedByRule };
  };
}

/** Whether every hop a cached fetch was redirected through would still be followed now (TOOL-1). */
async function redirectHopsStillAllowed(cached: ToolResult, url: string, context: ToolContext): Promise<boolean> {
  const redirects = cached.details?.redirects;
  const finalUrl = cached.details?.url;
  if (!Array.isArray(redirects) || redirects.length === 0 || typeof finalUrl !== 'string') return true;
  const hops = [...redirects.slice(1), finalUrl].filter((hop): hop is string => typeof hop === 'string');
  const decide = hopDecider(context);
  await decide(new URL(url), 0);
  for (const [index, hop] of hops.entries()) if (!(await decide(new URL(hop), index + 1)).allowed) return false;
  return true;
}

function describePrompt(prompt: string | undefined): string[] {
  if (prompt === undefined) return [];
  return [`Prompt: ${prompt}`, 'The prompt was not applied by another model: the page follows whole (up to the text cap) so you can answer it yourself.'];
}

/**
 * Builds `web_fetch` (TOOL-1): reads one web page as text. networkEgress, decided by domain rules
 * (see domain-pattern.ts) at the gate and again for every redirect hop; read tier, so plan and review
 * modes have it for research (CAP-4, CAP-8).
 */
export function createWebFetchTool(options: WebFetchToolOptions = {}): Tool<z.output<typeof WebFetchInput>> {
  return defineTool({
    name: 'web_fetch',
    description:
      'Read a web page (http or https) as text: HTML becomes markdown of its main content, JSON is pretty-printed, other text types are returned as they are. Only public addresses; redirects are followed. Results are cached for the rest of the run.',
    parameters: WebFetchInput,
    tier: 'read',
    effects: ['networkEgress'],
    egressUrlField: 'url',
    group: 'web',
    async execute(input, context) {
      let key: string;
      try {
        key = new URL(input.url).href;
      } catch {
        return fail(`Refused: ${JSON.stringify(input.url)} is not a URL (write it with its scheme, for example https://example.com/page).`, { refusal: 'url' });
      }
      const cache = runCache(context);
      let cached = cache.get(key);
      // The gate decided this URL for this call; the hosts it redirected to are decided again too, so
      // a rule the operator added since the page was read is not passed by the cache.
      if (cached && !(await redirectHopsStillAllowed(cached, key, context))) {
        cache.delete(key);
        cached = undefined;
      }
      if (cached) {
        const lines = [...describePrompt(input.prompt), '(Cached: this URL was already read in this run; the same text follows.)', cached.content];
        return { ...cached, content: lines.join('\n'), details: { ...cached.details, cached: true } };
      }
      const outcome = await fetchWebPage(key, {
        decideHop: hopDecider(context),
        signal: context.signal,
        ...(options.limits ? { limits: options.limits } : {}),
        ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
      });
      if (!outcome.ok) {
        const redirected = outcome.redirects.length > 0 ? ` (after redirects from ${outcome.redirects.join(' → ')})` : '';
        return fail(`${outcome.reason}${redirected}`, { refusal: outcome.refusal, redirects: outcome.redirects });
      }
      const converted = await pageToText(outcome.body, outcome.contentType, options.conversionLimits);
      if (!converted.ok) {
        return fail(`Refused: ${outcome.url} was fetched (${outcome.body.length} bytes) but ${converted.problem}.`, { refusal: 'conversion', url: outcome.url, bytes: outcome.body.length });
      }
      const page = converted.page;
      const truncated = page.text.length > WEB_FETCH_MAX_TEXT_CHARS;
      const header = [
        `URL: ${outcome.url}`,
        ...(outcome.redirects.length > 0 ? [`Redirected from: ${outcome.redirects.join(' → ')}`] : []),
        `Status: ${outcome.status}`,
        `Content type: ${outcome.contentType}`,
        ...(page.title ? [`Title: ${page.title}`] : []),
        `Format: ${page.format}${truncated ? `, cut at ${WEB_FETCH_MAX_TEXT_CHARS} of ${page.text.length} characters` : ''}`,
      ];
      const content = [...header, '', truncated ? `${page.text.slice(0, WEB_FETCH_MAX_TEXT_CHARS)}\n[… cut: the page's text goes on]` : page.text].join('\n');
      const details = { url: outcome.url, status: outcome.status, address: outcome.address, bytes: outcome.body.length, redirects: outcome.redirects };
      const result = outcome.status >= 400 ? fail(content, details) : ok(content, details);
      cache.set(key, result);
      return input.prompt === undefined ? result : { ...result, content: [...describePrompt(input.prompt), result.content].join('\n') };
    },
  });
}

/** `web_fetch` with the production caps and the system resolver. */
export const webFetchTool = createWebFetchTool();
