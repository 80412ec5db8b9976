import { z } from 'zod';
import { checkDelegation } from '../../core/delegation-guard.js';
import { formatPlanViolations } from '../../core/plan/format-plan-violations.js';
import { fail, ok, defineTool, type Tool } from '../../tools/define-tool.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { PlanService } from './plan-service.js';
import type { ModeToolProvider, RunExecutor } from '../runs/run-executor.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { runParentLink } from '../../store/repositories/run-repository.js';
import { ceilingOfWorkStartedBy, spaceNameIn } from '../runs/inherited-ceiling.js';

const PlanNodeInput = z.object({
  key: z.string().describe('Short unique key of the step, e.g. "schema" or "api-1".'),
  title: z.string().describe('One line: what the step achieves.'),
  description: z.string().describe('What to do and how to know it is done.'),
  dependsOn: z.array(z.string()).default([]).describe('Keys of the steps that must finish first.'),
});

export const SubmitPlanInput = z.object({
  goal: z.string().describe('The outcome the whole plan delivers.'),
  nodes: z.array(PlanNodeInput).describe('The steps, as a dependency graph.'),
});

export const DelegateTaskInput = z.object({
  agent: z.string().min(1).describe('Name of the colleague to hand the task to.'),
  task: z.string().min(1).describe('Complete instructions: the colleague sees nothing else of this conversation.'),
});

/** Input schemas built once per process, not per run: a tool's JSON schema is converted once per schema object. */
const ExitPlanModeInput = z.object({ summary: z.string().optional().describe('What you intend to do once plan mode is lifted.') });

/**
 * The plan-mode verbs and delegation, bound to the services for one run:
 * - `submit_plan` (PLAN-1, PLAN-2; pinned in plan mode, CAP-6): validates and stores the graph;
 * - `exit_plan_mode` (PLAN-9): a hard approval gate, not an output verb;
 * - `delegate_task` (PLAN-8, POL-8): hands a task to a colleague within the depth cap, no cycles.
 */
