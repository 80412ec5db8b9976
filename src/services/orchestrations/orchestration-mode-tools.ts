import { PROPOSE_ORCHESTRATION_TOOL } from '../../core/capability-profiles.js';
import { OrchestrationProposalSchema } from '../../core/orchestrations/orchestration-proposal.js';
import { formatOrchestrationViolations } from '../../core/orchestrations/orchestration-violation.js';
import { defineTool, fail, ok, type Tool } from '../../tools/define-tool.js';
import type { ModeToolProvider } from '../runs/run-executor.js';
import type { OrchestrationService } from './orchestration-service.js';

/**
 * Orchestrate mode's one privileged verb (ORC-1): `propose_orchestration`, pinned by the mode's profile
 * (CAP-6) and its output verb (the completion contract, HAR-4). It only records a proposal: there is no
 * verb to approve one (ORC-2), so an agent can propose but never approve its own plan. A re-proposal
 * inside the cooldown is refused with advice to merge and a `retryAfter` (ORC-3).
 */
export function orchestrationModeTools(services: { orchestrations: OrchestrationService }): ModeToolProvider {
  return ({ workspaceId, runId, agent, spaceId, conversationId, mode }) => {
    if (mode !== 'orchestrate') return [];
    const tools: Tool[] = [
      defineTool({
        name: PROPOSE_ORCHESTRATION_TOOL,
        description:
          'Propose a team orchestration for the operator to approve: the goal, 1–8 roles (each an existing agent by agentId, or a new hire), 1–16 sub-tickets as a dependency graph, an optional research step, a synthesis step whose outputSchema has a "gaps" array, and a budget. Every problem is reported back at once. Nothing runs until an operator approves; to change a proposal, merge the change into one complete proposal instead of re-proposing right away.',
        parameters: OrchestrationProposalSchema,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'orchestrations',
        async execute(input) {
          const result = await services.orchestrations.propose({ workspaceId, conversationId, spaceId, agentId: agent.id, runId, proposal: input });
          if (!result.ok && result.kind === 'invalid') {
            return fail(formatOrchestrationViolations(result.violations), { violations: result.violations });
          }
          if (!result.ok) {
            return fail(
              `Refused: you proposed revision ${result.revision} of orchestration ${result.orchestrationId} less than two minutes ago. Merge your changes into one complete proposal and call ${PROPOSE_ORCHESTRATION_TOOL} again after ${result.retryAfterSeconds} s, or end your turn and let the operator review the current revision.`,
              { status: 'cooldown', orchestrationId: result.orchestrationId, revision: result.revision, retryAfter: result.retryAfterSeconds },
            );
          }
          return ok(
            `pending_approval: orchestration ${result.orchestration.id} revision ${result.revision} is stored with ${result.orchestration.proposal.roles.length} role(s) and ${result.orchestration.proposal.subTickets.length} sub-ticket(s). Nothing runs until the operator approves it. End your turn with a short summary.`,
            { status: 'pending_approval', orchestrationId: result.orchestration.id, revision: result.revision },
          );
        },
      }),
    ];
    return tools;
  };
}
