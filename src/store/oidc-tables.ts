/**
 * TEAM-1, OpenID Connect sign-in: the owner's provider settings (one row, id `server`), which
 * provider account stands for which person, and the sign-ins under way between `/auth/oidc/start`
 * and the provider's redirect back.
 */
export interface OidcSettingsTable {
  id: string;
  /** 1 when the sign-in page offers the provider. Numbers: bigint on PostgreSQL. */
  enabled: number | string;
  /** What the sign-in button says: "Sign in with <provider_name>". */
  provider_name: string;
  issuer_url: string | null;
  client_id: string | null;
  /** Write-only: never returned by the API, only "set". */
  client_secret: string | null;
  /** Space-separated scopes asked for (always including `openid`). */
  scopes: string;
  /** The ID-token (or userinfo) claim that lists the person's groups. */
  groups_claim: string;
  /** JSON array of `{ group, workspaceId, role }`. */
  role_mappings: string;
  updated_at: string;
}

/** A provider account (issuer + subject, never the email) linked to a person. */
export interface OidcIdentityTable {
  issuer: string;
  subject: string;
  person_id: string;
  created_at: string;
  last_sign_in_at: string;
}

/**
 * A sign-in under way: found by the hash of its `state`, bound to the browser that started it by the
 * hash of a cookie, single-use (deleted when the provider's redirect comes back) and short-lived.
 * Kept in the registry, not in memory, so the redirect may come back to another API process.
 */
export interface OidcPendingSignInTable {
  state_hash: string;
  browser_hash: string;
  code_verifier: string;
  nonce: string;
  return_to: string;
  created_at: string;
  expires_at: string;
}
