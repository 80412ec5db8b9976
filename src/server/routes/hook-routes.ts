import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { gateFailingClosed } from '../../core/transport-gate.js';
import { hookDeny, hookOutput, transportActionOf, type PreToolUseInput } from '../../adapters/claude-code/hook-decision.js';
import { PRE_TOOL_USE_PATH } from '../../adapters/claude-code/hook-script.js';
import type { HookSessions } from '../../core/hook-sessions.js';
import { bearerToken } from '../bearer-token.js';
import { nowIso } from '../../ids.js';
import { ApiError } from '../../schemas/common.js';
import type { ControlCenter } from '../../services/control-center.js';

/** Claude Code's PreToolUse hook input; fields this route does not read pass through untouched. */
const PreToolUseBody = z.looseObject({
  hook_event_name: z.string().optional(),
  tool_name: z.string().optional(),
  tool_input: z.record(z.string(), z.unknown()).optional(),
  tool_use_id: z.string().optional(),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  permission_mode: z.string().optional(),
});

const PreToolUseAnswer = z.object({
  hookSpecificOutput: z
    .object({
      hookEventName: z.literal('PreToolUse'),
      permissionDecision: z.enum(['allow', 'deny']),
      permissionDecisionReason: z.string(),
    })
    .optional(),
});

/**
 * `POST /api/hooks/pre-tool-use` (ADP-3, POL-1): the endpoint the Claude Code PreToolUse hook script
 * calls with the run token and Claude Code's hook JSON. It finds the run by its token
 * (`hook-sessions.ts`), turns the call into a gate action (a Bash command line, or the path a native
 * write tool is about to change), waits for the gate — policy engine, then the operator's approval
 * when the rule says ask, fail closed — and answers with the hook JSON Claude Code understands. Every
 * decision is recorded on the session with the deciding scope and rule.
 */
export function hookRoutes(app: ControlCenter, sessions: HookSessions = app.hookSessions): FastifyPluginAsyncZod {
  return async (server) => {
    server.post(
      PRE_TOOL_USE_PATH,
      {
        // SEC-1: only a run token reaches the hook; the operator has no Claude Code session here.
        config: { access: 'agent' },
        schema: {
          tags: ['adapters'],
          summary: 'Claude Code PreToolUse hook: decide a native Bash command or file write',
          body: PreToolUseBody,
          response: { 200: PreToolUseAnswer, 401: ApiError, 404: ApiError },
        },
      },
      async (request, reply) => {
        const token = bearerToken(request.headers.authorization);
        if (!token) {
          return reply.code(401).send({ error: { code: 'unauthorized', message: 'missing bearer token: send the run token', field: 'authorization' } });
        }
        const session = sessions.get(token);
        if (!session || session.pushOnly) {
          return reply.code(404).send({ error: { code: 'not_found', message: 'no Claude Code run in progress for this token', field: 'authorization' } });
        }
        const input = request.body as PreToolUseInput;
        if (input.hook_event_name !== undefined && input.hook_event_name !== 'PreToolUse') return hookDeny(`unexpected hook event ${input.hook_event_name}`);
        const action = transportActionOf(input, session.worktreePath);
        if ('error' in action) return hookDeny(action.error);
        const controller = new AbortController();
        // The hook process went away (Claude Code gave up or was killed): stop waiting on its behalf.
        reply.raw.on('close', () => {
          if (!reply.raw.writableFinished) controller.abort();
        });
        const result = await gateFailingClosed(() => session.gate(action, AbortSignal.any([controller.signal, session.signal])), []);
        session.decisions.push({ source: 'hook', toolUseId: input.tool_use_id ?? null, toolName: action.toolName, action, allow: result.allow, result, at: nowIso() });
        return hookOutput(result, session.mode);
      },
    );
  };
}
