import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { Approval, ApprovalStatus } from '../../schemas/approval.js';
import type { AuditActor } from '../../schemas/audit.js';
import {
  expirePendingNonDurableApprovals,
  findApproval,
  insertApproval,
  listApprovals,
  setApprovalRequest,
  settlePendingApproval,
} from '../../store/repositories/approval-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { withAuditEntry } from '../audit/audit-act.js';
import type { EventBus } from '../event-bus.js';
import type { OperatorPrincipal } from '../operator-auth.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

export interface ApprovalRequest {
  kind: string;
  /** Durable approvals (plan exit, orchestration, remembered choices) survive restarts (POL-7). */
  durable: boolean;
  runId?: string | null;
  agentId?: string | null;
  spaceId?: string | null;
  conversationId?: string | null;
  title: string;
  request: Record<string, unknown>;
}

export interface ApprovalOutcome {
  status: Exclude<ApprovalStatus, 'pending'>;
  reason: string | null;
  remember: boolean;
  approval: Approval;
}

type DecidedListener = (workspaceId: string, approval: Approval) => Promise<void> | void;

const TIMED_OUT = 'no operator decided before the approval timed out';

/**
 * Approvals (POL-7): an `ask` becomes a row and an `approval.requested` event; the asking call
 * waits until an operator decides, the wait times out (→ expired, which callers treat as deny,
 * POL-4), or the run is cancelled. Only operators decide; agents never approve their own requests.
 */
