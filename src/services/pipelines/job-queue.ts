/**
 * The queue pipeline work is claimed through (PIPE-1). Small and dialect-neutral on purpose: the
 * embedded implementation keeps jobs in the workspace's SQLite ({@link SqliteJobQueue}); a PostgreSQL
 * job queue backs the same interface later. Delivery is at-least-once — a claim whose lease runs out
 * (a crashed worker) is claimed again — so at-most-once side effects are the engine's job (an
 * idempotency key per node attempt), never the queue's.
 */
export interface JobToEnqueue {
  queue: string;
  payload: unknown;
  /** A second enqueue with the same key is a no-op returning the first job (idempotent enqueue). */
  dedupeKey?: string;
  /** Epoch ms before which the job is not claimable (default: now). */
  runAt?: number;
  /** Claims before the job is dead (default 1: no retry). */
  maxAttempts?: number;
  /** Retry n waits backoffMs · 2^(n-1) (default 0). */
  backoffMs?: number;
}

export interface ClaimedJob {
  id: string;
  queue: string;
  payload: unknown;
  /** 1 on the first claim, 2 on the first retry, … */
  attempt: number;
  maxAttempts: number;
}

export interface JobQueue {
  enqueue(job: JobToEnqueue): Promise<{ id: string; created: boolean }>;
  /** The oldest due job of `queue`, leased to `workerId` for `leaseMs`; null when none is due. */
  claim(queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | null>;
  /** Extends a lease the worker still holds; false when it lost it. */
  extend(jobId: string, workerId: string, leaseMs: number): Promise<boolean>;
  /** Marks a job done; false when the worker no longer held it. */
  complete(jobId: string, workerId: string): Promise<boolean>;
  /**
   * Records a failure: queued again after its backoff while attempts remain (`retryAt` set), else dead.
   * `retry: false` makes it dead at once (the failure is not worth retrying).
   */
  fail(jobId: string, workerId: string, error: string, options?: { retry?: boolean }): Promise<{ retryAt: number | null }>;
  /** On shutdown: every job the worker holds goes back to the queue, the claim not counted. */
  release(workerId: string): Promise<number>;
  /**
   * On start: jobs held by any other worker go back to the queue. The embedded queue is owned by one
   * process per workspace file, so another holder is a previous, dead process of this server (a
   * shared PostgreSQL queue implements this as "expire leases of workers known dead" instead).
   */
  reclaimAbandoned(workerId: string): Promise<number>;
  /** When the next job of `queue` becomes due (now or later), or null when none is waiting. */
  nextDueAt(queue: string): Promise<number | null>;
}

/** Backoff before retry `attempt` (1-based count of failed claims so far). */
export function retryDelayMs(backoffMs: number, failedAttempts: number): number {
  return backoffMs * 2 ** Math.max(0, failedAttempts - 1);
}