export function planModeTools(services: {
  workspaces: WorkspaceService;
  plans: PlanService;
  approvals: ApprovalService;
  spaces: SpaceService;
  agents: AgentService;
  settings: SettingsService;
  executor: () => RunExecutor;
}): ModeToolProvider {
  return ({ workspaceId, runId, agent, spaceId, conversationId, treeConversationId, mode }) => {
    const tools: Tool[] = [];
    if (mode === 'plan') {
      tools.push(
        defineTool({
          name: 'submit_plan',
          description:
            'Submit your plan as a typed dependency graph: a goal and steps with keys, titles, descriptions and the keys each step depends on. Every problem in the graph is reported back at once; fix them all and call again.',
          parameters: SubmitPlanInput,
          tier: 'write',
          effects: [],
          recordsOnly: true,
          group: 'plans',
          async execute(input) {
            if (!conversationId) return fail('submit_plan needs a conversation to put the plan in; this run has none.');
            const result = await services.plans.submit({ workspaceId, conversationId, spaceId, agentId: agent.id, runId, submission: input });
            if (!result.ok) {
              return fail(`The plan was not accepted. Fix every problem and call submit_plan again:\n${formatPlanViolations(result.violations)}`, {
                violations: result.violations,
              });
            }
            return ok(
              `Plan v${result.plan.version} submitted with ${result.plan.stepCount} step(s). It now waits for the operator's approval; nothing runs until then. End your turn with a short summary.`,
              { planId: result.plan.id },
            );
          },
        }),
        defineTool({
          name: 'exit_plan_mode',
          description:
            'Ask the operator to leave plan mode. The first call opens an approval and returns pending; the space stays read-only until it is approved. After approval, call it again to switch the space to agent mode (mutating tools unlock from the next turn).',
          parameters: ExitPlanModeInput,
          tier: 'read',
          effects: [],
          group: 'plans',
          async execute(input) {
            if (!spaceId) return fail('exit_plan_mode needs a space; this run has none.');
            const existing = (await services.approvals.list(workspaceId, { kind: 'plan_exit', spaceId })).filter((approval) => !approval.request.consumedAt);
            const latest = existing[0];
            if (latest?.status === 'pending') {
              return ok(`pending: the plan-exit request ${latest.id} is still waiting for the operator. Plan mode stays on; do not call this again until it is decided.`, {
                approvalId: latest.id,
                status: 'pending',
              });
            }
            if (latest?.status === 'approved') {
              await services.approvals.markConsumed(workspaceId, latest.id);
              await services.spaces.update(workspaceId, spaceId, { mode: 'chat' }, { cause: { kind: 'planExitApproved' }, operatorId: latest.decidedBy });
              return ok('approved: the space is now in agent mode. Mutating tools unlock from the next turn.', { approvalId: latest.id, status: 'approved' });
            }
            const approval = await services.approvals.create(workspaceId, {
              kind: 'plan_exit',
              durable: true,
              runId,
              agentId: agent.id,
              spaceId,
              conversationId,
              title: `${agent.name} asks to leave plan mode`,
              request: { summary: input.summary ?? null, previous: latest ? { id: latest.id, status: latest.status, reason: latest.reason } : null },
            });
            const rejected = latest?.status === 'rejected' ? ` (the previous request was rejected${latest.reason ? `: ${latest.reason}` : ''})` : '';
            return ok(`pending: opened plan-exit request ${approval.id}${rejected}. Plan mode stays on until the operator approves it.`, {
              approvalId: approval.id,
              status: 'pending',
            });
          },
        }),
      );
    }
    tools.push(
      defineTool({
        name: 'delegate_task',
        description:
          'Hand a task to a better-suited colleague (by agent name) and get their report back. Limited depth; you cannot delegate to yourself or back up the chain.',
        parameters: DelegateTaskInput,
        tier: 'write',
        // SEC-9: it starts another agent's run, whose own rules (agent scope) are not this run's, so
        // it is declared like any work started elsewhere; the delegate also inherits this run's rules.
        effects: ['workspaceMutation'],
        startsRuns: true,
        group: 'agents',
        async execute(input, context) {
          const settings = await services.settings.get(workspaceId);
          const target = await services.agents.findByName(workspaceId, input.agent);
          const chain = await delegationChain(services.workspaces, workspaceId, runId);
          const names = Object.fromEntries((await services.agents.list(workspaceId)).map((candidate) => [candidate.id, candidate.name]));
          if (!target) return fail(`delegate_task refused: there is no agent named "${input.agent}" in this workspace.`);
          const verdict = checkDelegation({ chain, target: target.id, maxDepth: settings.delegationDepth, names });
          if (!verdict.allowed) return fail(verdict.reason);
          const space = spaceId ? await services.spaces.findSpace(workspaceId, spaceId) : null;
          const { run, finished } = await services.executor().start({
            workspaceId,
            agent: target,
            spaceId,
            // The delegate joins the conversation's run tree under this run (it reports back here only).
            conversationId: treeConversationId,
            mode,
            autonomy: space?.autonomy ?? 'actWithApproval',
            prompt: `${agent.name} delegated this task to you:\n\n${input.task}\n\nEnd with a short report of what you did.`,
            parentRunId: runId,
            depth: verdict.depth,
            // SEC-9: this run's rules (its space's, its agent's, its own ceiling) bound the delegate.
            inheritedRules: await ceilingOfWorkStartedBy((await services.workspaces.handle(workspaceId)).database.db, runId, spaceNameIn(services.spaces, workspaceId)),
            repoPath: space?.repoPath ?? null,
          });
          const cancel = () => services.executor().cancel(run.id);
          context.signal.addEventListener('abort', cancel, { once: true });
          try {
            const { run: ended, finalText: report } = await finished;
            if (ended.state !== 'completed') return fail(`${target.name}'s run ${run.id} ${ended.state}: ${ended.error ?? 'no report'}`, { runId: run.id });
            return ok(`${target.name} reports:\n${report || '(no report)'}`, { runId: run.id });
          } finally {
            context.signal.removeEventListener('abort', cancel);
          }
        },
      }),
    );
    return tools;
  };
}

/** The agents along a run's chain of parent runs, from the originating agent to this run's (POL-8). */
async function delegationChain(workspaces: WorkspaceService, workspaceId: string, runId: string): Promise<string[]> {
  const db = (await workspaces.handle(workspaceId)).database.db;
  const chain: string[] = [];
  let cursor: string | null = runId;
  for (let guard = 0; cursor && guard < 100; guard += 1) {
    const link: { agentId: string; parentRunId: string | null } | null = await runParentLink(db, cursor);
    if (!link) break;
    chain.unshift(link.agentId);
    cursor = link.parentRunId;
  }
  return chain;
}
