import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ValidationError } from '../../errors/index.js';
import { ApiError } from '../../schemas/common.js';
import { OidcSettings, OidcSignInOption, UpdateOidcSettingsBody } from '../../schemas/oidc.js';
import type { ControlCenter } from '../../services/control-center.js';
import { SESSION_TTL_MS } from '../../services/operator-sessions.js';
import { OIDC_BROWSER_COOKIE, OIDC_SIGN_IN_TTL_MS } from '../../services/people/oidc-sign-in.js';
import { cookieOf } from '../authenticate.js';
import { sameOriginPath } from '../same-origin-path.js';
import { sessionCookie } from './auth-routes.js';
import { noWorkspacePage } from './oidc-no-workspace-page.js';

const tags = ['auth'];

/** The provider's answer (RFC 6749 §4.1.2, RFC 9207's `iss`); other parameters it adds are passed to openid-client as sent. */
const ProviderParameter = z.string().max(4000).optional();
const CallbackQuery = z.looseObject({ code: ProviderParameter, state: ProviderParameter, iss: ProviderParameter, error: ProviderParameter, error_description: ProviderParameter, session_state: ProviderParameter });

/**
 * The cookie binding a sign-in under way to this browser. SameSite=Lax, not Strict: the provider's
 * redirect back is a cross-site top-level navigation, which a Strict cookie would not ride along.
 * Scoped to the OIDC paths and short-lived; HttpOnly so no script reads it.
 */
function browserCookie(value: string, maxAgeSeconds: number): string {
  return `${OIDC_BROWSER_COOKIE}=${value}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}`;
}

/**
 * TEAM-1: OpenID Connect sign-in — the owner's settings (owner-only; the client secret write-only),
 * what the sign-in page offers (public), and the two browser legs of the authorization code flow
 * (public by necessity: the person is not signed in yet; state, nonce, PKCE and the browser cookie
 * are the credentials).
 */
export function oidcRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get('/api/oidc', { config: { role: 'owner' }, schema: { tags, summary: 'OpenID Connect sign-in settings (the client secret only as set / not set)', response: { 200: OidcSettings } } }, async () =>
      app.oidc.settings.view(),
    );
    server.patch(
      '/api/oidc',
      {
        config: { role: 'owner' },
        schema: { tags, summary: 'Change the OpenID Connect settings: provider, client, scopes, groups claim, group → role mapping', body: UpdateOidcSettingsBody, response: { 200: OidcSettings, 400: ApiError } },
      },
      async (request) => app.oidc.settings.update(request.body),
    );
    server.get('/api/auth/oidc', { config: { access: 'public' }, schema: { tags, summary: 'Whether the sign-in page offers OpenID Connect, and the provider name', response: { 200: OidcSignInOption } } }, async () =>
      app.oidc.option(),
    );
    server.get(
      '/auth/oidc/start',
      { config: { access: 'public' }, schema: { tags, summary: 'Start signing in at the provider', querystring: z.strictObject({ returnTo: z.string().max(2000).optional() }), response: { 303: z.null(), 400: ApiError, 409: ApiError } } },
      async (request, reply) => {
        const returnTo = request.query.returnTo === undefined ? '/' : sameOriginPath(request.query.returnTo);
        if (returnTo === null) throw new ValidationError('returnTo', 'must be a path on this server (starting with one "/"), never another site');
        const { authorizationUrl, browserSecret } = await app.oidc.start(returnTo);
        return reply
          .code(303)
          .header('set-cookie', browserCookie(browserSecret, Math.floor(OIDC_SIGN_IN_TTL_MS / 1000)))
          .header('cache-control', 'no-store')
          .header('location', authorizationUrl)
          .send(null);
      },
    );
    server.get(
      '/auth/oidc/callback',
      {
        config: { access: 'public' },
        schema: { tags, summary: "The provider's redirect back: opens a browser session", querystring: CallbackQuery, response: { 303: z.null(), 400: ApiError, 403: z.union([ApiError, z.string()]), 409: ApiError } },
      },
      async (request, reply) => {
        // A repeated or non-text parameter is not the provider's answer: refused rather than flattened.
        const entries = Object.entries(request.query);
        const odd = entries.find(([, value]) => typeof value !== 'string');
        if (odd) throw new ValidationError(odd[0], 'must appear once, as text');
        const query = new URLSearchParams(entries as Array<[string, string]>);
        const outcome = await app.oidc.finish(query, cookieOf(request, OIDC_BROWSER_COOKIE));
        reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        if (outcome.kind === 'noWorkspace') {
          const { providerName } = await app.oidc.option();
          return reply
            .code(403)
            .header('set-cookie', browserCookie('', 0))
            .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
            .type('text/html; charset=utf-8')
            .send(noWorkspacePage({ name: outcome.name, providerName: providerName ?? 'Your provider' }));
        }
        const { session } = await app.sessions.openSession({ operatorId: outcome.personId, readOnly: false });
        return reply
          .code(303)
          .header('set-cookie', [sessionCookie(session, Math.floor(SESSION_TTL_MS / 1000)), browserCookie('', 0)])
          .header('location', outcome.returnTo)
          .send(null);
      },
    );
  };
}
