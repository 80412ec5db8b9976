import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBraveSearch, type FakeBraveSearch } from '../support/fake-brave-search.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { serve, startLocalWebSite, type LocalWebSite } from '../support/local-web-site.js';
import { reply } from '../support/scripted-reply.js';

/**
 * TOOL-1 through the real server and the built-in harness loop: the scripted model calls web_fetch
 * and web_search, the gate decides them with domain rules, the tools reach a real local web site and
 * a local fake of the Brave Search API.
 */
const ARTICLE = `<!doctype html><html><head><title>Release notes</title><script>track()</script></head><body>
<nav>Home · Blog · About</nav>
<article><h1>Version 2 ships</h1><p>The <strong>parser</strong> is twice as fast. ${'It handles every dialect we know of, and the error messages name the line and the column. '.repeat(12)}</p>
<ul><li>Faster parsing</li><li>Better errors</li></ul></article></body></html>`;

let site: LocalWebSite;
let fixture: HarnessFixture;
beforeAll(async () => {
  site = await startLocalWebSite();
  site.page('/article', serve('text/html; charset=utf-8', ARTICLE));
});
afterAll(async () => {
  await site.close();
});
afterEach(async () => {
  await fixture?.dispose();
});

async function addRule(match: Record<string, unknown>, decision: 'allow' | 'ask' | 'deny', scope: Record<string, unknown> = { scope: 'workspace' }) {
  const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/policy/rules`, { ...scope, match, decision });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

describe('built-in harness web tools (TOOL-1)', () => {
  it('built-in web_fetch reads a page as markdown where a domain rule names the host; the same URL again is served from the run cache', async () => {
    fixture = await startHarnessFixture();
    const ruleId = await addRule({ kind: 'domain', domain: '127.0.0.1' }, 'allow');
    const url = `${site.origin}/article`;
    const before = site.hits.get('/article') ?? 0;
    fixture.model.script(
      reply().tool('web_fetch', { url, prompt: 'What changed in version 2?' }),
      reply().tool('web_fetch', { url }),
      reply().text('Version 2 parses twice as fast.'),
    );
    const detail = await fixture.waitForRun(await fixture.send('What is new?'));
    expect(detail.run.state).toBe('completed');
    expect(detail.toolCalls.map((call: any) => [call.name, call.executed, call.isError, call.decision])).toEqual([
      ['web_fetch', true, false, 'allow'],
      ['web_fetch', true, false, 'allow'],
    ]);
    expect(detail.toolCalls[0].decidedBy).toEqual({ scope: 'workspace', ruleId });
    const first = fixture.model.requests[1]!.lastToolResult!.content;
    expect(first).toContain('Prompt: What changed in version 2?');
    expect(first).toContain('Title: Release notes');
    expect(first).toContain('## Version 2 ships');
    expect(first).toContain('Format: markdown (readable article)');
    expect(first).toContain('The **parser** is twice as fast.');
    expect(first).toMatch(/-\s+Faster parsing\n-\s+Better errors/);
    expect(first).not.toContain('track()');
    const second = fixture.model.requests[2]!.lastToolResult!.content;
    expect(second).toContain('(Cached: this URL was already read in this run');
    expect(second).toContain('The **parser** is twice as fast.');
    expect((site.hits.get('/article') ?? 0) - before).toBe(1);
  });

  it('built-in web_fetch refuses loopback — the Control Center’s own port included — when no rule names the host; a wildcard allow names none; a deny rule refuses before any connection', async () => {
    fixture = await startHarnessFixture();
    await addRule({ kind: 'domain', domain: '*' }, 'allow');
    const denyId = await addRule({ kind: 'domain', domain: 'localhost' }, 'deny');
    const before = site.hits.get('/article') ?? 0;
    fixture.model.script(
      reply().tool('web_fetch', { url: `${fixture.server.url}/api/health` }),
      reply().tool('web_fetch', { url: `${site.origin}/article` }),
      reply().tool('web_fetch', { url: `http://localhost:${site.port}/article` }),
      reply().text('No luck.'),
    );
    const detail = await fixture.waitForRun(await fixture.send('Read these.'));
    expect(detail.toolCalls.map((call: any) => [call.executed, call.isError, call.decision])).toEqual([
      [true, true, 'allow'],
      [true, true, 'allow'],
      [false, true, 'deny'],
    ]);
    expect(fixture.model.requests[1]!.lastToolResult!.content).toMatch(/^Refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1 is loopback\. .*unless a policy rule names this exact host/);
    expect(fixture.model.requests[2]!.lastToolResult!.content).toMatch(/is loopback/);
    expect(fixture.model.requests[3]!.lastToolResult!.content).toContain(`rule ${denyId} (domain localhost)`);
    expect(site.hits.get('/article') ?? 0).toBe(before);
  });

  it('built-in web_fetch decides every redirect hop again: a hop to a host a rule asks about stops there with the advice to fetch it directly', async () => {
    fixture = await startHarnessFixture();
    await addRule({ kind: 'domain', domain: 'localhost' }, 'allow');
    const askId = await addRule({ kind: 'domain', domain: '127.0.0.1' }, 'ask');
    site.page('/bounce', (_request, response) => {
      response.writeHead(302, { location: `${site.origin}/article` });
      response.end();
    });
    const before = site.hits.get('/article') ?? 0;
    fixture.model.script(reply().tool('web_fetch', { url: `http://localhost:${site.port}/bounce` }), reply().text('Stopped.'));
    const detail = await fixture.waitForRun(await fixture.send('Follow it.'));
    expect(detail.toolCalls[0]).toMatchObject({ name: 'web_fetch', executed: true, isError: true, decision: 'allow' });
    const result = fixture.model.requests[1]!.lastToolResult!.content;
    expect(result).toContain(`Stopped at a redirect to ${site.origin}/article: reaching 127.0.0.1 needs an operator's approval`);
    expect(result).toContain(askId);
    expect(result).toContain('Call web_fetch with that URL to ask for it.');
    expect(site.hits.get('/article') ?? 0).toBe(before);
  });

  it('built-in plan mode has web_fetch (research is its point, CAP-4), decided by the same domain rules', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'plan' } });
    await addRule({ kind: 'domain', domain: '127.0.0.1' }, 'allow');
    fixture.model.script(reply().tool('web_fetch', { url: `${site.origin}/article` }), reply().text('Researched; no plan needed.'));
    const detail = await fixture.waitForRun(await fixture.send('Research the release.'));
    expect(fixture.model.requests[0]!.toolNames).toContain('web_fetch');
    expect(fixture.model.requests[0]!.toolNames).not.toContain('web_search');
    expect(detail.toolCalls[0]).toMatchObject({ name: 'web_fetch', executed: true, isError: false, decision: 'allow' });
    expect(fixture.model.requests[1]!.lastToolResult!.content).toContain('Version 2 ships');
  });

  describe('web_search through Brave Search', () => {
    let brave: FakeBraveSearch;
    beforeAll(async () => {
      brave = await startFakeBraveSearch('BSA-test-key-123', [
        { title: 'Parser <strong>v2</strong> released', url: 'https://example.org/v2', description: 'The <strong>parser</strong> is faster.' },
        { title: 'Changelog', url: 'https://example.org/changelog', description: 'Every change.' },
      ]);
    });
    afterAll(async () => {
      await brave.close();
    });

    it('built-in web_search is absent until a key is set (write-only), then searches the configured provider', async () => {
      fixture = await startHarnessFixture();
      const settingsPath = `/api/workspaces/${fixture.workspaceId}/settings`;
      fixture.model.script(reply().text('no search here'));
      await fixture.waitForRun(await fixture.send('first'));
      expect(fixture.model.requests[0]!.toolNames).toContain('web_fetch');
      expect(fixture.model.requests[0]!.toolNames).not.toContain('web_search');

      const bad = await fixture.server.api('PATCH', settingsPath, { webSearchKeys: { brave: 'has spaces in it' } });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('webSearchKeys');
      const updated = await fixture.server.api('PATCH', settingsPath, { webSearchKeys: { brave: 'BSA-test-key-123' }, webSearchBaseUrl: brave.baseUrl });
      expect(updated.status).toBe(200);
      expect(updated.body.webSearchKeys).toEqual({ brave: 'set' });
      const read = await fixture.server.api('GET', settingsPath);
      expect(read.body.webSearchKeys).toEqual({ brave: 'set' });
      expect(JSON.stringify(read.body)).not.toContain('BSA-test-key-123');

      fixture.model.script(reply().tool('web_search', { query: 'parser v2 release', count: 5 }), reply().text('Found it.'));
      const detail = await fixture.waitForRun(await fixture.send('search please'));
      const searchRequest = fixture.model.requests.find((request) => request.toolNames.includes('web_search'));
      expect(searchRequest).toBeDefined();
      expect(detail.toolCalls[0]).toMatchObject({ name: 'web_search', executed: true, isError: false });
      expect(brave.requests.at(-1)).toEqual({ query: 'parser v2 release', count: '5', token: 'BSA-test-key-123' });
      const result = fixture.model.requests.at(-1)!.lastToolResult!.content;
      expect(result).toContain('Results from Brave Search for "parser v2 release":');
      expect(result).toContain('1. Parser v2 released\n   https://example.org/v2\n   The parser is faster.');

      // Removing the key removes the tool.
      expect((await fixture.server.api('PATCH', settingsPath, { webSearchKeys: { brave: null } })).body.webSearchKeys).toEqual({});
      fixture.model.script(reply().text('gone'));
      await fixture.waitForRun(await fixture.send('again'));
      expect(fixture.model.requests.at(-1)!.toolNames).not.toContain('web_search');
    });
  });

  it('domain rules are validated, shown, and testable in the policy probe by URL', async () => {
    fixture = await startHarnessFixture();
    const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
    for (const domain of ['https://example.com/', 'ex*ample.com', 'a..b', '']) {
      const refused = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'domain', domain }, decision: 'allow' });
      expect(refused.status, domain).toBe(400);
      expect(JSON.stringify(refused.body), domain).toContain('domain');
    }
    const wildcard = await addRule({ kind: 'domain', domain: '*.Example.com.' }, 'ask');
    const exact = await addRule({ kind: 'domain', domain: 'docs.example.com' }, 'allow');
    const spaceDeny = await addRule({ kind: 'domain', domain: 'docs.example.com' }, 'deny', { scope: 'space', scopeId: fixture.spaceId });
    const rules = (await api('GET', '/policy/rules')).body.rules;
    expect(rules.find((rule: any) => rule.id === wildcard).match).toEqual({ kind: 'domain', domain: '*.example.com' });

    const probe = async (body: Record<string, unknown>) => (await api('POST', '/policy/probe', body)).body;
    expect(await probe({ url: 'https://api.example.com/v1' })).toMatchObject({ decision: 'ask', decidedBy: { scope: 'workspace', ruleId: wildcard }, classes: ['networkEgress'], hostNamedByRule: false });
    expect(await probe({ url: 'https://DOCS.example.com/guide' })).toMatchObject({ decision: 'allow', decidedBy: { scope: 'workspace', ruleId: exact }, hostNamedByRule: true });
    expect(await probe({ url: 'https://docs.example.com/guide', spaceId: fixture.spaceId })).toMatchObject({ decision: 'deny', decidedBy: { scope: 'space', ruleId: spaceDeny }, hostNamedByRule: false });
    // The apex is not a subdomain of itself; the built-in default decides it.
    expect(await probe({ url: 'https://example.com/' })).toMatchObject({ decision: 'allow', decidedBy: { scope: 'default', ruleId: null } });
    // Decided as the address the fetch would use, whatever the spelling.
    await addRule({ kind: 'domain', domain: '127.0.0.1' }, 'deny');
    expect(await probe({ url: 'http://2130706433/' })).toMatchObject({ decision: 'deny' });
    const notHttp = await api('POST', '/policy/probe', { url: 'file:///etc/passwd' });
    expect(notHttp.status).toBe(400);
    expect(JSON.stringify(notHttp.body)).toContain('url');
  });
});
