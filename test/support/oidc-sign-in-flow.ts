import { last, type Hop, type OidcBrowser } from './oidc-browser.js';

const isCallback = (url: URL) => url.pathname === '/auth/oidc/callback';

/**
 * Walks a person through the provider's pages up to the redirect back to the server: starts at
 * `/auth/oidc/start`, signs in as `login` (oidc-provider's login form), consents, and stops before the
 * callback. Returns the callback URL the provider sent the browser to (code, state, iss).
 */
export async function callbackFromProvider(browser: OidcBrowser, serverUrl: string, login: string, returnTo?: string): Promise<string> {
  const start = `${serverUrl}/auth/oidc/start${returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(returnTo)}`}`;
  let hops = await browser.navigate(start, { stopBefore: isCallback });
  for (let step = 0; step < 4; step += 1) {
    const page = last(hops);
    const location = page.headers.get('location');
    if (location && isCallback(new URL(location, page.url))) return new URL(location, page.url).href;
    if (page.status !== 200) throw new Error(`the provider answered ${page.status} at ${page.url}: ${page.body.slice(0, 300)}`);
    const fields: Record<string, string> = page.body.includes('name="login"') ? { login, password: 'any' } : {};
    hops = await browser.submitForm(page, fields, { stopBefore: isCallback });
  }
  throw new Error(`the provider never sent the browser back: ${last(hops).url}`);
}

/** The whole sign-in: through the provider, then the server's callback. Returns the callback's answer. */
export async function signInWithProvider(browser: OidcBrowser, serverUrl: string, login: string, returnTo?: string): Promise<Hop> {
  return browser.request(await callbackFromProvider(browser, serverUrl, login, returnTo));
}
