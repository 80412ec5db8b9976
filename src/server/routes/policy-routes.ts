import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CAPABILITY_PROFILES } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import { buildGuardPreset } from '../../core/guard-preset.js';
import { MODES, AUTONOMY_LEVELS, AUTONOMY_LABELS } from '../../core/modes.js';
import { PICKER_VALUES, pickerToSpaceMode } from '../../core/picker.js';
import { ApiError } from '../../schemas/common.js';
import { ModesCatalog } from '../../schemas/modes-catalog.js';
import { CreateRuleBody, PolicyRule, ProbeBody, ProbeResult } from '../../schemas/policy.js';
import type { ControlCenter } from '../../services/control-center.js';
import { actingPerson } from '../acting-person.js';
import { WorkspaceParams } from './workspace-routes.js';

/** Modes and their profiles for the UI (CAP-1), policy rules CRUD and the probe (POL-3). */
export function policyRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get('/api/modes', { config: { role: 'signedIn' }, schema: { tags: ['policy'], response: { 200: ModesCatalog } } }, async () => ({
      modes: MODES.map((mode) => {
        const profile = CAPABILITY_PROFILES[mode];
        return {
          mode,
          label: profile.label,
          userSelectable: mode !== 'review',
          profile,
          guardPreset: buildGuardPreset(profile),
          completionContract: buildCompletionContract(profile),
        };
      }),
      autonomyLevels: AUTONOMY_LEVELS.map((level) => ({ level, label: AUTONOMY_LABELS[level] })),
      picker: PICKER_VALUES.map((value) => {
        const mapped = pickerToSpaceMode(value, 'actWithApproval');
        return { value, mode: mapped.mode, autonomy: value === 'Plan' || value === 'Orchestrate' ? null : mapped.autonomy };
      }),
    }));

    server.get(
      '/api/workspaces/:workspaceId/policy/rules',
      { config: { role: 'viewer' }, schema: { tags: ['policy'], params: WorkspaceParams, response: { 200: z.object({ rules: z.array(PolicyRule) }), 404: ApiError } } },
      async (request) => ({ rules: await app.policy.listRules(request.params.workspaceId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/policy/rules',
      { config: { role: 'admin' }, schema: { tags: ['policy'], params: WorkspaceParams, body: CreateRuleBody, response: { 201: PolicyRule, 400: ApiError, 404: ApiError } } },
      async (request, reply) => reply.code(201).send(await app.policy.createRule(request.params.workspaceId, request.body, await actingPerson(app, request))),
    );
    server.delete(
      '/api/workspaces/:workspaceId/policy/rules/:ruleId',
      { config: { role: 'admin' }, schema: { tags: ['policy'], params: WorkspaceParams.extend({ ruleId: z.string().min(1) }), response: { 204: z.null(), 404: ApiError } } },
      async (request, reply) => {
        await app.policy.deleteRule(request.params.workspaceId, request.params.ruleId, await actingPerson(app, request));
        return reply.code(204).send(null);
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/policy/probe',
      { config: { role: 'viewer' }, schema: { tags: ['policy'], params: WorkspaceParams, body: ProbeBody, response: { 200: ProbeResult, 400: ApiError, 404: ApiError } } },
      async (request) => app.policy.probe(request.params.workspaceId, request.body),
    );
  };
}
