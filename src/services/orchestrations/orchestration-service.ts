import type { Logger } from 'pino';
import { checkDependencyClosed } from '../../core/orchestrations/dependency-closure.js';
import type { OrchestrationProposal } from '../../core/orchestrations/orchestration-proposal.js';
import { canTransition, isFinished, type OrchestrationStatus } from '../../core/orchestrations/orchestration-status.js';
import type { OrchestrationViolation } from '../../core/orchestrations/orchestration-violation.js';
import { diffRevisions } from '../../core/orchestrations/revision-diff.js';
import { admitNode, type NodeCostEstimate } from '../../core/orchestrations/node-budget.js';
import { estimateRole } from '../../core/orchestrations/role-estimate.js';
import { validateOrchestrationProposal } from '../../core/orchestrations/validate-orchestration-proposal.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import { CreateAgentBody } from '../../schemas/agent.js';
import type { Orchestration } from '../../schemas/orchestration.js';
import {
  findOpenProposal,
  findOrchestration,
  findOrchestrationByBudgetApproval,
  insertOrchestration,
  insertRevision,
  listOrchestrations,
  listRevisions,
  listSteps,
  recentRunCosts,
  updateOrchestration,
  type OrchestrationRecord,
} from '../../store/repositories/orchestration-repository.js';
import type { Approval } from '../../schemas/approval.js';
import {
  deleteBudgetReservation,
  dropSettledReservations,
  forgetBudgetRun,
  insertBudgetWait,
  listBudgetReservations,
  takeBudgetWaits,
  upsertBudgetReservation,
} from '../../store/repositories/budget-reservation-repository.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { EventBus } from '../event-bus.js';
import type { OperatorPrincipal } from '../operator-auth.js';
import type { AuditActor } from '../../schemas/audit.js';
import { withAuditEntry } from '../audit/audit-act.js';
import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { PerKeyLock } from '../../core/per-key-lock.js';
import { PlanRecordFollower } from './plan-record-follower.js';
import { estimateRunNode } from './node-cost-estimate.js';
import { OrchestrationMaterializer, type RoleMember } from './orchestration-materializer.js';
import { setOrchestrationTicketStatus } from './orchestration-tickets.js';
import type { PipelineBudgetGate, PipelineBudgetVerdict, PipelineLauncher, PipelineRunControl, PipelineRunObserver } from './pipeline-launcher.js';
import { unfinishedNodesError } from './unfinished-nodes-error.js';

/** ORC-3: an agent's re-proposal within this long of its previous revision is refused. */
export const REPROPOSAL_COOLDOWN_MS = 2 * 60_000;

export interface ProposeInput {
  workspaceId: string;
  conversationId: string | null;
  spaceId: string | null;
  agentId: string;
  runId: string | null;
  proposal: OrchestrationProposal;
}

export type ProposeResult =
  | { ok: true; orchestration: Orchestration; revision: number }
  | { ok: false; kind: 'invalid'; violations: OrchestrationViolation[] }
  | { ok: false; kind: 'cooldown'; orchestrationId: string; revision: number; retryAfterSeconds: number };

export interface OrchestrationServiceOptions {
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
  cooldownMs?: number;
  logger?: Logger;
  /**
   * Starts a turn of the orchestrator in its conversation with `text` (a rejection and its reason, so it
   * can revise — the same courtesy a rejected plan gets, POL-7). Absent: nobody is woken.
   */
  /**
   * The Inbox (POL-7): a budget pause asks the operator there (ORC-4). Absent: the pause waits for
   * `POST …/budget` or a cancel only.
   */
  approvals?: Pick<ApprovalService, 'create' | 'onDecided' | 'withdraw'>;
  wakeOrchestrator?: (input: { workspaceId: string; agentId: string; conversationId: string; spaceId: string | null; text: string }) => Promise<void>;
}

const CANCELLABLE: readonly OrchestrationStatus[] = ['proposed', 'approved', 'executing', 'synthesizing'];

/** The Inbox approval a budget pause creates (ORC-4): approve lets the held node run over the cap once; reject cancels. */
export const BUDGET_APPROVAL_KIND = 'orchestration_budget';

/**
 * Orchestrations (ORC-1..4): stores validated proposals as revisions, lets only an operator decide
 * them, runs the materializer on approval and follows the pipeline it launched. Every write is one
 * transaction; every status change goes through the status machine with a guard on the current status,
 * so two concurrent decisions cannot both win.
 */
