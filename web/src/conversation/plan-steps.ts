import type { Message, Plan, PlanNode, Run } from '../api/types';

/** One step of an executing plan with what it posted: the prompt the Control Center sent, the run, the reply. */
export interface PlanStepView {
  node: PlanNode;
  prompt: Message | null;
  run: Run | null;
  reply: Message | null;
}

export interface FoldedPlanSteps {
  byPlan: Map<string, PlanStepView[]>;
  /** Messages shown under a plan row instead of in the timeline. */
  foldedMessageIds: Set<string>;
  /** Runs of plan steps (shown under the plan row, never as turns of their own). */
  stepRunIds: Set<string>;
}

/**
 * PLAN-8: each step of an executing plan posts a system prompt ("Plan goal: … Now do step n of m —
 * key: title …", written by the plan service) and the agent's reply. Folded under the plan row, in
 * step order, so parallel steps do not flood the conversation or interleave. A prompt is matched to
 * its step by the step line the server writes; replies and runs by the step's run id.
 */
export function foldPlanSteps(plans: Plan[], messages: Message[], runs: Run[]): FoldedPlanSteps {
  const byPlan = new Map<string, PlanStepView[]>();
  const foldedMessageIds = new Set<string>();
  const stepRunIds = new Set<string>();
  const runById = new Map(runs.map((run) => [run.id, run]));
  const claimedPrompts = new Set<string>();
  for (const plan of plans) {
    if (!plan.nodes.some((node) => node.runId)) continue;
    const views: PlanStepView[] = [];
    plan.nodes.forEach((node, index) => {
      const stepLine = `Now do step ${index + 1} of ${plan.nodes.length} — ${node.key}: ${node.title}`;
      // A resumed step is prompted again: every prompt of the step is folded, the newest shown.
      const prompts = messages.filter(
        (message) =>
          !claimedPrompts.has(message.id) &&
          message.authorKind === 'system' &&
          message.createdAt >= plan.createdAt &&
          message.content.startsWith(`Plan goal: ${plan.goal}`) &&
          message.content.includes(stepLine),
      );
      for (const message of prompts) {
        claimedPrompts.add(message.id);
        foldedMessageIds.add(message.id);
      }
      const prompt = prompts[prompts.length - 1] ?? null;
      const reply = node.runId ? (messages.find((message) => message.role === 'assistant' && message.runId === node.runId) ?? null) : null;
      if (reply) foldedMessageIds.add(reply.id);
      if (node.runId) stepRunIds.add(node.runId);
      views.push({ node, prompt, run: node.runId ? (runById.get(node.runId) ?? null) : null, reply });
    });
    byPlan.set(plan.id, views);
  }
  return { byPlan, foldedMessageIds, stepRunIds };
}
