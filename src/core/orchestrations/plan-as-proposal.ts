import type { PlanSubmission } from '../plan/plan-graph.js';
import type { StoredOrchestrationProposal } from './orchestration-proposal.js';

/** The one role of a plan's orchestration: the agent that wrote the plan and runs its steps (PLAN-7). */
export const PLANNER_ROLE_KEY = 'planner';

/**
 * PLAN-7 on ORC-4: an approved plan recorded as an orchestration — one role (the planner, an existing
 * agent, no hires), one sub-ticket per step with the step's dependencies, no research and no synthesis
 * (a plan is done when its steps are). Deterministic: the same plan always gives the same record.
 */
export function planAsProposal(plan: { agentId: string; submission: PlanSubmission }): StoredOrchestrationProposal {
  return {
    goal: plan.submission.goal,
    roles: [{ roleKey: PLANNER_ROLE_KEY, title: 'Planner', agentId: plan.agentId }],
    subTickets: plan.submission.nodes.map((node) => ({
      key: node.key,
      title: node.title,
      roleKey: PLANNER_ROLE_KEY,
      description: node.description,
      dependsOn: [...new Set(node.dependsOn)],
    })),
  };
}
