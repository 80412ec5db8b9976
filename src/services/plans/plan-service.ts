import type { Kysely } from 'kysely';
import { compilePlan } from '../../core/plan/compile-plan.js';
import { estimatePlanCost } from '../../core/plan/estimate-plan-cost.js';
import type { PlanBlueprint } from '../../core/plan/plan-blueprint.js';
import type { PlanSubmission } from '../../core/plan/plan-graph.js';
import { compilePlanPipeline, planRunIdempotencyKey } from '../../core/plan/plan-pipeline.js';
import { planProgress, type PlanNodeState } from '../../core/plan/plan-progress.js';
import type { PlanViolation } from '../../core/plan/plan-violation.js';
import { validatePlanGraph } from '../../core/plan/validate-plan-graph.js';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import { lookupModel } from '../../llm/model-catalog.js';
import type { Plan, PlanStatus } from '../../schemas/plan.js';
import type { WorkspaceEvent } from '../../schemas/events.js';
import { listPlanNodes, insertPlanNode, resetPlanNodes, updatePlanNode, type PlanNodeRecord } from '../../store/repositories/plan-node-repository.js';
import {
  findPipelineRunIdByKey,
  findPipelineRunSource,
  findPipelineRunStatus,
  listPipelineNodes,
  type PipelineNodeRecord,
  type PipelineRunStatus,
} from '../../store/repositories/pipeline-run-repository.js';
import {
  executingPlanIds,
  findPlan,
  insertPlan,
  latestPlanVersion,
  listPlans,
  listPlansInStatus,
  rejectPlan,
  setPlanStatus,
  startPlanExecution,
  supersedeProposedPlans,
  type PlanRecord,
} from '../../store/repositories/plan-repository.js';
import { completedRunUsage } from '../../store/repositories/run-repository.js';
import { runTreeCost } from '../../store/repositories/run-tree-cost.js';
import { insertTicket, reopenPlanTickets, setPlanTicketStatus } from '../../store/repositories/ticket-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { findOrchestrationOfPlan } from '../../store/repositories/orchestration-repository.js';
import { recordPlanOrchestration } from '../orchestrations/plan-orchestration.js';
import { freezeEstimate, liveEstimate, notRecordedEstimate } from './plan-estimate-view.js';
import type { AgentService } from '../agents/agent-service.js';
import type { EventBus } from '../event-bus.js';
import type { OperatorPrincipal } from '../operator-auth.js';
import type { AuditActor } from '../../schemas/audit.js';
import { insertAuditEntry } from '../../store/repositories/audit-entry-repository.js';
import { auditEntryOf, withAuditEntry } from '../audit/audit-act.js';
import type { PipelineEngine } from '../pipelines/pipeline-engine.js';
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

/** Plan statuses that follow the plan's pipeline run once it was approved. */
const EXECUTION_STATUSES: ReadonlySet<PlanStatus> = new Set(['executing', 'completed', 'failed', 'cancelled']);

const PLAN_STATUS_OF_RUN: Record<PipelineRunStatus, PlanStatus> = { running: 'executing', completed: 'completed', failed: 'failed', cancelled: 'cancelled' };

/** A step's state as the plan shows it, from its pipeline node (PLAN-8's vocabulary). */
function stepState(node: PipelineNodeRecord): PlanNodeState {
  switch (node.state) {
    case 'pending':
    case 'queued':
      return 'pending';
    // Running from the moment its agent run exists, as before the move onto the engine.
    case 'running':
      return node.agentRunId ? 'running' : 'pending';
    case 'skipped':
      return 'blocked';
    default:
      return node.state;
  }
}

/** A step's ticket status (PLAN-7's tickets follow their steps). */
function ticketStatus(state: PlanNodeState): string {
  return state === 'running' ? 'inProgress' : state === 'pending' || state === 'ready' ? 'open' : state;
}

/** What an approved plan's execution looks like now: the run's status and each step's state. */
interface PlanExecution {
  runId: string;
  status: PlanStatus;
  steps: Map<string, { state: PlanNodeState; runId: string | null; attempts: number; error: string | null; startedAt: string | null; endedAt: string | null }>;
}

