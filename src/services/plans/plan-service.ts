import type { Kysely } from 'kysely';
import { compilePlan } from '../../core/plan/compile-plan.js';
import { estimatePlanCost } from '../../core/plan/estimate-plan-cost.js';
import type { PlanBlueprint } from '../../core/plan/plan-blueprint.js';
import type { PlanSubmission } from '../../core/plan/plan-graph.js';
import { planProgress, propagateFailure, readyNodes, type PlanNodeState } from '../../core/plan/plan-progress.js';
import type { PlanViolation } from '../../core/plan/plan-violation.js';
import { validatePlanGraph } from '../../core/plan/validate-plan-graph.js';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import { lookupModel } from '../../llm/model-catalog.js';
import type { Plan, PlanStatus } from '../../schemas/plan.js';
import type { Run } from '../../schemas/run.js';
import { listPlanNodes, findPlanNode, insertPlanNode, resetPlanNodes, updatePlanNode, type PlanNodeChange } from '../../store/repositories/plan-node-repository.js';
import {
  executingPlanIds,
  findPlan,
  insertPlan,
  latestPlanVersion,
  listPlans,
  rejectPlan,
  setPlanStatus,
  startPlanExecution,
  supersedeProposedPlans,
  type PlanRecord,
} from '../../store/repositories/plan-repository.js';
import { completedRunUsage } from '../../store/repositories/run-repository.js';
import { insertTicket, reopenPlanTickets, setPlanTicketStatus } from '../../store/repositories/ticket-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { AgentService } from '../agents/agent-service.js';
import type { EventBus } from '../event-bus.js';
import type { OperatorPrincipal } from '../operator-auth.js';
import type { RunExecutor } from '../runs/run-executor.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { TurnService } from '../runs/turn-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

export interface SubmitPlanInput {
  workspaceId: string;
  conversationId: string;
  spaceId: string | null;
  agentId: string;
  runId: string;
  submission: PlanSubmission;
}

export type SubmitPlanResult = { ok: true; plan: Plan } | { ok: false; violations: PlanViolation[] };

/** How many times a step interrupted by a restart is started again before it counts as failed. */
const MAX_NODE_ATTEMPTS = 2;

const FINISHED_PLAN: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'rejected', 'superseded']);

/**
 * Plans (PLAN-1..8): stores valid submissions as versions per conversation, compiles an approved plan
 * into tickets and an execution deterministically (no model), and runs the execution durably: every
 * node state is a row, so a restart resumes where it stopped.
 */
