import { ValidationError } from '../../errors/index.js';
import { nowIso } from '../../ids.js';
import type { OidcRoleMapping, OidcSettings, UpdateOidcSettingsBody } from '../../schemas/oidc.js';
import type { RegistryStore } from '../../store/registry-store.js';
import type { OidcSettingsTable } from '../../store/oidc-tables.js';
import { isLoopbackIssuer } from './oidc-provider-configuration.js';

const SETTINGS_ID = 'server';
const DEFAULT_SCOPES = ['openid', 'profile', 'email', 'groups'];
export const DEFAULT_GROUPS_CLAIM = 'groups';
/** The path the provider sends the browser back to; the full redirect URI is the server's public URL + this. */
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';

/** The settings as the sign-in flow uses them (the secret included). */
export interface OidcRuntimeSettings {
  enabled: boolean;
  providerName: string;
  issuerUrl: string | null;
  clientId: string | null;
  clientSecret: string | null;
  scopes: string[];
  groupsClaim: string;
  roleMappings: OidcRoleMapping[];
  /** Changes whenever the settings do: the provider's discovered configuration is cached by it. */
  updatedAt: string | null;
}

const NOT_SET: OidcRuntimeSettings = { enabled: false, providerName: 'single sign-on', issuerUrl: null, clientId: null, clientSecret: null, scopes: DEFAULT_SCOPES, groupsClaim: DEFAULT_GROUPS_CLAIM, roleMappings: [], updatedAt: null };

function toRuntime(row: OidcSettingsTable): OidcRuntimeSettings {
  return {
    enabled: Number(row.enabled) === 1,
    providerName: row.provider_name,
    issuerUrl: row.issuer_url,
    clientId: row.client_id,
    clientSecret: row.client_secret,
    scopes: row.scopes.split(' ').filter((scope) => scope !== ''),
    groupsClaim: row.groups_claim,
    roleMappings: JSON.parse(row.role_mappings) as OidcRoleMapping[],
    updatedAt: row.updated_at,
  };
}

/**
 * TEAM-1: the owner's OpenID Connect settings — which provider, which client, which claim carries
 * groups, and which group gives which role in which workspace. One row in the registry, so every API
 * process reads the same; the client secret is write-only like model keys.
 */
export class OidcSettingsService {
  /** The address this server listens on: the redirect URI uses it when the owner set no public URL. */
  private serverUrl = 'http://127.0.0.1:4317';

  constructor(
    private readonly registry: RegistryStore,
    private readonly workspaceExists: (workspaceId: string) => Promise<boolean>,
  ) {}

  private get db() {
    return this.registry.db;
  }

  setServerUrl(url: string): void {
    this.serverUrl = url;
  }

  /**
   * Where the provider sends the browser back: the public URL the owner set for links (notification
   * settings), else the address the server listens on. Never the request's Host header, which the
   * caller chooses.
   */
  async redirectUri(): Promise<string> {
    const row = await this.db.selectFrom('notification_settings').select('public_url').executeTakeFirst();
    return `${(row?.public_url ?? this.serverUrl).replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`;
  }

  async runtime(): Promise<OidcRuntimeSettings> {
    const row = await this.db.selectFrom('oidc_settings').selectAll().where('id', '=', SETTINGS_ID).executeTakeFirst();
    return row ? toRuntime(row) : NOT_SET;
  }

  async view(): Promise<OidcSettings> {
    const settings = await this.runtime();
    return {
      enabled: settings.enabled,
      providerName: settings.providerName,
      issuerUrl: settings.issuerUrl,
      clientId: settings.clientId,
      clientSecret: settings.clientSecret ? 'set' : 'not set',
      redirectUri: await this.redirectUri(),
      scopes: settings.scopes,
      groupsClaim: settings.groupsClaim,
      roleMappings: settings.roleMappings,
      updatedAt: settings.updatedAt,
    };
  }

  /**
   * Applies a change. Refused (400, nothing stored) when the result could not work: enabled without an
   * issuer or client id, an http issuer that is not on this machine, a mapping into a workspace that
   * does not exist.
   */
  async update(changes: UpdateOidcSettingsBody): Promise<OidcSettings> {
    const current = await this.runtime();
    const next: OidcRuntimeSettings = {
      enabled: changes.enabled ?? current.enabled,
      providerName: changes.providerName ?? current.providerName,
      issuerUrl: changes.issuerUrl === undefined ? current.issuerUrl : changes.issuerUrl.replace(/\/+$/, ''),
      clientId: changes.clientId ?? current.clientId,
      clientSecret: changes.clientSecret === undefined ? current.clientSecret : changes.clientSecret,
      // `openid` is what makes this OpenID Connect rather than plain OAuth: always asked for.
      scopes: changes.scopes === undefined ? current.scopes : ['openid', ...new Set(changes.scopes.filter((scope) => scope !== 'openid'))],
      groupsClaim: changes.groupsClaim ?? current.groupsClaim,
      roleMappings: changes.roleMappings ?? current.roleMappings,
      updatedAt: nowIso(),
    };
    // Plain http leaks the code and tokens to anyone on the path; it is allowed only on this machine (a provider for tests, local development).
    if (next.issuerUrl && next.issuerUrl.startsWith('http:') && !isLoopbackIssuer(next.issuerUrl)) {
      throw new ValidationError('issuerUrl', 'the issuer must use https (plain http is accepted only for a provider on this machine)');
    }
    if (next.enabled && !next.issuerUrl) throw new ValidationError('issuerUrl', 'set the issuer URL before turning OpenID Connect sign-in on');
    if (next.enabled && !next.clientId) throw new ValidationError('clientId', 'set the client id before turning OpenID Connect sign-in on');
    for (const [index, mapping] of next.roleMappings.entries()) {
      if (!(await this.workspaceExists(mapping.workspaceId))) throw new ValidationError(`roleMappings.${index}.workspaceId`, `workspace '${mapping.workspaceId}' not found`);
    }
    const values: OidcSettingsTable = {
      id: SETTINGS_ID,
      enabled: next.enabled ? 1 : 0,
      provider_name: next.providerName,
      issuer_url: next.issuerUrl,
      client_id: next.clientId,
      client_secret: next.clientSecret,
      scopes: next.scopes.join(' '),
      groups_claim: next.groupsClaim,
      role_mappings: JSON.stringify(next.roleMappings),
      updated_at: next.updatedAt!,
    };
    const { id: _id, ...updates } = values;
    await this.db.insertInto('oidc_settings').values(values).onConflict((conflict) => conflict.column('id').doUpdateSet(updates)).execute();
    return this.view();
  }
}
