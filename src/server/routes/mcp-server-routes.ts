import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { CreateMcpServerBody, McpServer, SetMcpToolEffectsBody, UpdateMcpServerBody } from '../../schemas/mcp-server.js';
import type { ControlCenter } from '../../services/control-center.js';
import { WorkspaceParams } from './workspace-routes.js';

/**
 * Operators' MCP servers (TOOL-2): add, change and remove servers, list their tools (descriptions
 * scanned) and assign each tool its effect classes. Operators only: a run token never satisfies
 * `operator` (SEC-1), so an agent can neither add a server nor loosen a tool's classes.
 */
export function mcpServerRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    // TEAM-2: everyone in the workspace reads these; changing them is an admin's.
    const read = { access: 'operator', role: 'viewer' } as const;
    const config = { access: 'operator', role: 'admin' } as const;
    const base = '/api/workspaces/:workspaceId/mcp-servers';
    const tags = ['mcp-servers'];
    const ServerParams = WorkspaceParams.extend({ serverId: z.string().min(1) });

    server.get(base, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ servers: z.array(McpServer) }), 404: ApiError } } }, async (request) => ({
      servers: await app.mcpServers.list(request.params.workspaceId),
    }));
    server.post(
      base,
      { config, schema: { tags, params: WorkspaceParams, body: CreateMcpServerBody, response: { 201: McpServer, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request, reply) => reply.code(201).send(await app.mcpServers.create(request.params.workspaceId, request.body)),
    );
    server.get(`${base}/:serverId`, { config: read, schema: { tags, params: ServerParams, response: { 200: McpServer, 404: ApiError } } }, async (request) =>
      app.mcpServers.get(request.params.workspaceId, request.params.serverId),
    );
    server.patch(
      `${base}/:serverId`,
      { config, schema: { tags, params: ServerParams, body: UpdateMcpServerBody, response: { 200: McpServer, 400: ApiError, 404: ApiError } } },
      async (request) => app.mcpServers.update(request.params.workspaceId, request.params.serverId, request.body),
    );
    server.delete(`${base}/:serverId`, { config, schema: { tags, params: ServerParams, response: { 204: z.null(), 404: ApiError } } }, async (request, reply) => {
      await app.mcpServers.remove(request.params.workspaceId, request.params.serverId);
      return reply.code(204).send(null);
    });
    // Connects now and lists the server's tools; a server that cannot be reached answers 200 with `lastError`.
    server.post(`${base}/:serverId/tools/list`, { config, schema: { tags, params: ServerParams, response: { 200: McpServer, 404: ApiError } } }, async (request) =>
      app.mcpServers.listTools(request.params.workspaceId, request.params.serverId),
    );
    server.put(
      `${base}/:serverId/tools/:toolName/effects`,
      { config, schema: { tags, params: ServerParams.extend({ toolName: z.string().min(1).max(256) }), body: SetMcpToolEffectsBody, response: { 200: McpServer, 400: ApiError, 404: ApiError } } },
      async (request) => app.mcpServers.setToolEffects(request.params.workspaceId, request.params.serverId, request.params.toolName, request.body),
    );
  };
}
