import type { WorkspaceRole } from '../../schemas/people.js';

/**
 * The least role a route needs (TEAM-2), from least to most: `signedIn` is any person (routes about
 * oneself, nothing of a workspace); viewer, member and admin are roles in the route's workspace;
 * `owner` is the owner alone (managing people, creating and deleting workspaces).
 */
export const ROUTE_ROLES = ['signedIn', 'viewer', 'member', 'admin', 'owner'] as const;
export type RouteRole = (typeof ROUTE_ROLES)[number];

/** Higher holds more: a role satisfies every route that needs a role of its rank or lower. */
export function rankOf(role: RouteRole | WorkspaceRole): number {
  return ROUTE_ROLES.indexOf(role);
}