export class ApprovalService {
  private readonly waiters = new Map<string, (outcome: ApprovalOutcome) => void>();
  private readonly decidedListeners: DecidedListener[] = [];
  /** POL-7: makes a gate's timeout durable — any process applies it, even if this one dies. */
  private timeoutScheduler: ((workspaceId: string, approvalId: string, dueAt: number) => Promise<void>) | null = null;

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
  ) {}

  /** Called after every decision (used by plan exit, orchestration, remembered rules). */
  onDecided(listener: DecidedListener): void {
    this.decidedListeners.push(listener);
  }

  /** `id`: one chosen beforehand (a gate queues the approval's timeout before it exists). */
  async create(workspaceId: string, input: ApprovalRequest, id = newId('apr')): Promise<Approval> {
    const db = await this.db(workspaceId);
    const approval = await insertApproval(db, {
      id,
      kind: input.kind,
      status: 'pending',
      durable: input.durable,
      runId: input.runId ?? null,
      agentId: input.agentId ?? null,
      spaceId: input.spaceId ?? null,
      conversationId: input.conversationId ?? null,
      title: input.title,
      request: input.request,
      decidedBy: null,
      reason: null,
      remember: false,
      createdAt: nowIso(),
      decidedAt: null,
    });
    this.events.publish(workspaceId, 'approval.requested', approval);
    return approval;
  }

  /** On a shared store, every gate's timeout is also queued for whichever process claims it when due. */
  scheduleTimeoutsWith(scheduler: (workspaceId: string, approvalId: string, dueAt: number) => Promise<void>): void {
    this.timeoutScheduler = scheduler;
  }

  /** Creates an approval and waits for its outcome. Never resolves `approved` by itself. */
  async requestAndWait(workspaceId: string, input: ApprovalRequest, options: { timeoutMs: number; signal: AbortSignal }): Promise<ApprovalOutcome> {
    const id = newId('apr');
    const dueAt = Date.now() + options.timeoutMs;
    // The durable timeout is queued before the approval exists, let alone is announced: a process
    // killed the moment its gate is seen asking (a pg-boss write is slow under load) must leave the
    // timeout behind, or the approval stays pending forever. A job that fires for an approval this
    // process never got to write finds nothing pending and does nothing.
    if (this.timeoutScheduler) await this.timeoutScheduler(workspaceId, id, dueAt).catch(() => undefined);
    const approval = await this.create(workspaceId, input, id);
    // The waiter is in place before anything else is awaited: the approval is announced, and a
    // decision arriving from then on must find it (POL-7).
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      const finish = (outcome: ApprovalOutcome) => {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        this.waiters.delete(approval.id);
        resolve(outcome);
      };
      const expire = (reason: string) => {
        void this.expire(workspaceId, approval.id, reason).then(
          (expired) => finish({ status: 'expired', reason, remember: false, approval: expired ?? approval }),
          () => finish({ status: 'expired', reason, remember: false, approval }),
        );
      };
      const timer = setTimeout(() => expire(TIMED_OUT), Math.max(0, dueAt - Date.now()));
      const onAbort = () => expire('the run was cancelled while waiting for approval');
      this.waiters.set(approval.id, finish);
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
    });
    // The in-process timer above answers the waiting call; the queued one outlives this process.
    return outcome;
  }

  /**
   * Another process of the same database decided an approval (its committed
   * `approval.decided` event); the call waiting on it here, if any, gets the outcome. The waiter is
   * removed on its first outcome, so a decision seen twice resolves it once.
   */
  decidedElsewhere(approval: Approval): void {
    if (approval.status === 'pending') return;
    this.waiters.get(approval.id)?.({ status: approval.status, reason: approval.reason, remember: approval.remember, approval });
  }

  async list(workspaceId: string, filter: { status?: ApprovalStatus; conversationId?: string; kind?: string; spaceId?: string } = {}): Promise<Approval[]> {
    const db = await this.db(workspaceId);
    return listApprovals(db, filter, 500);
  }

  async get(workspaceId: string, approvalId: string): Promise<Approval> {
    const db = await this.db(workspaceId);
    const approval = await findApproval(db, approvalId);
    if (!approval) throw new NotFoundError('approval', approvalId, 'approvalId');
    return approval;
  }

  /** An operator's decision. A decided approval cannot be decided again (409). */
  async decide(
    workspaceId: string,
    approvalId: string,
    decision: { decision: 'approve' | 'reject'; reason?: string | undefined; remember?: boolean | undefined },
    principal: OperatorPrincipal,
    /** The deciding person as the audit log names them (TEAM-3). */
    actor: AuditActor,
  ): Promise<Approval> {
    const db = await this.db(workspaceId);
    const current = await this.get(workspaceId, approvalId);
    if (current.status !== 'pending') throw new ConflictError('approvalId', `approval ${approvalId} is already ${current.status}`);
    const status = decision.decision === 'approve' ? 'approved' : 'rejected';
    const decidedAt = nowIso();
    const remember = decision.remember ?? false;
    const act = {
      kind: `approval.${status}`,
      actor,
      workspaceId,
      spaceId: current.spaceId,
      conversationId: current.conversationId,
      subject: { type: 'approval', id: approvalId },
      summary: `${status === 'approved' ? 'Approved' : 'Rejected'} ${current.title}${remember ? ' (choice remembered)' : ''}`,
      details: { approvalKind: current.kind, remember, ...(decision.reason ? { reason: decision.reason } : {}) },
    };
    // A concurrent decision settles nothing here: the conflict rolls this act's entry back with it.
    await withAuditEntry(db, act, async (trx) => {
      const settled = await settlePendingApproval(trx, approvalId, { status, decidedBy: principal.operatorId, reason: decision.reason ?? null, remember, decidedAt });
      if (!settled) throw new ConflictError('approvalId', `approval ${approvalId} was decided concurrently`);
    });
    const approval = await this.get(workspaceId, approvalId);
    this.events.publish(workspaceId, 'approval.decided', approval);
    for (const listener of this.decidedListeners) await listener(workspaceId, approval);
    this.waiters.get(approvalId)?.({ status, reason: approval.reason, remember: approval.remember, approval });
    return approval;
  }

  /** Marks a durable approval as used up (a plan-exit approval switches the space once). */
  async markConsumed(workspaceId: string, approvalId: string): Promise<void> {
    const approval = await this.get(workspaceId, approvalId);
    const db = await this.db(workspaceId);
    await setApprovalRequest(db, approvalId, { ...approval.request, consumedAt: nowIso() });
  }

  /**
   * Takes back a pending approval whose question was answered another way (a budget pause the operator
   * resolved by raising the cap): it expires with `reason`; a decided one is left as it is.
   */
  async withdraw(workspaceId: string, approvalId: string, reason: string): Promise<void> {
    const current = await findApproval(await this.db(workspaceId), approvalId);
    if (current?.status === 'pending') await this.expire(workspaceId, approvalId, reason);
  }

  /** On start: gates of runs that died with the process expire; durable approvals stay pending (POL-7). */
  async expireNonDurable(workspaceId: string): Promise<void> {
    const db = await this.db(workspaceId);
    await expirePendingNonDurableApprovals(db, 'the server restarted while this call was waiting', nowIso());
  }

  /**
   * POL-7: a queued timeout came due, in whichever process claimed it. A pending approval
   * expires (a call waiting on it here gets the outcome; one waiting in another process hears the
   * committed event); a decided one is left as it is. Returns whether it expired it.
   */
  async applyTimeout(workspaceId: string, approvalId: string): Promise<boolean> {
    const db = await this.db(workspaceId);
    if (!(await settlePendingApproval(db, approvalId, { status: 'expired', reason: TIMED_OUT, decidedAt: nowIso() }))) return false;
    const approval = await this.get(workspaceId, approvalId);
    this.events.publish(workspaceId, 'approval.decided', approval);
    this.waiters.get(approvalId)?.({ status: 'expired', reason: TIMED_OUT, remember: false, approval });
    return true;
  }

  private async expire(workspaceId: string, approvalId: string, reason: string): Promise<Approval | null> {
    const db = await this.db(workspaceId);
    await settlePendingApproval(db, approvalId, { status: 'expired', reason, decidedAt: nowIso() });
    const approval = await this.get(workspaceId, approvalId);
    this.events.publish(workspaceId, 'approval.decided', approval);
    return approval;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}