export class OrchestrationService implements PipelineRunObserver, PipelineBudgetGate {
  readonly materializer: OrchestrationMaterializer;
  private launcher: PipelineLauncher | null = null;
  private control: PipelineRunControl | null = null;
  private readonly now: () => number;
  private readonly cooldownMs: number;
  /** Serializes each orchestration's budget decisions in this process; the reservations are rows (ORC-4). */
  private readonly budgetLock = new PerKeyLock();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly agents: AgentService,
    private readonly events: EventBus,
    private readonly options: OrchestrationServiceOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.cooldownMs = options.cooldownMs ?? REPROPOSAL_COOLDOWN_MS;
    this.materializer = new OrchestrationMaterializer(workspaces, agents, () => this.launcher);
    options.approvals?.onDecided((workspaceId, approval) => this.onBudgetDecision(workspaceId, approval));
    new PlanRecordFollower(workspaces, events, (workspaceId, orchestrationId) => this.publishUpdate(workspaceId, orchestrationId), options.logger);
  }

  /**
   * Attaches the pipeline engine (the composition root does it once). Approved orchestrations that were
   * waiting for an engine are materialized from where they stopped.
   */
  async useLauncher(launcher: PipelineLauncher, control: PipelineRunControl | null = null): Promise<void> {
    this.attachEngine(launcher, control);
    for (const workspace of await this.workspaces.list()) await this.resumeMaterializations(workspace.id);
  }

  /** Sets the engine without resuming anything (the composition root's constructor; `recover` resumes). */
  attachEngine(launcher: PipelineLauncher, control: PipelineRunControl | null): void {
    this.launcher = launcher;
    this.control = control;
  }

  /** ORC-1..3: validate, enforce the cooldown, store a revision. Nothing runs (ORC-2). */
  async propose(input: ProposeInput): Promise<ProposeResult> {
    const db = await this.db(input.workspaceId);
    const agents = await this.agents.list(input.workspaceId);
    const violations = validateOrchestrationProposal(input.proposal, { knownAgentIds: new Set(agents.map((agent) => agent.id)) });
    const takenNames = new Set(agents.map((agent) => agent.name.toLowerCase()));
    input.proposal.roles.forEach((role, index) => {
      if (!role.hire) return;
      const parsed = CreateAgentBody.safeParse({ name: role.hire.name, title: role.hire.title, persona: role.hire.persona, skills: role.hire.skills });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          violations.push({ code: 'role_assignment', field: `roles.${index}.hire.${issue.path.join('.')}`, message: `Role "${role.roleKey}": the hire's ${issue.path.join('.')} ${issue.message}.` });
        }
      } else if (takenNames.has(role.hire.name.toLowerCase())) {
        violations.push({
          code: 'duplicate_hire_name',
          field: `roles.${index}.hire.name`,
          message: `Role "${role.roleKey}" hires "${role.hire.name}", but an agent of that name already exists; name it with agentId instead, or pick another name.`,
        });
      }
    });
    if (violations.length > 0) return { ok: false, kind: 'invalid', violations };

    const nowMs = this.now();
    const now = new Date(nowMs).toISOString();
    const outcome = await db.transaction().execute(async (trx) => {
      const open = await findOpenProposal(trx, input.conversationId, input.agentId);
      if (open) {
        const latest = (await listRevisions(trx, open.id)).at(-1)!;
        const elapsed = nowMs - Date.parse(latest.createdAt);
        if (elapsed < this.cooldownMs) {
          return { cooldown: true as const, id: open.id, revision: open.latestRevision, retryAfterSeconds: Math.max(1, Math.ceil((this.cooldownMs - elapsed) / 1000)) };
        }
        const revision = open.latestRevision + 1;
        await insertRevision(trx, { orchestrationId: open.id, revision, proposal: input.proposal, runId: input.runId, createdAt: now });
        await updateOrchestration(trx, open.id, { goal: input.proposal.goal, latestRevision: revision, runId: input.runId, maxUsd: input.proposal.budget?.maxUsd ?? null, updatedAt: now }, ['proposed']);
        return { cooldown: false as const, id: open.id, revision };
      }
      const id = newId('orc');
      await insertOrchestration(trx, {
        id,
        conversationId: input.conversationId,
        spaceId: input.spaceId,
        orchestratorAgentId: input.agentId,
        runId: input.runId,
        goal: input.proposal.goal,
        status: 'proposed',
        latestRevision: 1,
        approvedRevision: null,
        approvedKeys: null,
        decidedBy: null,
        reason: null,
        teamId: null,
        projectId: null,
        pipelineRunId: null,
        maxUsd: input.proposal.budget?.maxUsd ?? null,
        spentUsd: 0,
        budgetPaused: false,
        error: null,
        createdAt: now,
        decidedAt: null,
        updatedAt: now,
        planId: null,
        budgetApprovalId: null,
        budgetGrantNode: null,
      });
      await insertRevision(trx, { orchestrationId: id, revision: 1, proposal: input.proposal, runId: input.runId, createdAt: now });
      return { cooldown: false as const, id, revision: 1 };
    });
    if (outcome.cooldown) return { ok: false, kind: 'cooldown', orchestrationId: outcome.id, revision: outcome.revision, retryAfterSeconds: outcome.retryAfterSeconds };
    const orchestration = await this.get(input.workspaceId, outcome.id);
    this.events.publish(input.workspaceId, 'orchestration.proposed', orchestration);
    return { ok: true, orchestration, revision: outcome.revision };
  }

  async list(workspaceId: string, filter: { conversationId?: string } = {}): Promise<Orchestration[]> {
    const db = await this.db(workspaceId);
    const records = await listOrchestrations(db, filter);
    return Promise.all(records.map((record) => this.view(workspaceId, record)));
  }

  /** Proposals (and their revisions) an operator has to approve or reject (the Inbox), newest first. */
  async listAwaitingDecision(workspaceId: string): Promise<Orchestration[]> {
    const records = await listOrchestrations(await this.db(workspaceId), { statuses: ['proposed'] });
    return Promise.all(records.map((record) => this.view(workspaceId, record)));
  }

  async get(workspaceId: string, orchestrationId: string): Promise<Orchestration> {
    return this.view(workspaceId, await this.record(workspaceId, orchestrationId));
  }

  /** ORC-3: what changed between two revisions (`from` defaults to the one before `to`). */
  async diff(workspaceId: string, orchestrationId: string, to: number, from?: number) {
    const db = await this.db(workspaceId);
    await this.record(workspaceId, orchestrationId);
    const revisions = await listRevisions(db, orchestrationId);
    const after = revisions.find((revision) => revision.revision === to);
    if (!after) throw new NotFoundError('revision', String(to), 'to');
    const fromRevision = from ?? to - 1;
    const before = revisions.find((revision) => revision.revision === fromRevision);
    if (!before) throw new NotFoundError('revision', String(fromRevision), 'from');
    return { from: fromRevision, to, diff: diffRevisions(before.proposal, after.proposal) };
  }

  /**
   * ORC-2: an operator approves the revision they looked at (a newer one makes the approval stale:
   * 409), optionally a dependency-closed subset of the sub-tickets. The materializer then runs (ORC-4);
   * if it stops on an error the orchestration stays `approved` with the error, and resumes on restart.
   */
  async approve(workspaceId: string, orchestrationId: string, operator: OperatorPrincipal, input: { revision: number; subTicketKeys?: string[] | undefined }, actor: AuditActor): Promise<Orchestration> {
    const db = await this.db(workspaceId);
    const record = await this.record(workspaceId, orchestrationId);
    if (record.status !== 'proposed') throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} is ${record.status}; only a proposed one can be approved`);
    if (input.revision !== record.latestRevision) {
      throw new ConflictError('revision', `revision ${input.revision} is not the latest (${record.latestRevision}); review the latest revision and approve that one`);
    }
    const revision = (await listRevisions(db, orchestrationId)).find((candidate) => candidate.revision === input.revision)!;
    const proposal = revision.proposal;
    let keys: string[] | null = null;
    if (input.subTicketKeys) {
      const { unknown, missing } = checkDependencyClosed(proposal.subTickets, input.subTicketKeys);
      if (unknown.length > 0) throw new ValidationError('subTicketKeys', `unknown sub-ticket key(s): ${unknown.join(', ')}`);
      if (missing.size > 0) {
        const detail = [...missing].map(([key, absent]) => `${key} needs ${absent.join(', ')}`).join('; ');
        throw new ValidationError('subTicketKeys', `the subset is not closed under dependencies: ${detail}`);
      }
      const chosen = new Set(input.subTicketKeys);
      keys = proposal.subTickets.map((ticket) => ticket.key).filter((key) => chosen.has(key));
    }
    // Names may have been taken since the proposal: a hire must not silently adopt someone else's agent.
    const names = new Set((await this.agents.list(workspaceId)).map((agent) => agent.name.toLowerCase()));
    for (const role of proposal.roles) {
      if (role.hire && names.has(role.hire.name.toLowerCase())) {
        throw new ConflictError('revision', `role "${role.roleKey}" hires "${role.hire.name}", but an agent of that name now exists; ask for a revised proposal`);
      }
      if (role.agentId && !(await this.agents.get(workspaceId, role.agentId).then(() => true, () => false))) {
        throw new ConflictError('revision', `role "${role.roleKey}" names agent ${role.agentId}, which no longer exists`);
      }
    }
    const now = nowIso();
    const act = {
      kind: 'orchestration.approved',
      actor,
      workspaceId,
      spaceId: record.spaceId,
      conversationId: record.conversationId,
      subject: { type: 'orchestration', id: orchestrationId },
      summary: `Approved orchestration revision ${input.revision}${keys ? ` (${keys.length} of ${proposal.subTickets.length} sub-tickets)` : ''}`,
      details: { revision: input.revision, subTicketKeys: keys },
    };
    await withAuditEntry(db, act, async (trx) => {
      const updated = await updateOrchestration(
        trx,
        orchestrationId,
        { status: 'approved', approvedRevision: input.revision, approvedKeys: keys, decidedBy: operator.operatorId, decidedAt: now, maxUsd: proposal.budget?.maxUsd ?? null, updatedAt: now },
        ['proposed'],
      );
      if (!updated) throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} was decided concurrently`);
    });
    await this.publishUpdate(workspaceId, orchestrationId);
    await this.runMaterializer(workspaceId, orchestrationId);
    return this.get(workspaceId, orchestrationId);
  }

  async reject(workspaceId: string, orchestrationId: string, operator: OperatorPrincipal, reason: string | undefined, actor: AuditActor): Promise<Orchestration> {
    const result = await this.decideClosed(workspaceId, orchestrationId, 'rejected', operator, reason, ['proposed'], actor);
    if (result.conversationId && this.options.wakeOrchestrator) {
      const text = `The operator rejected your orchestration proposal ${result.id} (revision ${result.latestRevision})${reason ? `: ${reason}` : '.'} Revise it and propose again, or explain why it should stand.`;
      await this.options.wakeOrchestrator({ workspaceId, agentId: result.orchestratorAgentId, conversationId: result.conversationId, spaceId: result.spaceId, text }).catch((error: unknown) => {
        this.options.logger?.warn({ err: error, orchestrationId }, 'could not wake the orchestrator after a rejection');
      });
    }
    return result;
  }

  /** Cancels at any point before the end; a launched pipeline is cancelled through the engine's control. */
  async cancel(workspaceId: string, orchestrationId: string, operator: OperatorPrincipal, reason: string | undefined, actor?: AuditActor): Promise<Orchestration> {
    const record = await this.record(workspaceId, orchestrationId);
    const result = await this.decideClosed(workspaceId, orchestrationId, 'cancelled', operator, reason, CANCELLABLE, actor);
    await this.withdrawBudgetApproval(workspaceId, record, 'the orchestration was cancelled');
    if (record.pipelineRunId && this.control) await this.control.cancel({ workspaceId, pipelineRunId: record.pipelineRunId });
    return result;
  }

  /** After a budget pause: the operator sets a new cap; spending below it resumes the pipeline (ORC-4). */
  async setBudget(workspaceId: string, orchestrationId: string, maxUsd: number): Promise<Orchestration> {
    const db = await this.db(workspaceId);
    const record = await this.record(workspaceId, orchestrationId);
    if (isFinished(record.status)) throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} is ${record.status}`);
    if (maxUsd <= record.spentUsd) throw new ValidationError('maxUsd', `maxUsd must be above what has been spent ($${record.spentUsd.toFixed(4)})`);
    await updateOrchestration(db, orchestrationId, { maxUsd, budgetPaused: false, budgetApprovalId: null, updatedAt: nowIso() });
    await this.withdrawBudgetApproval(workspaceId, record, `the operator set the cap to $${maxUsd} instead`);
    if (record.budgetPaused && record.pipelineRunId && this.control) await this.control.resume({ workspaceId, pipelineRunId: record.pipelineRunId });
    return this.publishUpdate(workspaceId, orchestrationId);
  }

  /**
   * Start-up: approved orchestrations whose materialization a crash interrupted are finished (a plan's
   * record is not materialized: its plan launches it). Reservations of nodes that settled while the
   * process stopped are given back; those of nodes still in flight stay until their node asks again.
   */
  async resumeMaterializations(workspaceId: string): Promise<void> {
    const db = await this.db(workspaceId);
    for (const record of await listOrchestrations(db, { statuses: ['executing', 'synthesizing'] })) await dropSettledReservations(db, record.id);
    for (const record of await listOrchestrations(db, { statuses: ['approved'] })) {
      if (record.planId === null) await this.runMaterializer(workspaceId, record.id);
    }
  }

  // PipelineBudgetGate -------------------------------------------------------------------------------

  /**
   * ORC-4: before a node starts, its estimate (ORC-2's band from its agent's run history, per node; see
   * `admitNode`) is added to the spend and to what the nodes in flight reserved, so parallel nodes cannot
   * pass `maxUsd` by their own cost. `wait` holds the node until a node in flight finishes (resumed
   * here, no operator needed); `pause` holds it and asks the operator. An estimate the engine passes
   * (`estimatedUsd`) is used as given.
   */
  async beforeNode(input: Parameters<PipelineBudgetGate['beforeNode']>[0]): Promise<PipelineBudgetVerdict> {
    if (input.source.kind !== 'orchestration') return { proceed: true };
    const orchestrationId = input.source.id;
    const db = await this.db(input.workspaceId);
    return this.budgetLock.exclusive(orchestrationId, async () => {
      const capped = await findOrchestration(db, orchestrationId);
      if (!capped || capped.maxUsd === null) return { proceed: true };
      const estimate: NodeCostEstimate =
        typeof input.estimatedUsd === 'number' ? { kind: 'band', lowUsd: input.estimatedUsd, medianUsd: input.estimatedUsd, highUsd: input.estimatedUsd, runs: 0 } : await estimateRunNode(db, input.pipelineRunId, input.nodeKey);
      const decision = await db.transaction().execute(async (trx) => {
        const now = nowIso();
        // Writing the row first takes its write lock for the rest of the decision, so a second process
        // deciding for the same orchestration reads the reservations only after this one committed.
        await updateOrchestration(trx, orchestrationId, { updatedAt: now });
        const record = (await findOrchestration(trx, orchestrationId))!;
        if (record.maxUsd === null) return { verdict: { proceed: true } as PipelineBudgetVerdict, ask: null };
        const own = { pipelineRunId: input.pipelineRunId, nodeKey: input.nodeKey };
        if (record.budgetGrantNode === input.nodeKey) {
          // The operator approved this node over the cap (once): it holds what is left, so nothing else starts beside it.
          await updateOrchestration(trx, orchestrationId, { budgetGrantNode: null, updatedAt: now });
          await upsertBudgetReservation(trx, orchestrationId, { ...own, reservedUsd: Math.max(0, record.maxUsd - record.spentUsd) }, now);
          return { verdict: { proceed: true } as PipelineBudgetVerdict, ask: null };
        }
        // A node asking again (a retry, a run resumed after a restart) does not compete with its own reservation.
        const inFlight = (await listBudgetReservations(trx, orchestrationId)).filter((held) => held.pipelineRunId !== own.pipelineRunId || held.nodeKey !== own.nodeKey);
        const admission = admitNode({ nodeKey: input.nodeKey, spentUsd: record.spentUsd, maxUsd: record.maxUsd, inFlight, estimate });
        if (admission.verdict === 'admit') {
          await upsertBudgetReservation(trx, orchestrationId, { ...own, reservedUsd: admission.reserveUsd }, now);
          return { verdict: { proceed: true } as PipelineBudgetVerdict, ask: null };
        }
        if (admission.verdict === 'wait') {
          await insertBudgetWait(trx, orchestrationId, input.pipelineRunId, now);
          return { verdict: { proceed: false, reason: admission.reason, hold: 'budgetRoom' } as PipelineBudgetVerdict, ask: null };
        }
        const reason = `orchestration ${record.id}: ${admission.reason}; waiting for the operator`;
        await updateOrchestration(trx, record.id, { budgetPaused: true, error: reason, updatedAt: now });
        // One question at a time: a node held again after a restart finds the pending approval already there.
        return { verdict: { proceed: false, reason } as PipelineBudgetVerdict, ask: record.budgetApprovalId === null ? { record, reason } : null };
      });
      if (decision.ask) await this.askOperatorAboutBudget(input.workspaceId, decision.ask.record, input.nodeKey, decision.ask.reason);
      if (!decision.verdict.proceed && decision.verdict.hold !== 'budgetRoom') await this.publishUpdate(input.workspaceId, orchestrationId);
      return decision.verdict;
    });
  }

  /** ORC-4: a budget pause becomes an Inbox approval; its id is kept so a restart does not ask twice. */
  private async askOperatorAboutBudget(workspaceId: string, record: OrchestrationRecord, nodeKey: string, reason: string): Promise<void> {
    if (!this.options.approvals) return;
    const approval = await this.options.approvals.create(workspaceId, {
      kind: BUDGET_APPROVAL_KIND,
      durable: true,
      agentId: record.orchestratorAgentId,
      spaceId: record.spaceId,
      conversationId: record.conversationId,
      title: `Orchestration "${record.goal.slice(0, 120)}" would exceed its budget`,
      request: { orchestrationId: record.id, pipelineRunId: record.pipelineRunId, nodeKey, spentUsd: record.spentUsd, maxUsd: record.maxUsd, reason },
    });
    await updateOrchestration(await this.db(workspaceId), record.id, { budgetApprovalId: approval.id, updatedAt: nowIso() });
  }

  /** The operator's answer in the Inbox: approve → the held node runs over the cap and the run continues; reject → cancelled. */
  private async onBudgetDecision(workspaceId: string, approval: Approval): Promise<void> {
    if (approval.kind !== BUDGET_APPROVAL_KIND || (approval.status !== 'approved' && approval.status !== 'rejected')) return;
    const db = await this.db(workspaceId);
    const record = await findOrchestrationByBudgetApproval(db, approval.id);
    if (!record || isFinished(record.status)) return;
    if (approval.status === 'rejected') {
      await updateOrchestration(db, record.id, { budgetApprovalId: null, updatedAt: nowIso() });
      await this.cancel(workspaceId, record.id, { kind: 'operator', operatorId: approval.decidedBy ?? 'operator' }, approval.reason ?? 'the operator refused to exceed the budget');
      return;
    }
    const nodeKey = typeof approval.request['nodeKey'] === 'string' ? approval.request['nodeKey'] : null;
    await this.budgetLock.exclusive(record.id, () =>
      updateOrchestration(db, record.id, { budgetApprovalId: null, budgetGrantNode: nodeKey, budgetPaused: false, error: null, updatedAt: nowIso() }),
    );
    await this.publishUpdate(workspaceId, record.id);
    if (record.pipelineRunId && this.control) await this.control.resume({ workspaceId, pipelineRunId: record.pipelineRunId });
  }

  private async withdrawBudgetApproval(workspaceId: string, record: OrchestrationRecord, reason: string): Promise<void> {
    if (record.budgetApprovalId && this.options.approvals) await this.options.approvals.withdraw(workspaceId, record.budgetApprovalId, reason);
  }

  // PipelineRunObserver -----------------------------------------------------------------------------

  async onNodeStarted(report: Parameters<PipelineRunObserver['onNodeStarted']>[0]): Promise<void> {
    if (report.nodeType !== 'synthesis') return;
    await this.transition(report.workspaceId, report.source, 'synthesizing', {});
  }

  async onNodeFinished(report: Parameters<PipelineRunObserver['onNodeFinished']>[0]): Promise<void> {
    const record = await this.sourceRecord(report.workspaceId, report.source);
    if (!record) return;
    const db = await this.db(report.workspaceId);
    const now = nowIso();
    // The cost lands and the node's reservation is given back in one step of the gate's order (ORC-4).
    // The cost lands and the node's reservation is given back in one transaction (ORC-4): a restart
    // between the two can neither count the cost without freeing the room nor free it twice.
    const waiting = await this.budgetLock.exclusive(record.id, () =>
      db.transaction().execute(async (trx) => {
        const current = (await findOrchestration(trx, record.id))!;
        const cost = report.costUsd ?? 0;
        await updateOrchestration(trx, record.id, { ...(Number.isFinite(cost) && cost > 0 ? { spentUsd: current.spentUsd + cost } : {}), updatedAt: now });
        if (report.nodeType === 'ticketWork') await setOrchestrationTicketStatus(trx, { orchestrationId: record.id, key: report.nodeKey, status: report.state, now });
        await deleteBudgetReservation(trx, record.id, report.pipelineRunId, report.nodeKey);
        // Nodes held only because this one held the budget ask again (a budget pause waits for the operator).
        return current.budgetPaused ? [] : takeBudgetWaits(trx, record.id);
      }),
    );
    await this.publishUpdate(report.workspaceId, record.id);
    this.resumeWaiting(report.workspaceId, waiting);
  }

  private resumeWaiting(workspaceId: string, pipelineRunIds: readonly string[]): void {
    for (const pipelineRunId of pipelineRunIds) {
      void this.control?.resume({ workspaceId, pipelineRunId }).catch((error: unknown) => this.options.logger?.error({ err: error, pipelineRunId }, 'resuming nodes held by the budget failed'));
    }
  }

  async onPipelineFinished(report: Parameters<PipelineRunObserver['onPipelineFinished']>[0]): Promise<void> {
    const db = await this.db(report.workspaceId);
    if (report.source.kind === 'orchestration') await forgetBudgetRun(db, report.source.id, report.pipelineRunId);
    // TRUTH-4: the orchestration names the node that failed and why, not only how many did not finish.
    const named = report.state === 'completed' ? null : await unfinishedNodesError(db, report.pipelineRunId);
    await this.transition(report.workspaceId, report.source, report.state, { error: named ?? report.error ?? null });
  }

  // internals ---------------------------------------------------------------------------------------

  private async runMaterializer(workspaceId: string, orchestrationId: string): Promise<void> {
    try {
      await this.materializer.materialize(workspaceId, orchestrationId);
    } catch (error) {
      const message = (error as Error).message;
      this.options.logger?.warn({ err: error, orchestrationId }, 'orchestration materialization stopped');
      const db = await this.db(workspaceId);
      // A hire whose name got taken cannot succeed by retrying; anything else resumes on the next start.
      const fatal = error instanceof ConflictError;
      await updateOrchestration(db, orchestrationId, { error: message, ...(fatal ? { status: 'failed' as const } : {}), updatedAt: nowIso() }, ['approved']);
    }
    await this.publishUpdate(workspaceId, orchestrationId);
  }

  private async transition(workspaceId: string, source: { kind: string; id: string }, to: OrchestrationStatus, extra: { error?: string | null }): Promise<void> {
    const record = await this.sourceRecord(workspaceId, source);
    if (!record || record.status === to || !canTransition(record.status, to)) return;
    const db = await this.db(workspaceId);
    const from = (['executing', 'synthesizing', 'approved'] as const).filter((status) => canTransition(status, to));
    await updateOrchestration(db, record.id, { status: to, ...(extra.error !== undefined ? { error: extra.error } : {}), updatedAt: nowIso() }, from);
    await this.publishUpdate(workspaceId, record.id);
  }

  private async decideClosed(
    workspaceId: string,
    orchestrationId: string,
    to: 'rejected' | 'cancelled',
    operator: OperatorPrincipal,
    reason: string | undefined,
    from: readonly OrchestrationStatus[],
    /** TEAM-3: who decided, for the audit log; absent when the close is a consequence of another recorded act. */
    actor?: AuditActor,
  ): Promise<Orchestration> {
    const db = await this.db(workspaceId);
    const record = await this.record(workspaceId, orchestrationId);
    if (!from.includes(record.status)) throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} is ${record.status}; it cannot be ${to}`);
    const now = nowIso();
    const decided = record.status === 'proposed' ? { decidedBy: operator.operatorId, decidedAt: now } : {};
    const close = async (trx: Kysely<WorkspaceSchema>) => {
      const updated = await updateOrchestration(trx, orchestrationId, { status: to, reason: reason ?? null, ...decided, updatedAt: now }, [record.status]);
      if (!updated) throw new ConflictError('orchestrationId', `orchestration ${orchestrationId} changed concurrently`);
    };
    if (actor) {
      const act = { kind: `orchestration.${to}`, actor, workspaceId, spaceId: record.spaceId, conversationId: record.conversationId, subject: { type: 'orchestration', id: orchestrationId }, summary: `${to === 'rejected' ? 'Rejected' : 'Cancelled'} orchestration${reason ? `: ${reason}` : ''}`.slice(0, 300), details: { reason: reason ?? null } };
      await withAuditEntry(db, act, close);
    } else {
      await close(db);
    }
    return this.publishUpdate(workspaceId, orchestrationId);
  }

  private async publishUpdate(workspaceId: string, orchestrationId: string): Promise<Orchestration> {
    const orchestration = await this.get(workspaceId, orchestrationId);
    this.events.publish(workspaceId, 'orchestration.updated', orchestration);
    return orchestration;
  }

  private async sourceRecord(workspaceId: string, source: { kind: string; id: string }): Promise<OrchestrationRecord | null> {
    if (source.kind !== 'orchestration') return null;
    return findOrchestration(await this.db(workspaceId), source.id);
  }

  private async record(workspaceId: string, orchestrationId: string): Promise<OrchestrationRecord> {
    const record = await findOrchestration(await this.db(workspaceId), orchestrationId);
    if (!record) throw new NotFoundError('orchestration', orchestrationId, 'orchestrationId');
    return record;
  }

  private async view(workspaceId: string, record: OrchestrationRecord): Promise<Orchestration> {
    const db = await this.db(workspaceId);
    const revisions = await listRevisions(db, record.id);
    const proposal = revisions.at(-1)!.proposal;
    const steps = await listSteps(db, record.id);
    // In the proposal's role order, the order the materializer resolves them in.
    const roleOrder = proposal.roles.map((role) => role.roleKey);
    const members = [...steps.entries()]
      .filter(([step]) => step.startsWith('role:'))
      .map(([, value]) => value as RoleMember)
      .sort((a, b) => roleOrder.indexOf(a.roleKey) - roleOrder.indexOf(b.roleKey));
    const estimates = await Promise.all(
      proposal.roles.map(async (role) => {
        const workItems =
          proposal.subTickets.filter((ticket) => ticket.roleKey === role.roleKey).length +
          (proposal.synthesis?.roleKey === role.roleKey ? 1 : 0) +
          (proposal.research?.roleKey === role.roleKey ? 1 : 0);
        const costs = role.agentId ? await recentRunCosts(db, role.agentId) : [];
        return { roleKey: role.roleKey, estimate: estimateRole({ hire: role.hire !== undefined, pastRunCostsUsd: costs, workItems }) };
      }),
    );
    const { budgetGrantNode: _grant, ...shown } = record;
    // A plan's record is never materialized: its one role is the planner, who wrote the plan (PLAN-7).
    const planMembers = record.planId ? proposal.roles.flatMap((role) => (role.agentId ? [{ roleKey: role.roleKey, agentId: role.agentId, hired: false }] : [])) : [];
    return {
      ...shown,
      proposal,
      revisions: revisions.map((revision) => ({ revision: revision.revision, createdAt: revision.createdAt })),
      estimates,
      members: record.planId ? planMembers : members.map((member) => ({ roleKey: member.roleKey, agentId: member.agentId, hired: member.hired })),
      budgetReservations: await listBudgetReservations(db, record.id),
      steps: inMaterializerOrder([...steps.keys()], roleOrder),
    };
  }

  private async db(workspaceId: string) {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}

/**
 * ORC-4: the materializer's phases in the order it runs them (hires in the proposal's role order, then
 * team, project, tickets, launch). Steps recorded in the same millisecond cannot be ordered by time on
 * every dialect (PostgreSQL has no rowid), so the view orders them by phase.
 */
const MATERIALIZER_PHASES = ['team', 'project', 'tickets', 'launch'];

function inMaterializerOrder(steps: string[], roleOrder: readonly string[]): string[] {
  const rank = (step: string): number => {
    if (step.startsWith('role:')) {
      const role = roleOrder.indexOf(step.slice('role:'.length));
      return role === -1 ? roleOrder.length : role;
    }
    const phase = MATERIALIZER_PHASES.indexOf(step);
    return roleOrder.length + 1 + (phase === -1 ? MATERIALIZER_PHASES.length : phase);
  };
  return steps.map((step, index) => ({ step, index })).sort((a, b) => rank(a.step) - rank(b.step) || a.index - b.index).map(({ step }) => step);
}
