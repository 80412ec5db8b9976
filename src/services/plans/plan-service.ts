import type { Kysely, Selectable } from 'kysely';
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
import type { PlanNodeTable, PlanTable, WorkspaceSchema } from '../../store/workspace-schema.js';
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
      const latest = await trx
        .selectFrom('plans')
        .select((eb) => eb.fn.max('version').as('version'))
        .where('conversation_id', '=', input.conversationId)
        .executeTakeFirst();
      await trx
        .updateTable('plans')
        .set({ status: 'superseded', updated_at: now })
        .where('conversation_id', '=', input.conversationId)
        .where('status', '=', 'proposed')
        .execute();
      await trx
        .insertInto('plans')
        .values({
          id,
          conversation_id: input.conversationId,
          space_id: input.spaceId,
          agent_id: input.agentId,
          run_id: input.runId,
          version: Number(latest?.version ?? 0) + 1,
          goal: input.submission.goal,
          status: 'proposed',
          submission: JSON.stringify(input.submission),
          errors: '[]',
          blueprint: null,
          decided_by: null,
          reason: null,
          created_at: now,
          decided_at: null,
          updated_at: now,
        })
        .execute();
    });
    const plan = await this.get(input.workspaceId, id);
    this.events.publish(input.workspaceId, 'plan.submitted', plan);
    return { ok: true, plan };
  }

  async list(workspaceId: string, conversationId?: string): Promise<Plan[]> {
    const db = await this.db(workspaceId);
    let query = db.selectFrom('plans').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(200);
    if (conversationId) query = query.where('conversation_id', '=', conversationId);
    const rows = await query.execute();
    return Promise.all(rows.map((row) => this.view(workspaceId, db, row)));
  }

  async get(workspaceId: string, planId: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    return this.view(workspaceId, db, await this.findRow(db, planId));
  }

  /**
   * PLAN-7: an operator approves; the graph compiles (no model) into one ticket per node, dependency
   * edges and an execution; the space returns to chat; the plan's goal becomes the conversation's.
   */
  async approve(workspaceId: string, planId: string, operator: OperatorPrincipal): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findRow(db, planId);
    if (row.status !== 'proposed') throw new ConflictError('planId', `plan ${planId} is ${row.status}; only a proposed plan can be approved`);
    const submission = JSON.parse(row.submission) as PlanSubmission;
    const violations = validatePlanGraph(submission);
    if (violations.length > 0) {
      throw new ConflictError('planId', `plan ${planId} has ${violations.length} validation error(s) and cannot be approved: ${violations[0]!.message}`);
    }
    const blueprint = compilePlan(submission);
    const now = nowIso();
    await db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('plans')
        .set({ status: 'executing', blueprint: JSON.stringify(blueprint), decided_by: operator.operatorId, decided_at: now, updated_at: now })
        .where('id', '=', planId)
        .where('status', '=', 'proposed')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) throw new ConflictError('planId', `plan ${planId} was decided concurrently`);
      for (const ticket of blueprint.tickets) {
        const ticketId = newId('tkt');
        await trx
          .insertInto('tickets')
          .values({
            id: ticketId,
            plan_id: planId,
            node_key: ticket.key,
            title: ticket.title,
            description: ticket.description,
            status: 'open',
            depends_on: JSON.stringify(ticket.dependsOn),
            assignee_agent_id: row.agent_id,
            created_at: now,
            updated_at: now,
          })
          .execute();
        await trx
          .insertInto('plan_nodes')
          .values({ plan_id: planId, key: ticket.key, ticket_id: ticketId, state: 'pending', run_id: null, assignee_agent_id: row.agent_id, attempts: 0, error: null, started_at: null, ended_at: null })
          .execute();
      }
    });
    if (row.space_id) {
      const space = await this.spaces.findSpace(workspaceId, row.space_id);
      if (space && space.mode !== 'chat' && space.kind !== 'pullRequest') await this.spaces.update(workspaceId, row.space_id, { mode: 'chat' });
    }
    await this.spaces.setConversationGoal(workspaceId, row.conversation_id, submission.goal);
    const plan = await this.get(workspaceId, planId);
    this.events.publish(workspaceId, 'plan.approved', plan);
    await this.schedule(workspaceId, planId);
    return this.get(workspaceId, planId);
  }

  /** Reject: the plan is closed and the agent that wrote it is woken with the reason (POL-7). */
  async reject(workspaceId: string, planId: string, operator: OperatorPrincipal, reason: string | undefined): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findRow(db, planId);
    if (row.status !== 'proposed') throw new ConflictError('planId', `plan ${planId} is ${row.status}; only a proposed plan can be rejected`);
    const now = nowIso();
    await db
      .updateTable('plans')
      .set({ status: 'rejected', decided_by: operator.operatorId, decided_at: now, reason: reason ?? null, updated_at: now })
      .where('id', '=', planId)
      .execute();
    const plan = await this.get(workspaceId, planId);
    this.events.publish(workspaceId, 'plan.rejected', plan);
    const agent = await this.agents.get(workspaceId, row.agent_id).catch(() => null);
    if (agent) {
      const text = `The operator rejected your plan (version ${row.version})${reason ? `: ${reason}` : '.'} Revise the plan and submit it again, or explain why it should stand.`;
      await this.turns.startSystemTurn(workspaceId, { agent, conversationId: row.conversation_id, spaceId: row.space_id, text });
    }
    return plan;
  }

  /** Stops the whole execution: running steps are cancelled, the rest will never start (PLAN-8). */
  async cancel(workspaceId: string, planId: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findRow(db, planId);
    if (row.status !== 'executing') throw new ConflictError('planId', `plan ${planId} is ${row.status}, not executing`);
    const now = nowIso();
    await db.updateTable('plans').set({ status: 'cancelled', updated_at: now }).where('id', '=', planId).execute();
    const nodes = await db.selectFrom('plan_nodes').selectAll().where('plan_id', '=', planId).execute();
    for (const node of nodes) {
      if (node.state === 'running' && node.run_id) this.executor.cancel(node.run_id);
      if (node.state === 'pending' || node.state === 'ready') {
        await this.setNodeState(db, planId, node.key, { state: 'cancelled', ended_at: now });
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
    const row = await this.findRow(db, planId);
    if (row.status !== 'cancelled' && row.status !== 'failed') throw new ConflictError('planId', `plan ${planId} is ${row.status}; only a stopped or failed plan can be resumed`);
    const nodes = await db.selectFrom('plan_nodes').select(['key', 'state']).where('plan_id', '=', planId).execute();
    if (nodes.some((node) => node.state === 'running')) throw new ConflictError('planId', `plan ${planId} still has a step stopping; try again in a moment`);
    const again = nodes.filter((node) => node.state === 'cancelled' || node.state === 'failed' || node.state === 'blocked').map((node) => node.key);
    if (again.length === 0) throw new ConflictError('planId', `plan ${planId} has no unfinished step to run again`);
    const now = nowIso();
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('plans').set({ status: 'executing', updated_at: now }).where('id', '=', planId).execute();
      await trx.updateTable('plan_nodes').set({ state: 'pending', run_id: null, error: null, started_at: null, ended_at: null }).where('plan_id', '=', planId).where('key', 'in', again).execute();
      await trx.updateTable('tickets').set({ status: 'open', updated_at: now }).where('plan_id', '=', planId).where('node_key', 'in', again).execute();
    });
    this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, planId));
    await this.schedule(workspaceId, planId);
    return this.get(workspaceId, planId);
  }

  /** Cancels one step; its dependents become blocked (PLAN-8). */
  async cancelNode(workspaceId: string, planId: string, key: string): Promise<Plan> {
    const db = await this.db(workspaceId);
    const row = await this.findRow(db, planId);
    if (row.status !== 'executing') throw new ConflictError('planId', `plan ${planId} is ${row.status}, not executing`);
    const node = await db.selectFrom('plan_nodes').selectAll().where('plan_id', '=', planId).where('key', '=', key).executeTakeFirst();
    if (!node) throw new NotFoundError('plan step', key, 'key');
    if (node.state === 'running' && node.run_id) {
      this.executor.cancel(node.run_id);
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
    const executing = await db.selectFrom('plans').select('id').where('status', '=', 'executing').execute();
    for (const { id } of executing) {
      const inFlight = await db.selectFrom('plan_nodes').selectAll().where('plan_id', '=', id).where('state', '=', 'running').execute();
      for (const node of inFlight) {
        if (node.attempts >= MAX_NODE_ATTEMPTS) {
          await this.finishNode(workspaceId, id, node.key, 'failed', 'the server stopped while this step was running, too many times');
        } else {
          await this.setNodeState(db, id, node.key, { state: 'pending', run_id: null, error: 'interrupted by a server restart; started again' });
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
    const row = await this.findRow(db, planId);
    if (row.status !== 'executing' || !row.blueprint) return;
    const blueprint = JSON.parse(row.blueprint) as PlanBlueprint;
    const nodes = await db.selectFrom('plan_nodes').selectAll().where('plan_id', '=', planId).execute();
    const states = new Map(nodes.map((node) => [node.key, node.state as PlanNodeState]));
    const progress = planProgress(blueprint, states);
    if (progress.settled === progress.total) {
      const status: PlanStatus = progress.counts.done === progress.total ? 'completed' : progress.counts.cancelled > 0 && progress.counts.failed === 0 ? 'cancelled' : 'failed';
      await db.updateTable('plans').set({ status, updated_at: nowIso() }).where('id', '=', planId).execute();
      this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, planId));
      return;
    }
    const settings = await this.settings.get(workspaceId);
    let running = progress.counts.running;
    const agent = await this.agents.get(workspaceId, row.agent_id).catch(() => null);
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
  private async startNode(workspaceId: string, plan: Selectable<PlanTable>, blueprint: PlanBlueprint, key: string, agentId: string): Promise<void> {
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
    const node = await db.selectFrom('plan_nodes').select('attempts').where('plan_id', '=', plan.id).where('key', '=', key).executeTakeFirstOrThrow();
    const run = await this.turns.startSystemTurn(workspaceId, {
      agent,
      conversationId: plan.conversation_id,
      spaceId: plan.space_id,
      text: prompt,
      planStep: { planId: plan.id, key },
      onFinished: (finished) => this.onNodeRunFinished(workspaceId, plan.id, key, finished),
    });
    await this.setNodeState(db, plan.id, key, { state: 'running', run_id: run.id, attempts: node.attempts + 1, started_at: nowIso(), error: null });
    await db.updateTable('tickets').set({ status: 'inProgress', updated_at: nowIso() }).where('plan_id', '=', plan.id).where('node_key', '=', key).execute();
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
    const row = await this.findRow(db, planId);
    const now = nowIso();
    await this.setNodeState(db, planId, key, { state, ended_at: now, error });
    await db
      .updateTable('tickets')
      .set({ status: state === 'done' ? 'done' : state, updated_at: now })
      .where('plan_id', '=', planId)
      .where('node_key', '=', key)
      .execute();
    if ((state === 'failed' || state === 'cancelled') && row.blueprint) {
      const blueprint = JSON.parse(row.blueprint) as PlanBlueprint;
      const nodes = await db.selectFrom('plan_nodes').select(['key', 'state']).where('plan_id', '=', planId).execute();
      const propagation = propagateFailure(blueprint, new Map(nodes.map((node) => [node.key, node.state as PlanNodeState])), key);
      for (const blocked of propagation.blocked) {
        await this.setNodeState(db, planId, blocked, { state: 'blocked', ended_at: now, error: `blocked: step ${key} ${state}` });
        await db.updateTable('tickets').set({ status: 'blocked', updated_at: now }).where('plan_id', '=', planId).where('node_key', '=', blocked).execute();
      }
    }
    this.events.publish(workspaceId, 'plan.updated', await this.get(workspaceId, planId));
    if (!FINISHED_PLAN.has(row.status)) await this.schedule(workspaceId, planId);
  }

  private async setNodeState(db: Kysely<WorkspaceSchema>, planId: string, key: string, patch: Partial<PlanNodeTable>): Promise<void> {
    await db.updateTable('plan_nodes').set(patch).where('plan_id', '=', planId).where('key', '=', key).execute();
  }

  private async view(workspaceId: string, db: Kysely<WorkspaceSchema>, row: Selectable<PlanTable>): Promise<Plan> {
    const submission = JSON.parse(row.submission) as PlanSubmission;
    const blueprint = row.blueprint ? (JSON.parse(row.blueprint) as PlanBlueprint) : null;
    const nodeRows = await db.selectFrom('plan_nodes').selectAll().where('plan_id', '=', row.id).execute();
    const byKey = new Map(nodeRows.map((node) => [node.key, node]));
    const levels = new Map(blueprint?.tickets.map((ticket) => [ticket.key, ticket.level]) ?? []);
    const states = new Map(nodeRows.map((node) => [node.key, node.state as PlanNodeState]));
    const nodes = submission.nodes.map((node) => {
      const stored = byKey.get(node.key);
      return {
        key: node.key,
        title: node.title,
        description: node.description,
        dependsOn: [...new Set(node.dependsOn)],
        state: (stored?.state ?? 'pending') as PlanNodeState,
        ticketId: stored?.ticket_id ?? null,
        runId: stored?.run_id ?? null,
        assigneeAgentId: stored?.assignee_agent_id ?? null,
        error: stored?.error ?? null,
        level: levels.get(node.key) ?? null,
      };
    });
    const progress = blueprint ? planProgress(blueprint, states) : { settled: 0, total: nodes.length };
    return {
      id: row.id,
      conversationId: row.conversation_id,
      spaceId: row.space_id,
      agentId: row.agent_id,
      runId: row.run_id,
      version: row.version,
      goal: row.goal,
      status: row.status as PlanStatus,
      stepCount: nodes.length,
      nodes,
      edges: nodes.flatMap((node) => node.dependsOn.map((dependency) => ({ from: dependency, to: node.key }))),
      errors: (JSON.parse(row.errors) as PlanViolation[]).map((violation) => ({
        code: violation.code,
        message: violation.message,
        field: violation.field,
        ...(violation.nodeKey ? { nodeKey: violation.nodeKey } : {}),
      })),
      progress: { settled: progress.settled, total: progress.total },
      costEstimate: await this.estimate(workspaceId, db, row.agent_id, submission),
      decidedBy: row.decided_by,
      reason: row.reason,
      createdAt: row.created_at,
      decidedAt: row.decided_at,
      updatedAt: row.updated_at,
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
    const history = await db
      .selectFrom('runs')
      .select(['input_tokens', 'output_tokens'])
      .where('agent_id', '=', agentId)
      .where('state', '=', 'completed')
      .where('input_tokens', '>', 0)
      .orderBy('created_at', 'desc')
      .limit(50)
      .execute();
    const estimate = estimatePlanCost(
      submission.nodes,
      pricing,
      history.map((run) => ({ inputTokens: run.input_tokens ?? 0, outputTokens: run.output_tokens ?? 0 })),
    );
    return {
      perNode: estimate.perNode.map((node) => ({ ...node })),
      total: { ...estimate.total },
      basis: estimate.basis,
      currency: estimate.currency,
    };
  }

  private async findRow(db: Kysely<WorkspaceSchema>, planId: string): Promise<Selectable<PlanTable>> {
    const row = await db.selectFrom('plans').selectAll().where('id', '=', planId).executeTakeFirst();
    if (!row) throw new NotFoundError('plan', planId, 'planId');
    return row;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}
