import type { OidcRoleMapping } from '../../schemas/oidc.js';
import type { WorkspaceRole } from '../../schemas/people.js';
import { rankOf } from './role-rank.js';

/** A role the provider gives in one workspace, and the group that decided it (named in the audit log, TEAM-3). */
export interface ProviderRole {
  role: WorkspaceRole;
  group: string;
}

/**
 * TEAM-1: the roles a person's provider groups give, per workspace — the highest role any of their
 * groups maps to there (the first group in the mapping's order that gives it). Groups are compared
 * exactly (the provider's spelling is the group's name). Workspaces the mapping names but the groups
 * reach not are absent: the person holds nothing there.
 */
export function rolesFromGroups(groups: readonly string[], mappings: readonly OidcRoleMapping[]): Map<string, ProviderRole> {
  const held = new Set(groups);
  const roles = new Map<string, ProviderRole>();
  for (const mapping of mappings) {
    if (!held.has(mapping.group)) continue;
    const current = roles.get(mapping.workspaceId);
    if (!current || rankOf(mapping.role) > rankOf(current.role)) roles.set(mapping.workspaceId, { role: mapping.role, group: mapping.group });
  }
  return roles;
}

/** The groups a claim holds: a list of strings, or one string (some providers send a single group so). */
export function groupsOfClaim(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((group): group is string => typeof group === 'string');
  return [];
}
