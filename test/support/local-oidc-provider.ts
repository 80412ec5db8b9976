import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** An account at the local provider: what its claims say, groups included; tests change them between sign-ins. */
export interface ProviderAccount {
  name: string;
  email?: string;
  email_verified?: boolean;
  groups: string[];
}

/** A real OpenID Connect provider (`oidc-provider`) on 127.0.0.1, with one confidential client and accounts that have groups. */
export interface LocalOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, ProviderAccount>;
  /** While true, authorization codes live one second (to test an expired code). */
  shortCodes: boolean;
  close(): Promise<void>;
}

/**
 * Starts the provider. Its login and consent pages are oidc-provider's development interactions
 * (any password; the login names the account), driven by the tests over HTTP like a browser would.
 * Groups are released through the `groups` scope, to userinfo (oidc-provider keeps scope claims out
 * of the ID token by default, as many real providers do).
 */
export async function startLocalOidcProvider(redirectUri: string, accounts: Record<string, ProviderAccount>): Promise<LocalOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state: LocalOidcProvider = {
    issuer,
    clientId: 'control-center',
    clientSecret: 'a-client-secret-for-tests-only',
    accounts: new Map(Object.entries(accounts)),
    shortCodes: false,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const provider = new Provider(issuer, {
    clients: [{ client_id: state.clientId, client_secret: state.clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    async findAccount(_context, id) {
      const account = state.accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['local-provider-cookie-key'] },
    ttl: { AuthorizationCode: () => (state.shortCodes ? 1 : 60), AccessToken: 600, IdToken: 600, Grant: 600, Session: 600, Interaction: 600 },
  });
  server.on('request', provider.callback());
  return state;
}
