import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

/** What the next ID token says, given what an honest one would: a test rewrites a claim or the signing key. */
export type IdTokenForgery = (honest: JWTPayload) => { claims: JWTPayload; signWithStrangerKey?: boolean };

/**
 * A minimal OpenID provider whose token endpoint answers what a test tells it: an ID token for
 * another issuer or audience, a wrong nonce, an expired one, or one signed with a key not in its
 * JWKS. It speaks the real protocol (discovery, JWKS, authorize redirect, token endpoint), so the
 * server under test validates exactly what it would from a provider gone wrong or a forger in the path.
 */
export interface HostileOidcProvider {
  issuer: string;
  clientId: string;
  forge: IdTokenForgery;
  close(): Promise<void>;
}

export async function startHostileOidcProvider(): Promise<HostileOidcProvider> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const nonces = new Map<string, string>();
  const state: HostileOidcProvider = {
    issuer,
    clientId: 'control-center',
    forge: (honest) => ({ claims: honest }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  server.on('request', (request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', issuer);
      const json = (body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname === '/.well-known/openid-configuration') {
        return json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (url.pathname === '/jwks') return json({ keys: [jwk] });
      if (url.pathname === '/authorize') {
        // Signs everyone in at once as `mallory`, remembering the nonce the client sent for the code.
        const code = `code-${nonces.size + 1}`;
        nonces.set(code, url.searchParams.get('nonce') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        return response.writeHead(303, { location: back.href }).end();
      }
      if (url.pathname === '/token') {
        let body = '';
        for await (const chunk of request) body += String(chunk);
        const code = new URLSearchParams(body).get('code') ?? '';
        const now = Math.floor(Date.now() / 1000);
        const honest: JWTPayload = { iss: issuer, sub: 'mallory', aud: state.clientId, iat: now, exp: now + 300, nonce: nonces.get(code), name: 'Mallory', groups: ['eng'] };
        const { claims, signWithStrangerKey } = state.forge(honest);
        const idToken = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(signWithStrangerKey ? stranger.privateKey : privateKey);
        return json({ access_token: `at-${code}`, token_type: 'Bearer', expires_in: 300, id_token: idToken });
      }
      response.writeHead(404).end();
    })();
  });
  return state;
}