export class PlanService {
  /** Per-plan scheduling chains, so two finishing steps never schedule the same ready node twice. */
  private readonly scheduling = new Map<string, Promise<void>>();
  /** Set on shutdown: steps cut short by the stop stay `running` so the next start resumes them. */
  private suspended = false;

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly spaces: SpaceService,
    private readonly agents: AgentService,
    private readonly turns: TurnService,
    private readonly executor: RunExecutor,
    private readonly settings: SettingsService,
    private readonly events: EventBus,
  ) {}

  /** PLAN-2: every violation goes back to the agent; only a valid plan is stored, as a new version. */
  async submit(input: SubmitPlanInput): Promise<SubmitPlanResult> {
    const violations = validatePlanGraph(input.submission);
    if (violations.length > 0) return { ok: false, violations: [...violations] };
    const db = await this.db(input.workspaceId);
    const now = nowIso();
    const id = newId('plan');
    await db.transaction().execute(async (trx) => {
      const latest = await latestPlanVersion(trx, input.conversationId);
      await supersedeProposedPlans(trx, input.conversationId, now);
      await insertPlan(trx, {
        id,
        conversationId: input.conversationId,
        spaceId: input.spaceId,
        agentId: input.agentId,
        runId: input.runId,
        version: latest + 1,
        goal: input.submission.goal,
        status: 'proposed',
        submission: input.submission,
        errors: [],
        blueprint: null,
        decidedBy: null,
        reason: null,
        createdAt: now,
        decidedAt: null,
        updatedAt: now,
      });
    });
    const plan = await this.get(input.workspaceId, id);
    this.events.publish(input.workspaceId, 'plan.submitted', plan);
    return { ok: true, plan };
  }

  async list(workspaceId: string, conversationId?: string): Promise<Plan[]> {
    const db = await this.db(workspaceId);
    const plans = await listPlans(db, conversationId, 200);
    return Promise.all(plans.map((plan) => this.view(workspaceId, db, plan)));
  }

  async get(workspaceId: string, planId: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    return this.view(workspaceId, db, await this.findPlanOrThrow(db, planId));
  }

  /**
   * PLAN-7: an operator approves; the graph compiles (no model) into one ticket per node, dependency
   * edges and an execution; the space returns to chat; the plan's goal becomes the conversation's.
   */
  async approve(workspaceId: string, planId: string, operator: OperatorPrincipal): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    if (row.status !== 'proposed') throw new ConflictError('planId', `plan ${planId} is ${row.status}; only a proposed plan can be approved`);
    const submission = row.submission;
    const violations = validatePlanGraph(submission);
    if (violations.length > 0) {
      throw new ConflictError('planId', `plan ${planId} has ${violations.length} validation error(s) and cannot be approved: ${violations[0]!.message}`);
    }
    const blueprint = compilePlan(submission);
    const now = nowIso();
    await db.transaction().execute(async (trx) => {
      const started = await startPlanExecution(trx, planId, { blueprint, decidedBy: operator.operatorId, at: now });
      if (!started) throw new ConflictError('planId', `plan ${planId} was decided concurrently`);
      for (const ticket of blueprint.tickets) {
        const ticketId = newId('tkt');
        await insertTicket(trx, {
          id: ticketId,
          planId,
          nodeKey: ticket.key,
          title: ticket.title,
          description: ticket.description,
          status: 'open',
          dependsOn: ticket.dependsOn,
          assigneeAgentId: row.agentId,
          at: now,
        });
        await insertPlanNode(trx, {
          planId,
          key: ticket.key,
          ticketId,
          state: 'pending',
          runId: null,
          assigneeAgentId: row.agentId,
          attempts: 0,
          error: null,
          startedAt: null,
          endedAt: null,
        });
      }
    });
    if (row.spaceId) {
      const space = await this.spaces.findSpace(workspaceId, row.spaceId);
      if (space && space.mode !== 'chat' && space.kind !== 'pullRequest') await this.spaces.update(workspaceId, row.spaceId, { mode: 'chat' });
    }
    await this.spaces.setConversationGoal(workspaceId, row.conversationId, submission.goal);
    const plan = await this.get(workspaceId, planId);
    this.events.publish(workspaceId, 'plan.approved', plan);
    await this.schedule(workspaceId, planId);
    return this.get(workspaceId, planId);
  }

  /** Reject: the plan is closed and the agent that wrote it is woken with the reason (POL-7). */
  async reject(workspaceId: string, planId: string, operator: OperatorPrincipal, reason: string | undefined): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    if (row.status !== 'proposed') throw new ConflictError('planId', `plan ${planId} is ${row.status}; only a proposed plan can be rejected`);
    const now = nowIso();
    await rejectPlan(db, planId, { decidedBy: operator.operatorId, reason: reason ?? null, at: now });
    const plan = await this.get(workspaceId, planId);
    this.events.publish(workspaceId, 'plan.rejected', plan);
    const agent = await this.agents.get(workspaceId, row.agentId).catch(() => null);
    if (agent) {
      const text = `The operator rejected your plan (version ${row.version})${reason ? `: ${reason}` : '.'} Revise the plan and submit it again, or explain why it should stand.`;
      await this.turns.startSystemTurn(workspaceId, { agent, conversationId: row.conversationId, spaceId: row.spaceId, text });
    }
    return plan;
  }

  /** Stops the whole execution: running steps are cancelled, the rest will never start (PLAN-8). */
  async cancel(workspaceId: string, planId: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    if (row.status !== 'executing') throw new ConflictError('planId', `plan ${planId} is ${row.status}, not executing`);
    const now = nowIso();
    await setPlanStatus(db, planId, 'cancelled', now);
    const nodes = await listPlanNodes(db, planId);
    for (const node of nodes) {
      if (node.state === 'running' && node.runId) this.executor.cancel(node.runId);
      if (node.state === 'pending' || node.state === 'ready') {
        await this.setNodeState(db, planId, node.key, { state: 'cancelled', endedAt: now });
      }
    }
    const plan = await this.get(workspaceId, planId);
    this.events.publish(workspaceId, 'plan.updated', plan);
    return plan;
  }

  /**
   * PLAN-8: runs a stopped or failed plan again from where it stopped. Finished steps are kept; the
   * cancelled, failed and blocked ones go back to pending and are scheduled as their dependencies
   * allow. Refused while a step of it is still winding down (its cancel has not landed yet).
   */
  async resume(workspaceId: string, planId: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    if (row.status !== 'cancelled' && row.status !== 'failed') throw new ConflictError('planId', `plan ${planId} is ${row.status}; only a stopped or failed plan can be resumed`);
    const nodes = await listPlanNodes(db, planId);
    if (nodes.some((node) => node.state === 'running')) throw new ConflictError('planId', `plan ${planId} still has a step stopping; try again in a moment`);
    const again = nodes.filter((node) => node.state === 'cancelled' || node.state === 'failed' || node.state === 'blocked').map((node) => node.key);
    if (again.length === 0) throw new ConflictError('planId', `plan ${planId} has no unfinished step to run again`);
    const now = nowIso();
    await db.transaction().execute(async (trx) => {
      await setPlanStatus(trx, planId, 'executing', now);
      await resetPlanNodes(trx, planId, again);
      await reopenPlanTickets(trx, planId, again, now);
    });
    this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, planId));
    await this.schedule(workspaceId, planId);
    return this.get(workspaceId, planId);
  }

  /** Cancels one step; its dependents become blocked (PLAN-8). */
  async cancelNode(workspaceId: string, planId: string, key: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    if (row.status !== 'executing') throw new ConflictError('planId', `plan ${planId} is ${row.status}, not executing`);
    const node = await findPlanNode(db, planId, key);
    if (!node) throw new NotFoundError('plan step', key, 'key');
    if (node.state === 'running' && node.runId) {
      this.executor.cancel(node.runId);
    } else if (node.state === 'pending' || node.state === 'ready') {
      await this.finishNode(workspaceId, planId, key, 'cancelled', 'cancelled by the operator');
    } else {
      throw new ConflictError('key', `step ${key} is already ${node.state}`);
    }
    return this.get(workspaceId, planId);
  }

  /** On start: resumes executions a restart interrupted (steps in flight are started again, once). */
  async resumeExecutions(workspaceId: string): Promise<void> {
    const db = await this.db(workspaceId);
    for (const id of await executingPlanIds(db)) {
      const inFlight = await listPlanNodes(db, id, 'running');
      for (const node of inFlight) {
        if (node.attempts >= MAX_NODE_ATTEMPTS) {
          await this.finishNode(workspaceId, id, node.key, 'failed', 'the server stopped while this step was running, too many times');
        } else {
          await this.setNodeState(db, id, node.key, { state: 'pending', runId: null, error: 'interrupted by a server restart; started again' });
        }
      }
      await this.schedule(workspaceId, id);
    }
  }

  /** Starts every ready step, within the workspace's concurrency limit. Serialized per plan. */
  private schedule(workspaceId: string, planId: string): Promise<void> {
    const previous = this.scheduling.get(planId) ?? Promise.resolve();
    const next = previous.then(() => this.scheduleNow(workspaceId, planId)).catch(() => undefined);
    this.scheduling.set(planId, next);
    void next.finally(() => {
      if (this.scheduling.get(planId) === next) this.scheduling.delete(planId);
    });
    return next;
  }

  private async scheduleNow(workspaceId: string, planId: string): Promise<void> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    if (row.status !== 'executing' || !row.blueprint) return;
    const blueprint = row.blueprint;
    const nodes = await listPlanNodes(db, planId);
    const states = new Map(nodes.map((node) => [node.key, node.state]));
    const progress = planProgress(blueprint, states);
    if (progress.settled === progress.total) {
      const status: PlanStatus = progress.counts.done === progress.total ? 'completed' : progress.counts.cancelled > 0 && progress.counts.failed === 0 ? 'cancelled' : 'failed';
      await setPlanStatus(db, planId, status, nowIso());
      this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, planId));
      return;
    }
    const settings = await this.settings.get(workspaceId);
    let running = progress.counts.running;
    const agent = await this.agents.get(workspaceId, row.agentId).catch(() => null);
    for (const key of readyNodes(blueprint, states)) {
      if (running >= settings.maxConcurrentRuns) break;
      if (!agent) {
        await this.finishNode(workspaceId, planId, key, 'failed', 'the agent that wrote this plan no longer exists');
        continue;
      }
      running += 1;
      await this.startNode(workspaceId, row, blueprint, key, agent.id);
    }
  }

  /** PLAN-8: the authoring agent runs the step in the same conversation; the step posts what was asked. */
  private async startNode(workspaceId: string, plan: PlanRecord, blueprint: PlanBlueprint, key: string, agentId: string): Promise<void> {
    const db = await this.db(workspaceId);
    const ticket = blueprint.tickets.find((candidate) => candidate.key === key)!;
    const agent = await this.agents.get(workspaceId, agentId);
    const done = blueprint.tickets.filter((candidate) => ticket.dependsOn.includes(candidate.key));
    const prompt = [
      `Plan goal: ${blueprint.goal}`,
      `Now do step ${ticket.order + 1} of ${blueprint.tickets.length} — ${ticket.key}: ${ticket.title}`,
      ticket.description,
      done.length > 0 ? `It builds on the finished steps: ${done.map((step) => `${step.key} (${step.title})`).join(', ')}.` : '',
      'Do this step only. If a colleague is better suited, you may hand it over with delegate_task. End with a short report of what you did.',
    ]
      .filter(Boolean)
      .join('\n\n');
    const node = await findPlanNode(db, plan.id, key);
    if (!node) throw new NotFoundError('plan step', key, 'key');
    const run = await this.turns.startSystemTurn(workspaceId, {
      agent,
      conversationId: plan.conversationId,
      spaceId: plan.spaceId,
      text: prompt,
      planStep: { planId: plan.id, key },
      onFinished: (finished) => this.onNodeRunFinished(workspaceId, plan.id, key, finished),
    });
    await this.setNodeState(db, plan.id, key, { state: 'running', runId: run.id, attempts: node.attempts + 1, startedAt: nowIso(), error: null });
    await setPlanTicketStatus(db, plan.id, key, 'inProgress', nowIso());
    this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, plan.id));
  }

  /** Stops reacting to step endings: the server is going down, and the next start resumes. */
  suspend(): void {
    this.suspended = true;
  }

  private async onNodeRunFinished(workspaceId: string, planId: string, key: string, run: Run): Promise<void> {
    if (this.suspended) return;
    const state: PlanNodeState = run.state === 'completed' ? 'done' : run.state === 'cancelled' ? 'cancelled' : 'failed';
    await this.finishNode(workspaceId, planId, key, state, run.error);
  }

  /** Settles a step; a failed or cancelled step blocks everything that depends on it. */
  private async finishNode(workspaceId: string, planId: string, key: string, state: PlanNodeState, error: string | null): Promise<void> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    const now = nowIso();
    await this.setNodeState(db, planId, key, { state, endedAt: now, error });
    await setPlanTicketStatus(db, planId, key, state, now);
    if ((state === 'failed' || state === 'cancelled') && row.blueprint) {
      const nodes = await listPlanNodes(db, planId);
      const propagation = propagateFailure(row.blueprint, new Map(nodes.map((node) => [node.key, node.state])), key);
      for (const blocked of propagation.blocked) {
        await this.setNodeState(db, planId, blocked, { state: 'blocked', endedAt: now, error: `blocked: step ${key} ${state}` });
        await setPlanTicketStatus(db, planId, blocked, 'blocked', now);
      }
    }
    this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, planId));
    if (!FINISHED_PLAN.has(row.status)) await this.schedule(workspaceId, planId);
  }

  private async setNodeState(db: Kysely<WorkspaceSchema>, planId: string, key: string, change: PlanNodeChange): Promise<void> {
    await updatePlanNode(db, planId, key, change);
  }

  private async view(workspaceId: string, db: Kysely<WorkspaceSchema>, row: PlanRecord): Promise<Plan> {
    const { submission, blueprint } = row;
    const stored = await listPlanNodes(db, row.id);
    const byKey = new Map(stored.map((node) => [node.key, node]));
    const levels = new Map(blueprint?.tickets.map((ticket) => [ticket.key, ticket.level]) ?? []);
    const states = new Map(stored.map((node) => [node.key, node.state]));
    const nodes = submission.nodes.map((node) => {
      const step = byKey.get(node.key);
      return {
        key: node.key,
        title: node.title,
        description: node.description,
        dependsOn: [...new Set(node.dependsOn)],
        state: step?.state ?? 'pending',
        ticketId: step?.ticketId ?? null,
        runId: step?.runId ?? null,
        assigneeAgentId: step?.assigneeAgentId ?? null,
        error: step?.error ?? null,
        level: levels.get(node.key) ?? null,
      };
    });
    const progress = blueprint ? planProgress(blueprint, states) : { settled: 0, total: nodes.length };
    return {
      id: row.id,
      conversationId: row.conversationId,
      spaceId: row.spaceId,
      agentId: row.agentId,
      runId: row.runId,
      version: row.version,
      goal: row.goal,
      status: row.status,
      stepCount: nodes.length,
      nodes,
      edges: nodes.flatMap((node) => node.dependsOn.map((dependency) => ({ from: dependency, to: node.key }))),
      errors: row.errors.map((violation) => ({
        code: violation.code,
        message: violation.message,
        field: violation.field,
        ...(violation.nodeKey ? { nodeKey: violation.nodeKey } : {}),
      })),
      progress: { settled: progress.settled, total: progress.total },
      costEstimate: await this.estimate(workspaceId, db, row.agentId, submission),
      decidedBy: row.decidedBy,
      reason: row.reason,
      createdAt: row.createdAt,
      decidedAt: row.decidedAt,
      updatedAt: row.updatedAt,
    };
  }

  /** PLAN-3's cost estimate: the agent's model pricing and its own run history (docs/plan-graphs.md). */
  private async estimate(workspaceId: string, db: Kysely<WorkspaceSchema>, agentId: string, submission: PlanSubmission): Promise<Plan['costEstimate']> {
    const agent = await this.agents.get(workspaceId, agentId).catch(() => null);
    let pricing: { inputPerMillion: number; outputPerMillion: number } | null = null;
    try {
      pricing = lookupModel({ modelId: agent?.modelId ?? null }).model.pricing;
    } catch {
      pricing = null;
    }
    const estimate = estimatePlanCost(submission.nodes, pricing, await completedRunUsage(db, agentId, 50));
    return {
      perNode: estimate.perNode.map((node) => ({ ...node })),
      total: { ...estimate.total },
      basis: estimate.basis,
      currency: estimate.currency,
    };
  }

  private async findPlanOrThrow(db: Kysely<WorkspaceSchema>, planId: string): Promise<PlanRecord> {
    const plan = await findPlan(db, planId);
    if (!plan) throw new NotFoundError('plan', planId, 'planId');
    return plan;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}
