import type { Kysely, Selectable } from 'kysely';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { Approval, ApprovalStatus } from '../../schemas/approval.js';
import type { ApprovalTable, WorkspaceSchema } from '../../store/workspace-schema.js';
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

function toApproval(row: Selectable<ApprovalTable>): Approval {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status as ApprovalStatus,
    durable: row.durable === 1,
    runId: row.run_id,
    agentId: row.agent_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    title: row.title,
    request: JSON.parse(row.request) as Record<string, unknown>,
    decidedBy: row.decided_by,
    reason: row.reason,
    remember: row.remember === 1,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}

/**
 * Approvals (POL-7): an `ask` becomes a row and an `approval.requested` event; the asking call
 * waits until an operator decides, the wait times out (→ expired, which callers treat as deny,
 * POL-4), or the run is cancelled. Only operators decide; agents never approve their own requests.
 */
export class ApprovalService {
  private readonly waiters = new Map<string, (outcome: ApprovalOutcome) => void>();
  private readonly decidedListeners: DecidedListener[] = [];

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
  ) {}

  /** Called after every decision (used by plan exit, orchestration, remembered rules). */
  onDecided(listener: DecidedListener): void {
    this.decidedListeners.push(listener);
  }

  async create(workspaceId: string, input: ApprovalRequest): Promise<Approval> {
    const db = await this.db(workspaceId);
    const row: ApprovalTable = {
      id: newId('apr'),
      kind: input.kind,
      status: 'pending',
      durable: input.durable ? 1 : 0,
      run_id: input.runId ?? null,
      agent_id: input.agentId ?? null,
      space_id: input.spaceId ?? null,
      conversation_id: input.conversationId ?? null,
      title: input.title,
      request: JSON.stringify(input.request),
      decided_by: null,
      reason: null,
      remember: 0,
      created_at: nowIso(),
      decided_at: null,
    };
    await db.insertInto('approvals').values(row).execute();
    const approval = toApproval(row);
    this.events.publish(workspaceId, 'approval.requested', approval);
    return approval;
  }

  /** Creates an approval and waits for its outcome. Never resolves `approved` by itself. */
  async requestAndWait(workspaceId: string, input: ApprovalRequest, options: { timeoutMs: number; signal: AbortSignal }): Promise<ApprovalOutcome> {
    const approval = await this.create(workspaceId, input);
    return new Promise<ApprovalOutcome>((resolve) => {
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
      const timer = setTimeout(() => expire('no operator decided before the approval timed out'), options.timeoutMs);
      const onAbort = () => expire('the run was cancelled while waiting for approval');
      this.waiters.set(approval.id, finish);
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async list(workspaceId: string, filter: { status?: ApprovalStatus; conversationId?: string; kind?: string; spaceId?: string } = {}): Promise<Approval[]> {
    const db = await this.db(workspaceId);
    let query = db.selectFrom('approvals').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(500);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.conversationId) query = query.where('conversation_id', '=', filter.conversationId);
    if (filter.kind) query = query.where('kind', '=', filter.kind);
    if (filter.spaceId) query = query.where('space_id', '=', filter.spaceId);
    return (await query.execute()).map(toApproval);
  }

  async get(workspaceId: string, approvalId: string): Promise<Approval> {
    const db = await this.db(workspaceId);
    const row = await db.selectFrom('approvals').selectAll().where('id', '=', approvalId).executeTakeFirst();
    if (!row) throw new NotFoundError('approval', approvalId, 'approvalId');
    return toApproval(row);
  }

  /** An operator's decision. A decided approval cannot be decided again (409). */
  async decide(
    workspaceId: string,
    approvalId: string,
    decision: { decision: 'approve' | 'reject'; reason?: string | undefined; remember?: boolean | undefined },
    principal: OperatorPrincipal,
  ): Promise<Approval> {
    const db = await this.db(workspaceId);
    const current = await this.get(workspaceId, approvalId);
    if (current.status !== 'pending') throw new ConflictError('approvalId', `approval ${approvalId} is already ${current.status}`);
    const status = decision.decision === 'approve' ? 'approved' : 'rejected';
    const decidedAt = nowIso();
    const result = await db
      .updateTable('approvals')
      .set({
        status,
        decided_by: principal.operatorId,
        reason: decision.reason ?? null,
        remember: decision.remember ? 1 : 0,
        decided_at: decidedAt,
      })
      .where('id', '=', approvalId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new ConflictError('approvalId', `approval ${approvalId} was decided concurrently`);
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
    await db
      .updateTable('approvals')
      .set({ request: JSON.stringify({ ...approval.request, consumedAt: nowIso() }) })
      .where('id', '=', approvalId)
      .execute();
  }

  /** On start: gates of runs that died with the process expire; durable approvals stay pending (POL-7). */
  async expireNonDurable(workspaceId: string): Promise<void> {
    const db = await this.db(workspaceId);
    await db
      .updateTable('approvals')
      .set({ status: 'expired', reason: 'the server restarted while this call was waiting', decided_at: nowIso() })
      .where('status', '=', 'pending')
      .where('durable', '=', 0)
      .execute();
  }

  private async expire(workspaceId: string, approvalId: string, reason: string): Promise<Approval | null> {
    const db = await this.db(workspaceId);
    await db
      .updateTable('approvals')
      .set({ status: 'expired', reason, decided_at: nowIso() })
      .where('id', '=', approvalId)
      .where('status', '=', 'pending')
      .execute();
    const approval = await this.get(workspaceId, approvalId);
    this.events.publish(workspaceId, 'approval.decided', approval);
    return approval;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}
