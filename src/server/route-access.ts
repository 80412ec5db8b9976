import type { FastifyInstance, RouteOptions } from 'fastify';
import { ROUTE_ROLES, type RouteRole } from '../services/people/role-rank.js';

/**
 * Who may call a route, declared on the route itself (`config: { access }`), never derived from its
 * path (SEC-1):
 * - `public`: anyone, no token (the web app's static files, `/openapi.json`, `/healthz`);
 * - `operator`: the operator token only — the default, so a route that declares nothing is closed;
 * - `agent`: a run-scoped agent token only (the Claude Code hook, the git push proxy);
 * - `operatorOrAgent`: either (`/mcp`: agents see their run's tools, operators the approval tools).
 */
export const ROUTE_ACCESS = ['public', 'operator', 'agent', 'operatorOrAgent'] as const;
export type RouteAccess = (typeof ROUTE_ACCESS)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** SEC-1: the principals this route accepts; absent means `operator`. */
    access?: RouteAccess;
    /**
     * TEAM-2: the least role a person needs for this route — `signedIn`, or `viewer`/`member`/`admin`
     * in the route's `:workspaceId`, or `owner`. Absent means `owner`: a route that declares nothing
     * is the owner's alone. Agents' run tokens are not people; this never applies to them.
     */
    role?: RouteRole;
    /**
     * SEC-1: the route also takes a single-use SSE ticket from `?ticket=` (EventSource cannot
     * send headers; the operator token never rides in a URL). Only the workspace event stream declares it.
     */
    ticketInQuery?: boolean;
    /**
     * SEC-6: the route also takes its token from `x-api-key`, which is how Anthropic SDKs send their
     * key. Only the model proxy declares it (its callers hold a run token as their "API key").
     */
    apiKeyHeader?: boolean;
  }
}

/** One registered route as the router knows it. */
export interface RegisteredRoute {
  method: string;
  url: string;
  access: RouteAccess;
  /** TEAM-2: the least role a person needs (for routes people can call). */
  role: RouteRole;
  ticketInQuery: boolean;
}

const tables = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** The access a route config declares; undeclared routes are operator-only (authentication by default). */
export function accessOf(config: { access?: unknown } | undefined): RouteAccess {
  const access = config?.access;
  return (ROUTE_ACCESS as readonly unknown[]).includes(access) ? (access as RouteAccess) : 'operator';
}

/** The least role a route config declares; undeclared routes are the owner's (TEAM-2, closed by default). */
export function roleOf(config: { role?: unknown } | undefined): RouteRole {
  const role = config?.role;
  return (ROUTE_ROLES as readonly unknown[]).includes(role) ? (role as RouteRole) : 'owner';
}

/** Roles that are held in a workspace: a route declaring one must name the workspace in its path. */
const WORKSPACE_ROLES: readonly RouteRole[] = ['viewer', 'member', 'admin'];

/**
 * Watches every route as it is registered (call before registering any): refuses a config whose
 * access is not one of {@link ROUTE_ACCESS} (a typo must not silently fall back to anything) or that
 * takes a query token on a route that is not an authenticated GET, and records the route table so
 * tests can walk every route the router really has (SEC-1).
 */
export function trackRouteAccess(server: FastifyInstance): void {
  const table: RegisteredRoute[] = [];
  tables.set(server, table);
  server.addHook('onRoute', (route: RouteOptions) => {
    const config = (route.config ?? {}) as { access?: unknown; role?: unknown; ticketInQuery?: unknown };
    if (config.access !== undefined && !(ROUTE_ACCESS as readonly unknown[]).includes(config.access)) {
      throw new Error(`route ${route.url}: unknown access ${JSON.stringify(config.access)} (one of ${ROUTE_ACCESS.join(', ')})`);
    }
    if (config.role !== undefined && !(ROUTE_ROLES as readonly unknown[]).includes(config.role)) {
      throw new Error(`route ${route.url}: unknown role ${JSON.stringify(config.role)} (one of ${ROUTE_ROLES.join(', ')})`);
    }
    const access = accessOf(config);
    const role = roleOf(config);
    if (WORKSPACE_ROLES.includes(role) && !route.url.includes(':workspaceId')) {
      throw new Error(`route ${route.url}: role ${role} is held in a workspace, and this path names none (declare signedIn or owner)`);
    }
    const ticketInQuery = config.ticketInQuery === true;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (ticketInQuery && (access === 'public' || methods.some((method) => method !== 'GET' && method !== 'HEAD'))) {
      throw new Error(`route ${route.url}: ticketInQuery is for authenticated GET streams only`);
    }
    for (const method of methods) table.push({ method, url: route.url, access, role, ticketInQuery });
  });
}

/** Every route registered on `server` since {@link trackRouteAccess}, HEAD twins included. */
export function registeredRoutes(server: FastifyInstance): readonly RegisteredRoute[] {
  return tables.get(server) ?? [];
}
