import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressVerdict, ToolContext } from '../../src/tools/define-tool.js';
import { createWebFetchTool } from '../../src/tools/web-fetch-tool.js';
import { redirectTo, serve, startLocalWebSite, type LocalWebSite } from '../support/local-web-site.js';

/**
 * TOOL-1: `web_fetch` keeps the pages a run read, keyed by URL. The gate decides the URL on every
 * call, cached or not, but a page reached through a redirect was served from the cache even after the
 * operator added a rule against the host it redirected to: the cache passed a rule the fetch would
 * now stop at. A cached page's redirect hops are now decided again, and a refused one is fetched
 * afresh (and so refused). A real HTTP server on loopback; the policy is the tool's egress seam.
 */
let site: LocalWebSite;
beforeAll(async () => {
  site = await startLocalWebSite();
  site.page('/internal', serve('text/plain', 'internal page'));
});
afterAll(async () => {
  await site.close();
});

describe('a cached web_fetch page is not served past a rule added after it was read (TOOL-1)', () => {
  it('a redirect target denied since the first read is refused on the second read of the same URL', async () => {
    site.page('/hop', redirectTo(`http://127.0.0.1:${site.port}/internal`));
    const denied = new Set<string>();
    const decideEgress = async (url: string): Promise<EgressVerdict> => {
      const host = new URL(url).hostname;
      return denied.has(host) ? { decision: 'deny', hostNamedByRule: true, explanation: `rule r_deny denies ${host}` } : { decision: 'allow', hostNamedByRule: true, explanation: 'rule r_allow names it' };
    };
    const context = { runState: new Map(), signal: new AbortController().signal, decideEgress } as unknown as ToolContext;
    const tool = createWebFetchTool();
    const url = `http://localhost:${site.port}/hop`;

    const first = await tool.execute({ url }, context);
    expect(first.isError).toBe(false);
    expect(first.content).toContain('internal page');
    // Read again with nothing changed: served from the run's cache.
    const again = await tool.execute({ url }, context);
    expect(again.details?.cached).toBe(true);

    denied.add('127.0.0.1');
    const after = await tool.execute({ url }, context);
    expect(after.isError).toBe(true);
    expect(after.content).not.toContain('internal page');
    expect(after.content).toContain('rule r_deny denies 127.0.0.1');
  });
});
