import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import {
  BuiltInSkill,
  ConversationRepoSkills,
  CreateSkillSourceBody,
  InstalledSkill,
  InstallOutcome,
  InstallSkillBody,
  OverrideBody,
  SkillNameParam,
  SkillOverride,
  SkillScanRecord,
  SkillSource,
  SourceListing,
  VerifyResult,
} from '../../schemas/skill.js';
import type { ControlCenter } from '../../services/control-center.js';
import { actingPerson } from '../acting-person.js';
import { WorkspaceParams } from './workspace-routes.js';

/**
 * Skills supply chain (SKL-3): sources, browse, install behind the scan, update, verify and
 * quarantine overrides. Every route is the operator's alone: an agent can neither install nor
 * override (the routes declare `operator`, which a run token never satisfies, SEC-1).
 */
export function skillRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    // TEAM-2: everyone in the workspace reads these; changing them is an admin's.
    const read = { access: 'operator', role: 'viewer' } as const;
    const config = { access: 'operator', role: 'admin' } as const;
    const base = '/api/workspaces/:workspaceId/skills';
    const tags = ['skills'];
    const outcome = { 200: InstallOutcome, 201: InstallOutcome, 400: ApiError, 404: ApiError, 409: ApiError, 422: ApiError };

    server.get(base, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ skills: z.array(InstalledSkill) }), 404: ApiError } } }, async (request) => ({
      skills: await app.skills.listInstalled(request.params.workspaceId),
    }));
    server.get(`${base}/verify`, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: VerifyResult, 404: ApiError } } }, async (request) =>
      app.skills.verify(request.params.workspaceId),
    );
    server.get(`${base}/sources`, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ sources: z.array(SkillSource) }), 404: ApiError } } }, async (request) => ({
      sources: await app.skills.listSources(request.params.workspaceId),
    }));
    server.post(
      `${base}/sources`,
      { config, schema: { tags, params: WorkspaceParams, body: CreateSkillSourceBody, response: { 201: SkillSource, 400: ApiError, 404: ApiError, 409: ApiError } } },
      async (request, reply) => reply.code(201).send(await app.skills.addSource(request.params.workspaceId, request.body.url)),
    );
    server.delete(
      `${base}/sources/:sourceId`,
      { config, schema: { tags, params: WorkspaceParams.extend({ sourceId: z.string().min(1) }), response: { 204: z.null(), 404: ApiError } } },
      async (request, reply) => {
        await app.skills.removeSource(request.params.workspaceId, request.params.sourceId);
        return reply.code(204).send(null);
      },
    );
    server.get(
      `${base}/sources/:sourceId/skills`,
      {
        config: read,
        schema: { tags, params: WorkspaceParams.extend({ sourceId: z.string().min(1) }), querystring: z.object({ ref: z.string().min(1).max(255).optional() }), response: { 200: SourceListing, 400: ApiError, 404: ApiError } },
      },
      async (request) => app.skills.browse(request.params.workspaceId, request.params.sourceId, request.query.ref ?? null),
    );
    server.post(`${base}/install`, { config, schema: { tags, params: WorkspaceParams, body: InstallSkillBody, response: outcome } }, async (request, reply) => {
      const result = await app.skills.install(request.params.workspaceId, request.body);
      return reply.code(result.outcome === 'installed' ? 201 : 200).send(result);
    });
    server.post(
      `${base}/:name/update`,
      { config, schema: { tags, params: WorkspaceParams.extend({ name: SkillNameParam }), body: z.object({ ref: z.string().min(1).max(255).optional() }).default({}), response: outcome } },
      async (request) => app.skills.update(request.params.workspaceId, request.params.name, request.body ?? {}),
    );
    server.get(`${base}/scans`, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ scans: z.array(SkillScanRecord) }), 404: ApiError } } }, async (request) => ({
      scans: await app.skills.listScans(request.params.workspaceId),
    }));
    server.get(
      `${base}/quarantines`,
      { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ quarantines: z.array(SkillScanRecord) }), 404: ApiError } } },
      async (request) => ({ quarantines: await app.skills.listOpenQuarantines(request.params.workspaceId) }),
    );
    server.get(
      `${base}/built-in`,
      { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ skills: z.array(BuiltInSkill) }), 404: ApiError } } },
      async (request) => ({ skills: await app.skills.listBuiltIn(request.params.workspaceId) }),
    );
    server.get(
      `${base}/scans/:reportId`,
      { config: read, schema: { tags, params: WorkspaceParams.extend({ reportId: z.string().min(1) }), response: { 200: SkillScanRecord, 404: ApiError } } },
      async (request) => app.skills.getScan(request.params.workspaceId, request.params.reportId),
    );
    server.get(`${base}/overrides`, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ overrides: z.array(SkillOverride) }), 404: ApiError } } }, async (request) => ({
      overrides: await app.skills.listOverrides(request.params.workspaceId),
    }));
    server.post(`${base}/overrides`, { config, schema: { tags, params: WorkspaceParams, body: OverrideBody, response: outcome } }, async (request, reply) =>
      reply.code(201).send(await app.skills.override(request.params.workspaceId, request.body, await actingPerson(app, request))),
    );
    server.get(
      '/api/workspaces/:workspaceId/conversations/:conversationId/repo-skills',
      { config: read, schema: { tags, params: WorkspaceParams.extend({ conversationId: z.string().min(1) }), response: { 200: ConversationRepoSkills, 404: ApiError } } },
      async (request) => app.repoSkills.view(request.params.workspaceId, request.params.conversationId),
    );
  };
}
