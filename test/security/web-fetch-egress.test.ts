import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchWebPage, type FetchWebPageOptions, type HopDecision, type ResolveHost, type WebFetchOutcome } from '../../src/tools/web/fetch-web-page.js';
import { redirectTo, serve, startLocalWebSite, type LocalWebSite } from '../support/local-web-site.js';

/**
 * TOOL-1's address guard, against a real HTTP server on loopback: web_fetch reaches only public
 * addresses unless a rule names the exact host; every spelling of loopback is loopback; a redirect is
 * checked again; caps hold.
 */
let site: LocalWebSite;
beforeAll(async () => {
  site = await startLocalWebSite();
  site.page('/secret', serve('text/plain', 'the secret'));
  site.page('/hop', redirectTo('/secret'));
});
afterAll(async () => {
  await site.close();
});

const noRuleNamesIt = async (): Promise<HopDecision> => ({ allowed: true, hostNamedByRule: false });
/** A rule names exactly these hosts (as a `domain` allow rule would). */
const named =
  (...hosts: string[]) =>
  async (url: URL): Promise<HopDecision> => ({ allowed: true, hostNamedByRule: hosts.includes(url.hostname.replace(/^\[|\]$/g, '')) });

async function fetchWith(url: string, decideHop: FetchWebPageOptions['decideHop'] = noRuleNamesIt, extra: { resolveHost?: ResolveHost; limits?: Record<string, number> } = {}): Promise<WebFetchOutcome> {
  return fetchWebPage(url, { decideHop, signal: new AbortController().signal, ...extra });
}

function refusal(outcome: WebFetchOutcome): string {
  return outcome.ok ? `fetched ${outcome.url}` : `${outcome.refusal}: ${outcome.reason}`;
}

