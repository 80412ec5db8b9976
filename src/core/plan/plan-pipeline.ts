import type { PipelineDefinition, PipelineNode } from '../pipelines/pipeline-definition.js';
import type { PlanBlueprint } from './plan-blueprint.js';

/** Who runs an approved plan and where (PLAN-8: its author, in the conversation it was written in). */
export interface PlanExecutionTarget {
  planId: string;
  agentId: string;
  conversationId: string;
  spaceId: string | null;
}

/** Idempotency key of a plan's pipeline run: one run per plan, so approving twice can never start two. */
export function planRunIdempotencyKey(planId: string): string {
  return `plan:${planId}`;
}

/** What the agent is asked for one step: the plan's goal, the step, and what it builds on. */
export function planStepPrompt(blueprint: PlanBlueprint, key: string): string {
  const ticket = blueprint.tickets.find((candidate) => candidate.key === key);
  if (!ticket) throw new Error(`step ${key} is not in the plan`);
  const done = blueprint.tickets.filter((candidate) => ticket.dependsOn.includes(candidate.key));
  return [
    `Plan goal: ${blueprint.goal}`,
    `Now do step ${ticket.order + 1} of ${blueprint.tickets.length} — ${ticket.key}: ${ticket.title}`,
    ticket.description,
    done.length > 0 ? `It builds on the finished steps: ${done.map((step) => `${step.key} (${step.title})`).join(', ')}.` : '',
    'Do this step only. If a colleague is better suited, you may hand it over with delegate_task. End with a short report of what you did.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * PLAN-7 → PIPE-1: an approved plan compiles, with no model, into a pipeline with one role — the
 * planner — and one `planStep` node per step, with the plan's dependency edges, in the blueprint's
 * stable order. Steps are `idempotent`: PLAN-8 starts a step a restart interrupted again (the engine
 * stops after two interruptions). `finished` steps (done before an upgrade moved the plan onto the
 * engine) are left out, and so are the dependencies on them.
 */
export function compilePlanPipeline(blueprint: PlanBlueprint, target: PlanExecutionTarget, finished: ReadonlySet<string> = new Set()): PipelineDefinition {
  const nodes: PipelineNode[] = blueprint.tickets
    .filter((ticket) => !finished.has(ticket.key))
    .map((ticket) => ({
      key: ticket.key,
      type: 'planStep' as const,
      title: ticket.title,
      dependsOn: ticket.dependsOn.filter((dependency) => !finished.has(dependency)),
      continueOnFail: false,
      idempotent: true,
      planId: target.planId,
      agentId: target.agentId,
      conversationId: target.conversationId,
      spaceId: target.spaceId,
      prompt: planStepPrompt(blueprint, ticket.key),
    }));
  return { name: `Plan: ${blueprint.goal}`.slice(0, 200), nodes, triggers: [] };
}
