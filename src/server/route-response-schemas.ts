import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';

/** One route as registered: its method, URL pattern (`:param` segments) and response schemas by status. */
export interface RouteResponses {
  method: string;
  url: string;
  response: Record<string, z.ZodType>;
  hidden: boolean;
}

const registries = new WeakMap<object, RouteResponses[]>();

/**
 * Keeps the response schemas every route declares, in registration order, so a client (the tests'
 * HTTP client) can check each answer against the schema the route promises. Must run before the
 * routes are registered.
 */
export function recordRouteResponses(server: FastifyInstance): void {
  const routes: RouteResponses[] = [];
  registries.set(server, routes);
  server.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as { response?: Record<string, z.ZodType>; hide?: boolean };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      routes.push({ method: method.toUpperCase(), url: route.url, response: schema.response ?? {}, hidden: schema.hide === true });
    }
  });
}

/** Every route the server registered (empty when `recordRouteResponses` was not called on it). */
export function routeResponsesOf(server: FastifyInstance): readonly RouteResponses[] {
  return registries.get(server) ?? [];
}

function segmentsMatch(pattern: string, path: string): number | null {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return null;
  let parameters = 0;
  for (let index = 0; index < want.length; index += 1) {
    const segment = want[index]!;
    if (segment.startsWith(':')) {
      if (have[index] === '') return null;
      parameters += 1;
    } else if (segment !== have[index]) return null;
  }
  return parameters;
}

/**
 * The route a concrete request path reaches, as the router picks it: among the patterns that match,
 * the one with the fewest parameters (static segments win). Wildcard routes are not considered.
 */
export function findRouteResponses(server: FastifyInstance, method: string, path: string): RouteResponses | undefined {
  const pathname = path.split('?')[0]!;
  let best: { route: RouteResponses; parameters: number } | undefined;
  for (const route of routeResponsesOf(server)) {
    if (route.method !== method.toUpperCase()) continue;
    const parameters = segmentsMatch(route.url, pathname);
    if (parameters !== null && (!best || parameters < best.parameters)) best = { route, parameters };
  }
  return best?.route;
}
