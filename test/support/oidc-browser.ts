/** One response of a navigation, as a browser would have seen it. */
export interface Hop {
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

/**
 * Just enough of a browser to walk an OpenID Connect sign-in over real HTTP: a cookie jar per host
 * (name → value; expiry by Max-Age=0 only), redirects followed by hand so every hop can be inspected,
 * and form posts. Not a general browser: tests of the web app use playwright.
 */
export class OidcBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  cookiesFor(url: string): Map<string, string> {
    const host = new URL(url).host;
    let cookies = this.jar.get(host);
    if (!cookies) this.jar.set(host, (cookies = new Map()));
    return cookies;
  }

  cookieHeader(url: string): string {
    return [...this.cookiesFor(url)].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(url: string, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute)) || value === '';
      if (expired) this.cookiesFor(url).delete(name);
      else this.cookiesFor(url).set(name, value);
    }
  }

  /** One request, no redirect followed. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Hop> {
    const headers: Record<string, string> = { cookie: this.cookieHeader(url) };
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = new URL(url).origin;
    }
    const response = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), redirect: 'manual', headers, ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}) });
    this.remember(url, response);
    return { url, status: response.status, headers: response.headers, body: await response.text() };
  }

  /** Requests `url` and follows redirects until an answer that is not one (or `stopBefore` says so); returns every hop. */
  async navigate(url: string, init: { form?: Record<string, string>; stopBefore?: (next: URL) => boolean } = {}): Promise<Hop[]> {
    const hops: Hop[] = [];
    let hop = await this.request(url, init.form ? { form: init.form } : {});
    hops.push(hop);
    while (hop.status >= 300 && hop.status < 400 && hop.headers.get('location')) {
      const next = new URL(hop.headers.get('location')!, hop.url);
      if (init.stopBefore?.(next)) break;
      hop = await this.request(next.href);
      hops.push(hop);
      if (hops.length > 20) throw new Error(`too many redirects from ${url}`);
    }
    return hops;
  }

  /** Submits the first form of a page with these fields (the form's hidden fields included). */
  async submitForm(page: Hop, fields: Record<string, string>, options: { stopBefore?: (next: URL) => boolean } = {}): Promise<Hop[]> {
    const action = /<form[^>]*action="([^"]+)"/.exec(page.body)?.[1];
    if (!action) throw new Error(`no form on ${page.url} (${page.status}): ${page.body.slice(0, 300)}`);
    const hidden = Object.fromEntries([...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((match) => [match[1]!, match[2]!]));
    return this.navigate(new URL(action.replace(/&amp;/g, '&'), page.url).href, { form: { ...hidden, ...fields }, ...options });
  }
}

/** The last hop of a navigation. */
export function last(hops: Hop[]): Hop {
  return hops[hops.length - 1]!;
}
