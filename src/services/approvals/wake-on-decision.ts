import type { Approval } from '../../schemas/approval.js';
import type { AgentService } from '../agents/agent-service.js';
import type { TurnService } from '../runs/turn-service.js';

/**
 * POL-7: a decision on a durable approval (a plan exit) wakes the agent that asked, in its
 * conversation, with the outcome and the operator's reason. Tool-call gates need no wake-up: the
 * waiting call itself receives the answer.
 */
export function wakeOnDecision(services: { agents: AgentService; turns: TurnService }) {
  return async (workspaceId: string, approval: Approval): Promise<void> => {
    if (approval.kind !== 'plan_exit' || !approval.agentId || !approval.conversationId) return;
    const agent = await services.agents.get(workspaceId, approval.agentId).catch(() => null);
    if (!agent) return;
    const text =
      approval.status === 'approved'
        ? 'The operator approved your request to leave plan mode. Call exit_plan_mode once more to switch the space to agent mode, then continue.'
        : `The operator rejected your request to leave plan mode${approval.reason ? `: ${approval.reason}` : '.'} Stay in plan mode; revise the plan, or ask again later with a revised plan.`;
    await services.turns.startSystemTurn(workspaceId, { agent, conversationId: approval.conversationId, spaceId: approval.spaceId, text });
  };
}
