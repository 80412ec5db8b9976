import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AuditFilters, AuditPage, AuditPageQuery } from '../../schemas/audit.js';
import { ApiError } from '../../schemas/common.js';
import type { AuditLog } from '../../services/audit/audit-log.js';
import type { ControlCenter } from '../../services/control-center.js';
import { WorkspaceParams } from './workspace-routes.js';

/** The JSON Lines export, one entry a line, read from the store in batches as the client takes them. */
function jsonLines(audit: AuditLog, workspaceId: string, filters: AuditFilters): Readable {
  return Readable.from(
    (async function* () {
      for await (const entry of audit.all(workspaceId, filters)) yield `${JSON.stringify(entry)}\n`;
    })(),
  );
}

/**
 * TEAM-3: the audit log of a workspace — who did what, where and when. Reading it is an admin's:
 * a lead reviewing who did what administers the workspace, and the log names people, their tokens
 * and sessions, which a viewer has no need to see.
 */
export function auditRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    const tags = ['audit'];
    server.get(
      '/api/workspaces/:workspaceId/audit',
      { config: { role: 'admin' }, schema: { tags, summary: 'The audit log, newest first, a page at a time', params: WorkspaceParams, querystring: AuditPageQuery, response: { 200: AuditPage, 400: ApiError, 404: ApiError } } },
      async (request) => {
        const { cursor, limit, ...filters } = request.query;
        await app.workspaces.get(request.params.workspaceId);
        return app.audit.page(request.params.workspaceId, filters, cursor, limit);
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/audit.jsonl',
      {
        config: { role: 'admin' },
        schema: { tags, summary: 'The audit log as JSON Lines (same filters), streamed', params: WorkspaceParams, querystring: AuditFilters, response: { 200: z.unknown().describe('one AuditEntry as JSON per line (application/x-ndjson)'), 400: ApiError, 404: ApiError } },
      },
      async (request, reply) => {
        await app.workspaces.get(request.params.workspaceId);
        return reply
          .type('application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="audit-${request.params.workspaceId}.jsonl"`)
          .send(jsonLines(app.audit, request.params.workspaceId, request.query));
      },
    );
  };
}