describe('web_fetch address guard (TOOL-1, security)', () => {
  it.each([
    ['loopback by address (the Control Center’s own kind of port)', (port: number) => `http://127.0.0.1:${port}/secret`],
    ['loopback by name, resolved through the system resolver', (port: number) => `http://localhost:${port}/secret`],
    ['loopback as a decimal number', (port: number) => `http://2130706433:${port}/secret`],
    ['loopback in octal', (port: number) => `http://0177.0.0.1:${port}/secret`],
    ['loopback in hex, shortened', (port: number) => `http://0x7f.1:${port}/secret`],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/secret`],
    ['IPv4-mapped IPv6 loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/secret`],
  ])('refuses %s, and the server is never reached', async (_label, url) => {
    const before = site.hits.get('/secret') ?? 0;
    const outcome = await fetchWith(url(site.port));
    expect(refusal(outcome)).toMatch(/^address: Refused: .*(loopback|::1)/);
    expect(site.hits.get('/secret') ?? 0).toBe(before);
  });

  it.each([
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', /link-local \(cloud metadata\)/],
    ['a private network (10/8)', 'http://10.1.2.3/', /private network/],
    ['a private network (192.168/16)', 'http://192.168.0.1/', /private network/],
    ['carrier-grade NAT', 'http://100.64.0.1/', /carrier-grade NAT/],
    ['IPv6 unique local', 'http://[fd00::1]/', /unique local/],
    ['IPv6 link-local', 'http://[fe80::1]/', /link-local/],
    ['multicast', 'http://224.0.0.1/', /multicast/],
    ['0.0.0.0', 'http://0.0.0.0/', /this network/],
    ['the metadata address, IPv4-mapped in hex', 'http://[::ffff:a9fe:a9fe]/', /carries .*link-local \(cloud metadata\)/],
    ['loopback carried by NAT64 (64:ff9b::/96)', 'http://[64:ff9b::7f00:1]/', /carries .*loopback/],
    ['loopback carried by 6to4 (2002::/16)', 'http://[2002:7f00:1::]/', /carries .*loopback/],
    ['IPv4-translated (::ffff:0:0:0/96)', 'http://[::ffff:0:7f00:1]/', /IPv4-translated/],
    ['local-use NAT64 (64:ff9b:1::/48)', 'http://[64:ff9b:1::7f00:1]/', /local-use NAT64/],
  ])('refuses %s before connecting', async (_label, url, reason) => {
    const outcome = await fetchWith(url);
    expect(outcome.ok).toBe(false);
    expect(refusal(outcome)).toMatch(reason);
  });

  it('reaches a loopback address when a rule names that exact host', async () => {
    const outcome = await fetchWith(`http://127.0.0.1:${site.port}/secret`, named('127.0.0.1'));
    expect(outcome.ok && outcome.body.toString()).toBe('the secret');
    const byName = await fetchWith(`http://localhost:${site.port}/secret`, named('localhost'));
    expect(byName.ok && byName.body.toString()).toBe('the secret');
  });

  it('re-checks a redirect: a named host redirecting to an unnamed loopback address is refused at that hop', async () => {
    site.page('/to-loopback', redirectTo(`http://127.0.0.1:${site.port}/secret`));
    const before = site.hits.get('/secret') ?? 0;
    const outcome = await fetchWith(`http://localhost:${site.port}/to-loopback`, named('localhost'));
    expect(refusal(outcome)).toMatch(/^address: Refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1 is loopback/);
    expect(outcome.ok ? [] : outcome.redirects).toEqual([`http://localhost:${site.port}/to-loopback`]);
    expect(site.hits.get('/secret') ?? 0).toBe(before);
    // The same redirect on the named host itself is followed.
    const same = await fetchWith(`http://localhost:${site.port}/hop`, named('localhost'));
    expect(same.ok && same.body.toString()).toBe('the secret');
  });

  it('asks the policy again at every hop, and stops where it says no', async () => {
    const asked: string[] = [];
    const outcome = await fetchWith(`http://localhost:${site.port}/hop`, async (url, hop) => {
      asked.push(`${hop} ${url.pathname}`);
      return hop === 0 ? { allowed: true, hostNamedByRule: true } : { allowed: false, reason: 'Refused: denied by rule r_x' };
    });
    expect(asked).toEqual(['0 /hop', '1 /secret']);
    expect(refusal(outcome)).toBe('policy: Refused: denied by rule r_x');
  });

  it('resolves a name once, checks every address it has, and connects to the address it checked (no second lookup)', async () => {
    let lookups = 0;
    // A name no DNS knows: only the pinned answer can make the connection reach the local site.
    const pinned: ResolveHost = async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const outcome = await fetchWith(`http://pinned.invalid:${site.port}/secret`, named('pinned.invalid'), { resolveHost: pinned });
    expect(outcome.ok && [outcome.address, outcome.body.toString()]).toEqual(['127.0.0.1', 'the secret']);
    expect(lookups).toBe(1);
    // Every checked address is offered to the connection, so a first one that does not answer (::1 here) falls through to the next checked one.
    const twoFamilies: ResolveHost = async () => [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    const dual = await fetchWith(`http://dual.invalid:${site.port}/secret`, named('dual.invalid'), { resolveHost: twoFamilies });
    expect(dual.ok && [dual.address, dual.body.toString()]).toEqual(['127.0.0.1', 'the secret']);
    // A name with one public and one loopback address is refused whatever order the resolver gives.
    const mixed: ResolveHost = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect(refusal(await fetchWith(`http://rebind.invalid:${site.port}/secret`, noRuleNamesIt, { resolveHost: mixed }))).toMatch(/^address: .*127\.0\.0\.1 is loopback/);
  });

  it('fetches http(s) only', async () => {
    expect(refusal(await fetchWith('file:///etc/passwd'))).toBe('url: Refused: file: URLs are not fetched; http and https only.');
    expect(refusal(await fetchWith('ftp://example.com/x'))).toMatch(/^url: Refused: ftp:/);
    site.page('/to-file', redirectTo('file:///etc/passwd'));
    expect(refusal(await fetchWith(`http://127.0.0.1:${site.port}/to-file`, named('127.0.0.1')))).toMatch(/^url: Refused: file:/);
  });

  it('stops after the redirect cap', async () => {
    site.page('/loop', redirectTo('/loop'));
    const outcome = await fetchWith(`http://127.0.0.1:${site.port}/loop`, named('127.0.0.1'), { limits: { maxRedirects: 3 } });
    expect(refusal(outcome)).toMatch(/^redirects: Refused: more than 3 redirects/);
  });

  it('aborts a body over the size cap, declared or streamed', async () => {
    const big = 'x'.repeat(256 * 1024);
    site.page('/big-declared', serve('text/plain', big));
    site.page('/big-streamed', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      // No content-length: the cap must stop the stream itself.
      for (let chunk = 0; chunk < 16; chunk += 1) response.write('y'.repeat(16 * 1024));
      response.end();
    });
    const limits = { maxBytes: 64 * 1024 };
    expect(refusal(await fetchWith(`http://127.0.0.1:${site.port}/big-declared`, named('127.0.0.1'), { limits }))).toMatch(/^size: Refused: the page is 262144 bytes, over the 65536-byte cap/);
    expect(refusal(await fetchWith(`http://127.0.0.1:${site.port}/big-streamed`, named('127.0.0.1'), { limits }))).toMatch(/^size: Refused: the page passed the 65536-byte cap/);
  });

  it('stops a server that never finishes at the time cap', async () => {
    site.page('/slow', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('a start, and then nothing');
    });
    const outcome = await fetchWith(`http://127.0.0.1:${site.port}/slow`, named('127.0.0.1'), { limits: { timeoutMs: 300 } });
    expect(refusal(outcome)).toMatch(/^timeout: Refused: the fetch took longer than 300 ms/);
  });

  it('refuses a content type that is not text, HTML, JSON or XML without reading it', async () => {
    site.page('/image', serve('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0])));
    site.page('/binary', serve('application/octet-stream', Buffer.alloc(64)));
    expect(refusal(await fetchWith(`http://127.0.0.1:${site.port}/image`, named('127.0.0.1')))).toBe('contentType: Refused: the content type is image/png; web_fetch reads text, HTML, JSON and XML only.');
    expect(refusal(await fetchWith(`http://127.0.0.1:${site.port}/binary`, named('127.0.0.1')))).toMatch(/^contentType: .*application\/octet-stream/);
  });
});
