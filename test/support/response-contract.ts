import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../src/schemas/common.js';
import { findRouteResponses } from '../../src/server/route-response-schemas.js';

/**
 * Checks one API answer against the response schema its route declares (src/schemas/*), so a test
 * fails with a readable message when what the server sends drifts from the shared contract:
 * - a JSON body that does not parse with the declared schema for its status;
 * - a success status the route declares no schema for;
 * - an error body that is not the common `ApiError` shape.
 * Only `/api/` paths are checked (health, OpenAPI, MCP and the web app are not part of the contract).
 */
export function checkResponseContract(server: FastifyInstance, method: string, path: string, status: number, body: unknown): void {
  if (!path.startsWith('/api/')) return;
  const route = findRouteResponses(server, method, path);
  const where = `${method.toUpperCase()} ${path.split('?')[0]} → ${status}`;
  if (!route) {
    expectShape(ApiError, body, `${where} (no such route)`);
    return;
  }
  const schema = route.response[String(status)] ?? route.response[`${String(status)[0]}xx`];
  if (schema) {
    expectShape(schema, body, `${where} (route ${route.url})`);
    return;
  }
  if (status >= 400) {
    expectShape(ApiError, body, `${where} (route ${route.url}, undeclared error status)`);
    return;
  }
  throw new Error(`response contract: ${where}: route ${route.url} declares no response schema for status ${status}; add one from src/schemas/*`);
}

function expectShape(schema: z.ZodType, body: unknown, where: string): void {
  const result = schema.safeParse(body);
  if (result.success) return;
  throw new Error(`response contract: ${where}: the body does not match the declared schema\n${z.prettifyError(result.error)}\nbody: ${JSON.stringify(body).slice(0, 2_000)}`);
}
