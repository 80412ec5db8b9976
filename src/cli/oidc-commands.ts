import { InvalidArgumentError, type Command } from 'commander';
import type { OidcRoleMapping, OidcSettings } from '../schemas/oidc.js';
import type { OperatorCommandContext } from './operator-commands.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
/** The client secret is read from the environment, never from an argument (arguments show in `ps`). */
const CLIENT_SECRET_VARIABLE = 'CONTROL_CENTER_OIDC_CLIENT_SECRET';
const ROLES = ['admin', 'member', 'viewer'] as const;

function parseRole(value: string): OidcRoleMapping['role'] {
  if (!(ROLES as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
  return value as OidcRoleMapping['role'];
}

/** The mapping without `group`'s rule for one workspace. */
function withoutMapping(mappings: OidcRoleMapping[], group: string, workspaceId: string): OidcRoleMapping[] {
  return mappings.filter((mapping) => !(mapping.group === group && mapping.workspaceId === workspaceId));
}

function print(settings: OidcSettings, asJson: boolean | undefined): void {
  if (asJson) return out(JSON.stringify(settings, null, 2));
  out(`OpenID Connect sign-in: ${settings.enabled ? 'on' : 'off'} ("Sign in with ${settings.providerName}")`);
  out(`issuer: ${settings.issuerUrl ?? '(not set)'}`);
  out(`client: ${settings.clientId ?? '(not set)'}, secret ${settings.clientSecret}`);
  out(`redirect URI (register it with the provider): ${settings.redirectUri}`);
  out(`scopes: ${settings.scopes.join(' ')}; groups claim: ${settings.groupsClaim}`);
  if (settings.roleMappings.length === 0) out('mapping: (none — nobody gets a workspace through the provider)');
  for (const mapping of settings.roleMappings) out(`  group ${mapping.group} → ${mapping.role} in ${mapping.workspaceId}`);
}

/**
 * `control-center people oidc show | set | map | unmap` (TEAM-1): the owner's OpenID Connect
 * settings and group → role mapping from the terminal, through the same owner-only API as the web.
 */
export function registerOidcCommands(people: Command, context: OperatorCommandContext): void {
  const oidc = people.command('oidc').description('sign-in through an OpenID Connect provider, and which provider group gives which role where (the owner)');

  oidc
    .command('show', { isDefault: true })
    .description('the settings (the client secret only as set / not set) and the mapping')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      print(await (await context.client()).request<OidcSettings>('GET', '/api/oidc'), options.json);
    });

  oidc
    .command('set')
    .description(`change the settings; the client secret comes from $${CLIENT_SECRET_VARIABLE}`)
    .option('--issuer <url>', "the provider's issuer URL (https; http only on this machine)")
    .option('--client-id <id>')
    .option('--name <name>', 'what the sign-in button says: "Sign in with <name>"')
    .option('--scopes <list>', 'comma-separated scopes (openid is always asked for)')
    .option('--groups-claim <claim>', 'the claim that lists a person\'s groups (default: groups)')
    .option('--on', 'offer the provider on the sign-in page')
    .option('--off', 'stop offering it (sessions already open stay until they end)')
    .option('--json', 'print JSON')
    .action(async (options: { issuer?: string; clientId?: string; name?: string; scopes?: string; groupsClaim?: string; on?: boolean; off?: boolean; json?: boolean }) => {
      if (options.on && options.off) throw new InvalidArgumentError('--on or --off, not both');
      const secret = process.env[CLIENT_SECRET_VARIABLE];
      const changes = {
        ...(options.issuer !== undefined ? { issuerUrl: options.issuer } : {}),
        ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
        ...(options.name !== undefined ? { providerName: options.name } : {}),
        ...(options.scopes !== undefined ? { scopes: options.scopes.split(',').map((scope) => scope.trim()).filter(Boolean) } : {}),
        ...(options.groupsClaim !== undefined ? { groupsClaim: options.groupsClaim } : {}),
        ...(options.on ? { enabled: true } : options.off ? { enabled: false } : {}),
        ...(secret ? { clientSecret: secret } : {}),
      };
      print(await (await context.client()).request<OidcSettings>('PATCH', '/api/oidc', changes), options.json);
    });

  oidc
    .command('map <group> <role>')
    .description('members of <group> at the provider get <role> (admin, member or viewer) in the workspace, from their next sign-in')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .action(async (group: string, role: string, options: { workspace?: string }) => {
      const api = await context.client();
      const workspace = await context.resolveWorkspace(api, options.workspace);
      const current = await api.request<OidcSettings>('GET', '/api/oidc');
      const kept = withoutMapping(current.roleMappings, group, workspace.id);
      const updated = await api.request<OidcSettings>('PATCH', '/api/oidc', { roleMappings: [...kept, { group, workspaceId: workspace.id, role: parseRole(role) }] });
      print(updated, false);
    });

  oidc
    .command('unmap <group>')
    .description('members of <group> no longer get a role in the workspace through it (from their next sign-in)')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .action(async (group: string, options: { workspace?: string }) => {
      const api = await context.client();
      const workspace = await context.resolveWorkspace(api, options.workspace);
      const current = await api.request<OidcSettings>('GET', '/api/oidc');
      const kept = withoutMapping(current.roleMappings, group, workspace.id);
      if (kept.length === current.roleMappings.length) throw new Error(`group '${group}' is not mapped in ${workspace.name}`);
      print(await api.request<OidcSettings>('PATCH', '/api/oidc', { roleMappings: kept }), false);
    });
}
