import type { Logger } from 'pino';
import type { JobQueue } from '../pipelines/job-queue.js';
import type { ApprovalService } from './approval-service.js';

/** The queue of a workspace's approval timeouts (POL-7). */
export const APPROVAL_TIMEOUT_QUEUE = 'approval-timeouts';

/**
 * Durable approval timeouts (POL-7): on a shared PostgreSQL store a tool-call gate's
 * timeout is also a delayed pg-boss job (`startAfter` = the deadline, one job per approval), so the
 * approval expires on time even when the process whose gate waits on it died — any process that
 * executes work claims the due job and expires the approval if it is still pending. The process
 * that is alive keeps its own timer as well; whichever comes first settles it, the other finds it
 * decided and does nothing (the settle is conditional on `pending`).
 */
export class ApprovalTimeouts {
  constructor(
    private readonly queueFor: (workspaceId: string) => JobQueue,
    private readonly approvals: ApprovalService,
    private readonly options: { processId: string; leaseMs: number; logger: Logger },
  ) {}

  async schedule(workspaceId: string, approvalId: string, dueAt: number): Promise<void> {
    await this.queueFor(workspaceId).enqueue({ queue: APPROVAL_TIMEOUT_QUEUE, payload: { approvalId }, dedupeKey: approvalId, runAt: dueAt });
  }

  /** Applies every due timeout of `workspaceId`; returns how many approvals it expired. */
  async poll(workspaceId: string): Promise<number> {
    const queue = this.queueFor(workspaceId);
    let expired = 0;
    for (;;) {
      const job = await queue.claim(APPROVAL_TIMEOUT_QUEUE, this.options.processId, this.options.leaseMs);
      if (!job) return expired;
      const approvalId = (job.payload as { approvalId?: unknown } | null)?.approvalId;
      try {
        if (typeof approvalId === 'string' && (await this.approvals.applyTimeout(workspaceId, approvalId))) expired += 1;
      } catch (error) {
        this.options.logger.error({ err: error, workspaceId, approvalId }, 'an approval timeout could not be applied');
      }
      await queue.complete(job.id, this.options.processId);
    }
  }
}
