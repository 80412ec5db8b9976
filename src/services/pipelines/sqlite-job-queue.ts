import type { Kysely } from 'kysely';
import { newId, nowIso } from '../../ids.js';
import {
  findClaimableJob,
  findHeldJob,
  insertPipelineJob,
  leasePipelineJob,
  nextJobDueAt,
  requeueClaimedJobs,
  updateHeldJob,
} from '../../store/repositories/pipeline-job-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { retryDelayMs, type ClaimedJob, type JobQueue, type JobToEnqueue } from './job-queue.js';

/**
 * The embedded job queue (PIPE-1): rows of `pipeline_jobs` in the workspace's SQLite (statements in
 * pipeline-job-repository.ts). Claims are a compare-and-set on (status, attempts) inside one
 * transaction, so two workers never hold one job; an expired lease is claimable again.
 */
export class SqliteJobQueue implements JobQueue {
  constructor(
    private readonly db: Kysely<WorkspaceSchema>,
    private readonly now: () => number = Date.now,
  ) {}

  async enqueue(job: JobToEnqueue): Promise<{ id: string; created: boolean }> {
    return insertPipelineJob(this.db, {
      id: newId('job'),
      queue: job.queue,
      payload: job.payload,
      dedupeKey: job.dedupeKey ?? null,
      maxAttempts: Math.max(1, job.maxAttempts ?? 1),
      backoffMs: Math.max(0, job.backoffMs ?? 0),
      runAt: job.runAt ?? this.now(),
      at: nowIso(),
    });
  }

  async claim(queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | null> {
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const job = await findClaimableJob(trx, queue, now);
      if (!job || !(await leasePipelineJob(trx, job, workerId, now + leaseMs, nowIso()))) return null;
      return { id: job.id, queue: job.queue, payload: job.payload, attempt: job.attempts + 1, maxAttempts: job.maxAttempts };
    });
  }

  async extend(jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
    return updateHeldJob(this.db, jobId, workerId, { lockedUntil: this.now() + leaseMs });
  }

  async complete(jobId: string, workerId: string): Promise<boolean> {
    return updateHeldJob(this.db, jobId, workerId, { status: 'done', at: nowIso() });
  }

  async fail(jobId: string, workerId: string, error: string, options: { retry?: boolean } = {}): Promise<{ retryAt: number | null }> {
    return this.db.transaction().execute(async (trx) => {
      const job = await findHeldJob(trx, jobId, workerId);
      if (!job) return { retryAt: null };
      const retry = options.retry !== false && job.attempts < job.maxAttempts;
      const retryAt = retry ? this.now() + retryDelayMs(job.backoffMs, job.attempts) : null;
      await updateHeldJob(trx, jobId, workerId, { status: retry ? 'queued' : 'dead', runAt: retryAt ?? job.runAt, lastError: error.slice(0, 4_000), at: nowIso() });
      return { retryAt };
    });
  }

  async release(workerId: string): Promise<number> {
    return requeueClaimedJobs(this.db, workerId, 'mine', nowIso());
  }

  async reclaimAbandoned(workerId: string): Promise<number> {
    return requeueClaimedJobs(this.db, workerId, 'others', nowIso());
  }

  async nextDueAt(queue: string): Promise<number | null> {
    return nextJobDueAt(this.db, queue);
  }
}