/**
 * Plans (PLAN-1..8): stores valid submissions as versions per conversation and compiles an approved
 * plan into tickets and a pipeline (no model) that the one durable engine runs (PIPE-1): one
 * `planStep` node per step, run by the plan's author in the plan's conversation. The plan's step
 * states, progress and status are read from that run; `plan_nodes` and the tickets follow it.
 */
export class PlanService {
  /** Per-plan chains, so two updates of one run never write the plan's mirror rows out of order. */
  private readonly syncing = new Map<string, Promise<void>>();
  /** Pipeline run → plan id (null: a run that is not a plan's); bounded, it is only a cache. */
  private readonly planOfRun = new Map<string, string | null>();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly spaces: SpaceService,
    private readonly agents: AgentService,
    private readonly turns: TurnService,
    private readonly engine: PipelineEngine,
    private readonly events: EventBus,
  ) {
    events.subscribeAll((event) => this.onEvent(event));
  }

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
        approvedEstimate: null,
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

  /** Plans an operator has to approve or reject (the Inbox), newest first. */
  async listAwaitingApproval(workspaceId: string): Promise<Plan[]> {
    const db = await this.db(workspaceId);
    const plans = await listPlansInStatus(db, 'proposed', 200);
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
  async approve(workspaceId: string, planId: string, operator: OperatorPrincipal, actor: AuditActor): Promise<Plan> {
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
    // TRUTH-3: the estimate the operator approves is the one the plan keeps; later runs grow the
    // agent's history, and a recomputed figure would no longer be what was approved.
    const estimate = freezeEstimate(await this.estimate(workspaceId, db, row.agentId, submission), now);
    await db.transaction().execute(async (trx) => {
      const started = await startPlanExecution(trx, planId, { blueprint, estimate, decidedBy: operator.operatorId, at: now });
      if (!started) throw new ConflictError('planId', `plan ${planId} was decided concurrently`);
      // TEAM-3: the decision's audit entry commits with the plan's start, or not at all.
      await insertAuditEntry(trx, auditEntryOf({ kind: 'plan.approved', actor, workspaceId, spaceId: row.spaceId, conversationId: row.conversationId, subject: { type: 'plan', id: planId }, summary: `Approved plan version ${row.version}: ${submission.goal}`.slice(0, 300) }));
      // PLAN-7 on ORC-4: the approved plan is recorded as an orchestration (one role: its planner).
      await recordPlanOrchestration(trx, row, { decidedBy: operator.operatorId, at: now });
      // A ticket's dependencies are ticket ids, as everywhere else (the board resolves them by id);
      // the blueprint is in topological order, so every dependency's ticket exists before it.
      const ticketIds = new Map<string, string>();
      for (const ticket of blueprint.tickets) {
        const ticketId = newId('tkt');
        ticketIds.set(ticket.key, ticketId);
        await insertTicket(trx, {
          id: ticketId,
          planId,
          nodeKey: ticket.key,
          title: ticket.title,
          description: ticket.description,
          status: 'open',
          dependsOn: ticket.dependsOn.map((key) => ticketIds.get(key) ?? key),
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
      if (space && space.mode !== 'chat' && space.kind !== 'pullRequest') await this.spaces.update(workspaceId, row.spaceId, { mode: 'chat' }, { cause: { kind: 'planApproved', goal: submission.goal }, operatorId: operator.operatorId });
    }
    await this.spaces.setConversationGoal(workspaceId, row.conversationId, submission.goal);
    const plan = await this.get(workspaceId, planId);
    this.events.publish(workspaceId, 'plan.approved', plan);
    await this.launch(workspaceId, { ...row, status: 'executing', blueprint }, new Set());
    return this.get(workspaceId, planId);
  }

  /** Starts the plan's pipeline run on the engine (idempotent per plan). */
  private async launch(workspaceId: string, row: PlanRecord & { blueprint: PlanBlueprint }, finished: ReadonlySet<string>): Promise<void> {
    const definition = compilePlanPipeline(row.blueprint, { planId: row.id, agentId: row.agentId, conversationId: row.conversationId, spaceId: row.spaceId }, finished);
    if (definition.nodes.length === 0) {
      await setPlanStatus(await this.db(workspaceId), row.id, 'completed', nowIso());
      return;
    }
    const { runId } = await this.engine.start({
      workspaceId,
      definition,
      trigger: { type: 'manual' },
      source: { kind: 'plan', id: row.id },
      idempotencyKey: planRunIdempotencyKey(row.id),
    });
    this.remember(runId, row.id);
  }

  /** Reject: the plan is closed and the agent that wrote it is woken with the reason (POL-7). */
  async reject(workspaceId: string, planId: string, operator: OperatorPrincipal, reason: string | undefined, actor: AuditActor): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    if (row.status !== 'proposed') throw new ConflictError('planId', `plan ${planId} is ${row.status}; only a proposed plan can be rejected`);
    const now = nowIso();
    const act = { kind: 'plan.rejected', actor, workspaceId, spaceId: row.spaceId, conversationId: row.conversationId, subject: { type: 'plan', id: planId }, summary: `Rejected plan version ${row.version}${reason ? `: ${reason}` : ''}`.slice(0, 300), details: { reason: reason ?? null } };
    await withAuditEntry(db, act, (trx) => rejectPlan(trx, planId, { decidedBy: operator.operatorId, reason: reason ?? null, at: now }));
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
    const execution = await this.execution(db, row);
    const status = execution?.status ?? row.status;
    if (status !== 'executing' || !execution) throw new ConflictError('planId', `plan ${planId} is ${status}, not executing`);
    await this.engine.cancelRun(workspaceId, execution.runId).catch((error: unknown) => {
      // The run ended between the read and the cancel: nothing is left to stop.
      if (!(error instanceof ConflictError)) throw error;
    });
    await this.sync(workspaceId, planId);
    return this.get(workspaceId, planId);
  }

  /**
   * PLAN-8: runs a stopped or failed plan again from where it stopped. Finished steps are kept; the
   * cancelled, failed and blocked ones go back to pending and run as their dependencies allow (the
   * engine re-opens the same run). Refused while a step of it is still winding down.
   */
  async resume(workspaceId: string, planId: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    const execution = await this.execution(db, row);
    const status = execution?.status ?? row.status;
    if ((status !== 'cancelled' && status !== 'failed') || !execution) throw new ConflictError('planId', `plan ${planId} is ${status}; only a stopped or failed plan can be resumed`);
    const steps = [...execution.steps.entries()];
    if (steps.some(([, step]) => step.state === 'running')) throw new ConflictError('planId', `plan ${planId} still has a step stopping; try again in a moment`);
    const again = steps.filter(([, step]) => step.state === 'cancelled' || step.state === 'failed' || step.state === 'blocked').map(([key]) => key);
    if (again.length === 0) throw new ConflictError('planId', `plan ${planId} has no unfinished step to run again`);
    await this.engine.restartRun(workspaceId, execution.runId, again).catch((error: unknown) => {
      if (error instanceof ConflictError) throw new ConflictError('planId', `plan ${planId}: ${error.message}`);
      throw error;
    });
    const now = nowIso();
    await db.transaction().execute(async (trx) => {
      await setPlanStatus(trx, planId, 'executing', now);
      await resetPlanNodes(trx, planId, again);
      await reopenPlanTickets(trx, planId, again, now);
    });
    await this.sync(workspaceId, planId);
    return this.get(workspaceId, planId);
  }

  /** Cancels one step; its dependents become blocked (PLAN-8). */
  async cancelNode(workspaceId: string, planId: string, key: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findPlanOrThrow(db, planId);
    const execution = await this.execution(db, row);
    const status = execution?.status ?? row.status;
    if (status !== 'executing' || !execution) throw new ConflictError('planId', `plan ${planId} is ${status}, not executing`);
    const step = execution.steps.get(key);
    if (!row.submission.nodes.some((node) => node.key === key)) throw new NotFoundError('plan step', key, 'key');
    if (!step) throw new ConflictError('key', `step ${key} already finished before this execution`);
    if (step.state !== 'pending' && step.state !== 'ready' && step.state !== 'running') throw new ConflictError('key', `step ${key} is already ${step.state}`);
    await this.engine.cancelNode(workspaceId, execution.runId, key).catch((error: unknown) => {
      if (error instanceof ConflictError) throw new ConflictError('key', `step ${key}: ${error.message}`);
      throw error;
    });
    await this.sync(workspaceId, planId);
    return this.get(workspaceId, planId);
  }

  /**
   * On start: a plan approved but without a run (a crash between approval and launch, or a plan that
   * was executing on the scheduler before plans moved onto the engine) gets its run now; steps already
   * done are kept. Runs in flight are the engine's to resume (PIPE-1).
   */
  async resumeExecutions(workspaceId: string): Promise<void> {
    const db = await this.db(workspaceId);
    for (const id of await executingPlanIds(db)) {
      const row = await this.findPlanOrThrow(db, id);
      // A plan approved before plans were recorded as orchestrations gets its record now (PLAN-7).
      if (!(await findOrchestrationOfPlan(db, id))) {
        await db.transaction().execute((trx) => recordPlanOrchestration(trx, row, { decidedBy: row.decidedBy ?? 'operator', at: nowIso() }));
      }
      if (await findPipelineRunIdByKey(db, planRunIdempotencyKey(id))) continue;
      if (!row.blueprint) continue;
      const done = (await listPlanNodes(db, id)).filter((node) => node.state === 'done').map((node) => node.key);
      await this.launch(workspaceId, { ...row, blueprint: row.blueprint }, new Set(done));
    }
  }

  // ---- following the run -------------------------------------------------------------------------

  private remember(runId: string, planId: string | null): void {
    if (this.planOfRun.size >= 10_000) this.planOfRun.clear();
    this.planOfRun.set(runId, planId);
  }

  /** Every change of a plan's run becomes a `plan.updated` with the plan's mirror rows brought in step. */
  private onEvent(event: WorkspaceEvent): void {
    if (event.type !== 'pipelineRun.updated') return;
    const runId = event.data.runId;
    const known = this.planOfRun.get(runId);
    if (known === null) return;
    void (async () => {
      let planId: string | null | undefined = known;
      if (planId === undefined) {
        const source = await findPipelineRunSource(await this.db(event.workspaceId), runId);
        planId = source?.kind === 'plan' && source.id ? source.id : null;
        this.remember(runId, planId);
      }
      if (planId) await this.sync(event.workspaceId, planId);
    })().catch(() => undefined);
  }

  /** Brings `plan_nodes`, the tickets and the plan's status in step with its run and publishes the plan; serialized per plan. */
  private sync(workspaceId: string, planId: string): Promise<void> {
    const previous = this.syncing.get(planId) ?? Promise.resolve();
    const next = previous.then(() => this.syncNow(workspaceId, planId)).catch(() => undefined);
    this.syncing.set(planId, next);
    void next.finally(() => {
      if (this.syncing.get(planId) === next) this.syncing.delete(planId);
    });
    return next;
  }

  private async syncNow(workspaceId: string, planId: string): Promise<void> {
    const db = await this.db(workspaceId);
    const row = await findPlan(db, planId);
    if (!row) return;
    const execution = await this.execution(db, row);
    if (!execution) return;
    const now = nowIso();
    const mirror = new Map((await listPlanNodes(db, planId)).map((node) => [node.key, node]));
    let changed = false;
    for (const [key, step] of execution.steps) {
      const stored = mirror.get(key);
      if (!stored || (stored.state === step.state && stored.runId === step.runId && stored.error === step.error)) continue;
      await updatePlanNode(db, planId, key, step);
      if (stored.state !== step.state) await setPlanTicketStatus(db, planId, key, ticketStatus(step.state), now);
      changed = true;
    }
    if (row.status !== execution.status) {
      await setPlanStatus(db, planId, execution.status, now);
      changed = true;
    }
    if (changed) this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, planId));
  }

  /** The plan's run as the plan sees it, or null before approval (or before its run started). */
  private async execution(db: Kysely<WorkspaceSchema>, row: PlanRecord): Promise<PlanExecution | null> {
    if (!EXECUTION_STATUSES.has(row.status)) return null;
    const runId = await findPipelineRunIdByKey(db, planRunIdempotencyKey(row.id));
    if (!runId) return null;
    this.remember(runId, row.id);
    const run = await findPipelineRunStatus(db, runId);
    if (!run) return null;
    const steps: PlanExecution['steps'] = new Map();
    for (const node of await listPipelineNodes(db, runId)) {
      steps.set(node.key, { state: stepState(node), runId: node.agentRunId, attempts: node.attempts, error: node.error, startedAt: node.startedAt, endedAt: node.endedAt });
    }
    return { runId, status: PLAN_STATUS_OF_RUN[run.status], steps };
  }

  private async view(workspaceId: string, db: Kysely<WorkspaceSchema>, row: PlanRecord): Promise<Plan> {
    const { submission, blueprint } = row;
    const stored = await listPlanNodes(db, row.id);
    const byKey = new Map<string, PlanNodeRecord>(stored.map((node) => [node.key, node]));
    // The run is the truth while it exists; a step outside it finished before (kept from plan_nodes).
    const execution = await this.execution(db, row);
    const levels = new Map(blueprint?.tickets.map((ticket) => [ticket.key, ticket.level]) ?? []);
    const nodes = submission.nodes.map((node) => {
      const mirror = byKey.get(node.key);
      const step = execution?.steps.get(node.key) ?? mirror;
      return {
        key: node.key,
        title: node.title,
        description: node.description,
        dependsOn: [...new Set(node.dependsOn)],
        state: step?.state ?? 'pending',
        ticketId: mirror?.ticketId ?? null,
        runId: step?.runId ?? null,
        assigneeAgentId: mirror?.assigneeAgentId ?? null,
        error: step?.error ?? null,
        level: levels.get(node.key) ?? null,
      };
    });
    const states = new Map(nodes.map((node) => [node.key, node.state]));
    const progress = blueprint ? planProgress(blueprint, states) : { settled: 0, total: nodes.length };
    return {
      id: row.id,
      conversationId: row.conversationId,
      spaceId: row.spaceId,
      agentId: row.agentId,
      runId: row.runId,
      version: row.version,
      goal: row.goal,
      status: execution?.status ?? row.status,
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
      pipelineRunId: execution?.runId ?? null,
      orchestrationId: (await findOrchestrationOfPlan(db, row.id))?.id ?? null,
      costEstimate: await this.shownEstimate(workspaceId, db, row),
      actualCost: await runTreeCost(db, nodes.flatMap((node) => (node.runId ? [node.runId] : []))),
      decidedBy: row.decidedBy,
      reason: row.reason,
      createdAt: row.createdAt,
      decidedAt: row.decidedAt,
      updatedAt: row.updatedAt,
    };
  }

  /**
   * The estimate a plan shows (TRUTH-3): an approved plan (it has a blueprint) the one frozen with its
   * approval, or "not recorded" when it was approved before estimates were kept; a plan not approved
   * the current one.
   */
  private async shownEstimate(workspaceId: string, db: Kysely<WorkspaceSchema>, row: PlanRecord): Promise<Plan['costEstimate']> {
    if (row.blueprint === null) return this.estimate(workspaceId, db, row.agentId, row.submission);
    return row.approvedEstimate ?? notRecordedEstimate(row.submission.nodes.map((node) => node.key), row.decidedAt);
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
    return liveEstimate(estimatePlanCost(submission.nodes, pricing, await completedRunUsage(db, agentId, 50)));
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
