import * as oidc from 'openid-client';
import { ValidationError } from '../../errors/index.js';
import type { OidcRuntimeSettings } from './oidc-settings-service.js';

/** Whether an issuer URL names this machine (where plain http is tolerated: a provider for tests, local development). */
export function isLoopbackIssuer(issuerUrl: string): boolean {
  const host = new URL(issuerUrl).hostname;
  return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** How long the provider may take to answer discovery: a stuck provider must not hold a sign-in forever. */
const DISCOVERY_TIMEOUT_SECONDS = 10;

/**
 * The provider's discovered configuration (endpoints, keys), fetched once per settings version and
 * reused: each sign-in then costs the provider's token request and nothing more. openid-client checks
 * that the discovered issuer is exactly the configured one.
 */
export class OidcProviderConfiguration {
  private cached: { version: string; configuration: Promise<oidc.Configuration> } | null = null;

  async of(settings: OidcRuntimeSettings): Promise<oidc.Configuration> {
    if (!settings.issuerUrl || !settings.clientId) throw new ValidationError('oidc', 'OpenID Connect sign-in is not set up: the owner sets an issuer and a client id');
    const version = `${settings.updatedAt}|${settings.issuerUrl}|${settings.clientId}`;
    if (this.cached?.version !== version) {
      const configuration = discover(settings.issuerUrl, settings.clientId, settings.clientSecret);
      this.cached = { version, configuration };
      // A failed discovery is not kept: the next sign-in tries again.
      configuration.catch(() => {
        if (this.cached?.configuration === configuration) this.cached = null;
      });
    }
    return this.cached.configuration;
  }
}

async function discover(issuerUrl: string, clientId: string, clientSecret: string | null): Promise<oidc.Configuration> {
  const insecure = issuerUrl.startsWith('http:') && isLoopbackIssuer(issuerUrl);
  try {
    return await oidc.discovery(new URL(issuerUrl), clientId, clientSecret ?? undefined, clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(), {
      timeout: DISCOVERY_TIMEOUT_SECONDS,
      // The ID token's signature is checked against the provider's published keys too, not only the
      // TLS of the token request (which OpenID Connect would allow): a token a stranger signed is refused
      // even when the path to the token endpoint is not what it should be.
      execute: [...(insecure ? [oidc.allowInsecureRequests] : []), oidc.enableNonRepudiationChecks],
    });
  } catch (error) {
    throw new ValidationError('issuerUrl', `the provider at ${issuerUrl} could not be discovered: ${(error as Error).message}`);
  }
}
