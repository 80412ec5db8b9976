import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { serve, startLocalWebSite, type LocalWebSite } from '../support/local-web-site.js';
import { reply } from '../support/scripted-reply.js';

/**
 * SEC-10 over web_fetch (third attacker pass): the page a web_fetch reads is the internet's bytes,
 * and turning HTML into text costs sharply more with its shape — Readability over 3,000 nested
 * `<div>`s (15 KB) runs for minutes. On the event loop one such page held every request of the
 * server: /healthz, other conversations, approvals. The conversion now runs on a worker, within a
 * time bound; the hostile page is refused, and the server answers meanwhile.
 */
const NESTED_PAGE = `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(3_000)}deep text</body></html>`;

let site: LocalWebSite;
let fixture: HarnessFixture | null = null;
beforeAll(async () => {
  site = await startLocalWebSite();
});
afterAll(async () => {
  await site.close();
});
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

describe('web_fetch page conversion (SEC-10, security)', () => {
  it('a page of 3,000 nested divs is stopped at the conversion bound and refused, while /healthz answers during the conversion', { timeout: 60_000 }, async () => {
    const harness = await startHarnessFixture();
    fixture = harness;
    const created = await harness.server.api('POST', `/api/workspaces/${harness.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'domain', domain: '127.0.0.1' }, decision: 'allow' });
    expect(created.status).toBe(201);
    // The moment the page is served, the server starts converting it: a health check sent then must
    // be answered before the conversion's result reaches the model.
    let health: Promise<{ status: number; modelRequestsThen: number }> | null = null;
    const servePage = serve('text/html; charset=utf-8', NESTED_PAGE);
    site.page('/deep', (request, response) => {
      servePage(request, response);
      health = new Promise((resolve) => setTimeout(resolve, 200)).then(async () => {
        const answer = await fetch(`${harness.server.url}/healthz`);
        return { status: answer.status, modelRequestsThen: harness.model.requests.length };
      });
    });
    harness.model.script(reply().tool('web_fetch', { url: `${site.origin}/deep` }), reply().text('That page could not be read.'));
    const detail = await harness.waitForRun(await harness.send('Read the deep page.'));
    expect(detail.run.state).toBe('completed');
    expect(detail.toolCalls.map((call: any) => [call.name, call.executed, call.isError])).toEqual([['web_fetch', true, true]]);
    const result = harness.model.requests[1]!.lastToolResult!.content;
    expect(result).toMatch(/was fetched \(\d+ bytes\) but turning the page into text took longer than 10 s \(its markup is too deep or too large\); it was stopped/);
    expect(health).not.toBeNull();
    // Answered while the model still waited for the tool's result (one request so far: the first turn).
    expect(await health!).toEqual({ status: 200, modelRequestsThen: 1 });
  });

  it('an ordinary article is still read as markdown', async () => {
    const harness = await startHarnessFixture();
    fixture = harness;
    const created = await harness.server.api('POST', `/api/workspaces/${harness.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'domain', domain: '127.0.0.1' }, decision: 'allow' });
    expect(created.status).toBe(201);
    const article = `<html><head><title>Notes</title></head><body><article><h1>Version 2</h1><p>${'The parser is <strong>twice</strong> as fast. '.repeat(20)}</p></article></body></html>`;
    site.page('/article', serve('text/html; charset=utf-8', article));
    harness.model.script(reply().tool('web_fetch', { url: `${site.origin}/article` }), reply().text('Read.'));
    const detail = await harness.waitForRun(await harness.send('Read the article.'));
    expect(detail.toolCalls.map((call: any) => [call.name, call.isError])).toEqual([['web_fetch', false]]);
    const result = harness.model.requests[1]!.lastToolResult!.content;
    expect(result).toContain('Format: markdown (readable article)');
    expect(result).toContain('# Version 2');
    expect(result).toContain('The parser is **twice** as fast.');
  });
});
