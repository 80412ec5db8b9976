import * as oidc from 'openid-client';
import { sql } from 'kysely';
import { ConflictError, ForbiddenError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import { PersonName } from '../../schemas/people.js';
import type { RegistryStore } from '../../store/registry-store.js';
import { deleteRoles, insertPerson, roleIn, rolesOf, upsertRole } from '../../store/repositories/people-repository.js';
import type { OperatorSessions } from '../operator-sessions.js';
import type { CredentialRevocations } from './credential-revocations.js';
import { OidcProviderConfiguration } from './oidc-provider-configuration.js';
import type { OidcSettingsService } from './oidc-settings-service.js';
import { withAuditEntry } from '../audit/audit-act.js';
import { groupsOfClaim, rolesFromGroups, type ProviderRole } from './provider-roles.js';
import { hashSecret, newSecret } from './secret-hash.js';

/** The cookie that binds a sign-in under way to the browser that started it. */
export const OIDC_BROWSER_COOKIE = 'cc_oidc';
/** How long a sign-in may take at the provider: enough to type a password and pass a second factor. */
export const OIDC_SIGN_IN_TTL_MS = 10 * 60_000;

/** How a finished sign-in ended: a person to open a session for, or someone the mapping gives no workspace. */
export type OidcSignInOutcome = { kind: 'signedIn'; personId: string; returnTo: string } | { kind: 'noWorkspace'; name: string };

/** Claims as the provider sent them, the ID token's over userinfo's. */
type Claims = Record<string, unknown>;

/** A display name from the provider's claims: the first that passes the rules every name passes (no control or invisible characters). */
function nameOf(claims: Claims, subject: string): string {
  for (const candidate of [claims.name, claims.preferred_username, claims.email, subject]) {
    const parsed = PersonName.safeParse(typeof candidate === 'string' ? candidate.slice(0, 100) : undefined);
    if (parsed.success) return parsed.data;
  }
  return 'Signed in with single sign-on';
}

/**
 * Turns what openid-client refused into a 400 naming what was wrong: the state, the nonce, the ID
 * token (issuer, audience, signature, expiry), the code (expired, used, not ours) or the provider's own error.
 */
function refusalOf(error: unknown): ValidationError {
  // openid-client wraps the failing check (oauth4webapi's error, which says what was compared) as its cause.
  const failure = error as { code?: string; message?: string; error?: string; error_description?: string; cause?: { message?: string; cause?: { claim?: string } } };
  const message = failure.cause?.message ?? failure.message ?? String(error);
  const described = `${failure.error ?? ''} ${failure.error_description ?? ''}`.trim();
  if (failure.cause?.cause?.claim === 'nonce' || /"nonce"/.test(message)) return new ValidationError('nonce', `the ID token does not answer this sign-in: ${message}`);
  if (failure.code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR') return new ValidationError('error', `the provider refused the sign-in: ${described}`);
  if (failure.code === 'OAUTH_RESPONSE_BODY_ERROR') return new ValidationError('code', `the provider refused the code (expired, already used or not this client's): ${described}`);
  if (/"iss" \(issuer\) parameter|issuer parameter/i.test(message)) return new ValidationError('iss', message);
  if (/\bstate\b/i.test(message) && !/JWT|ID Token/i.test(message)) return new ValidationError('state', message);
  return new ValidationError('id_token', `the provider's answer failed validation: ${message}`);
}

/**
 * TEAM-1: sign-in through the owner's OpenID Connect provider — authorization code with PKCE,
 * state and nonce, validated by openid-client. A provider account is a person by issuer + subject;
 * on every sign-in the group → role mapping sets the person's roles in the workspaces it names.
 */
export class OidcSignIn {
  private readonly provider = new OidcProviderConfiguration();

  constructor(
    private readonly registry: RegistryStore,
    readonly settings: OidcSettingsService,
    private readonly sessions: OperatorSessions,
    private readonly revocations: CredentialRevocations,
  ) {}

  private get db() {
    return this.registry.db;
  }

  /** Whether the sign-in page offers the provider, and by which name. */
  async option(): Promise<{ enabled: boolean; providerName: string | null }> {
    const settings = await this.settings.runtime();
    return settings.enabled ? { enabled: true, providerName: settings.providerName } : { enabled: false, providerName: null };
  }

  /**
   * Starts a sign-in: the provider's authorization URL, and the secret the browser keeps in a cookie.
   * State, nonce and the PKCE verifier stay in the registry, found by the state's hash.
   */
  async start(returnTo: string): Promise<{ authorizationUrl: string; browserSecret: string }> {
    const settings = await this.settings.runtime();
    if (!settings.enabled) throw new ConflictError('oidc', 'OpenID Connect sign-in is not on for this server: the owner turns it on with `control-center people oidc set`');
    const configuration = await this.provider.of(settings);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const browserSecret = newSecret('oidcb_');
    const now = Date.now();
    await this.db.deleteFrom('oidc_pending_sign_ins').where('expires_at', '<', new Date(now).toISOString()).execute();
    await this.db
      .insertInto('oidc_pending_sign_ins')
      .values({
        state_hash: hashSecret(state),
        browser_hash: hashSecret(browserSecret),
        code_verifier: codeVerifier,
        nonce,
        return_to: returnTo,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + OIDC_SIGN_IN_TTL_MS).toISOString(),
      })
      .execute();
    const authorizationUrl = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: await this.settings.redirectUri(),
      scope: settings.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { authorizationUrl: authorizationUrl.href, browserSecret };
  }

  /**
   * Finishes a sign-in from the provider's redirect. The sign-in under way is claimed once (a
   * replayed or forged state finds nothing), must belong to this browser (no one signs a visitor
   * into their own account), and openid-client checks the code, the PKCE verifier, the nonce and the
   * ID token's issuer, audience, signature and expiry.
   */
  async finish(query: URLSearchParams, browserSecret: string | null): Promise<OidcSignInOutcome> {
    const settings = await this.settings.runtime();
    if (!settings.enabled) throw new ConflictError('oidc', 'OpenID Connect sign-in is not on for this server');
    const state = query.get('state');
    if (!state) throw new ValidationError('state', 'the provider sent no state: start the sign-in again');
    const pending = await this.db.deleteFrom('oidc_pending_sign_ins').where('state_hash', '=', hashSecret(state)).returningAll().executeTakeFirst();
    if (!pending || Date.parse(pending.expires_at) <= Date.now()) throw new ValidationError('state', 'this sign-in is unknown, already finished or expired: start it again');
    if (!browserSecret || hashSecret(browserSecret) !== pending.browser_hash) throw new ValidationError('state', 'this sign-in was started in another browser: start it again here');
    const configuration = await this.provider.of(settings);
    const currentUrl = new URL(await this.settings.redirectUri());
    currentUrl.search = query.toString();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, { pkceCodeVerifier: pending.code_verifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true });
    } catch (error) {
      throw refusalOf(error);
    }
    const idClaims = tokens.claims()!;
    const claims = await this.withUserInfo(configuration, tokens.access_token, idClaims, settings.groupsClaim);
    const roles = rolesFromGroups(groupsOfClaim(claims[settings.groupsClaim]), settings.roleMappings);
    const personId = await this.personFor(idClaims.iss, idClaims.sub, claims, roles.size > 0);
    if (!personId) return { kind: 'noWorkspace', name: nameOf(claims, idClaims.sub) };
    await this.applyRoles(personId, roles, new Set(settings.roleMappings.map((mapping) => mapping.workspaceId)), { providerName: settings.providerName, issuer: idClaims.iss });
    if ((await rolesOf(this.db, personId)).length === 0) return { kind: 'noWorkspace', name: nameOf(claims, idClaims.sub) };
    await this.db.updateTable('oidc_identities').set({ last_sign_in_at: nowIso() }).where('issuer', '=', idClaims.iss).where('subject', '=', idClaims.sub).execute();
    return { kind: 'signedIn', personId, returnTo: pending.return_to };
  }

  /** The ID token's claims, completed from userinfo when the groups claim is not in the ID token (many providers keep it there). */
  private async withUserInfo(configuration: oidc.Configuration, accessToken: string, idClaims: Claims & { sub: string }, groupsClaim: string): Promise<Claims> {
    if (idClaims[groupsClaim] !== undefined || !configuration.serverMetadata().userinfo_endpoint) return idClaims;
    try {
      const userInfo = await oidc.fetchUserInfo(configuration, accessToken, idClaims.sub);
      return { ...userInfo, ...idClaims };
    } catch (error) {
      throw new ValidationError('id_token', `the provider's userinfo could not be read: ${(error as Error).message}`);
    }
  }

  /**
   * The person a provider account stands for. Known accounts by issuer + subject (the only stable,
   * provider-unique pair: emails and names change and can be reused). A new account is linked to an
   * existing person only by an email the provider says is verified, never the owner's, and only when
   * that person has no account at this issuer yet; otherwise a new person is made — only when the
   * mapping gives them a workspace (`mayCreate`), so clicking the button makes no empty accounts.
   */
  private async personFor(issuer: string, subject: string, claims: Claims, mayCreate: boolean): Promise<string | null> {
    const identity = await this.db.selectFrom('oidc_identities').innerJoin('people', 'people.id', 'oidc_identities.person_id').select(['people.id', 'people.removed_at']).where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
    if (identity) {
      if (identity.removed_at !== null) throw new ForbiddenError('the owner removed this account: ask them to invite you again', 'authorization');
      return identity.id;
    }
    const email = typeof claims.email === 'string' ? claims.email : null;
    const verified = claims.email_verified === true;
    const at = nowIso();
    if (email && verified) {
      const existing = await this.db
        .selectFrom('people')
        .select('id')
        .where(sql<string>`lower(email)`, '=', email.toLowerCase())
        .where('removed_at', 'is', null)
        .where('is_owner', '=', 0)
        .where((where) => where.not(where.exists(where.selectFrom('oidc_identities').select('subject').whereRef('oidc_identities.person_id', '=', 'people.id').where('oidc_identities.issuer', '=', issuer))))
        .executeTakeFirst();
      if (existing) {
        await this.db.insertInto('oidc_identities').values({ issuer, subject, person_id: existing.id, created_at: at, last_sign_in_at: at }).execute();
        return existing.id;
      }
    }
    if (!mayCreate) return null;
    const personId = newId('pe');
    const emailFree = email && verified && !(await this.db.selectFrom('people').select('id').where(sql<string>`lower(email)`, '=', email.toLowerCase()).executeTakeFirst());
    await this.db.transaction().execute(async (trx) => {
      await insertPerson(trx, { id: personId, name: nameOf(claims, subject), email: emailFree ? email : null, owner: false, createdAt: at });
      await trx.insertInto('oidc_identities').values({ issuer, subject, person_id: personId, created_at: at, last_sign_in_at: at }).execute();
    });
    return personId;
  }

  /**
   * In every workspace the mapping names, the provider decides: the role becomes what the groups give,
   * or the person leaves the workspace when they give nothing (a group taken away at the provider
   * takes the role away here). Workspaces the mapping does not name keep the roles given by hand. A
   * change ends the person's other sessions and open streams, as any role change does (TEAM-2).
   * Each change is an audit entry in its own transaction (TEAM-3): old role → new role and the group
   * that decided, with the person signing in as the actor — their sign-in made it, the provider chose it.
   */
  private async applyRoles(personId: string, roles: Map<string, ProviderRole>, mapped: Set<string>, provider: { providerName: string | null; issuer: string }): Promise<void> {
    let changed = false;
    const at = nowIso();
    const person = await this.db.selectFrom('people').select('name').where('id', '=', personId).executeTakeFirstOrThrow();
    const actor = { kind: 'person' as const, id: personId, name: person.name };
    const via = `${provider.providerName ?? 'OpenID Connect'} sign-in`;
    for (const workspaceId of mapped) {
      const wanted = roles.get(workspaceId) ?? null;
      const held = await roleIn(this.db, workspaceId, personId);
      if ((wanted?.role ?? null) === held) continue;
      changed = true;
      const summary = wanted
        ? `${via}: ${person.name}'s role ${held ?? 'none'} → ${wanted.role} (group ${wanted.group})`
        : `${via}: took ${person.name} out of the workspace (was ${held}; none of their groups gives a role here)`;
      const act = { kind: 'person.role_changed_by_provider', actor, workspaceId, subject: { type: 'person', id: personId }, summary: summary.slice(0, 300), details: { previousRole: held, role: wanted?.role ?? null, group: wanted?.group ?? null, issuer: provider.issuer } };
      await withAuditEntry(this.db, act, async (trx) => {
        if (wanted) await upsertRole(trx, workspaceId, personId, wanted.role, at);
        else await deleteRoles(trx, personId, workspaceId);
      });
    }
    if (changed) {
      await this.sessions.endEverythingOf(personId);
      await this.revocations.announce({ personId });
    }
  }
}
