import type { Kysely } from 'kysely';
import { newId, nowIso } from '../../ids.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { retryDelayMs, type ClaimedJob, type JobQueue, type JobToEnqueue } from './job-queue.js';

/**
 * The embedded job queue (PIPE-1): rows of `pipeline_jobs` in the workspace's SQLite. Claims are a
 * compare-and-set on (status, locked_until) inside one transaction, so two workers never hold one
 * job; an expired lease is claimable again.
 */
export class SqliteJobQueue implements JobQueue {
  constructor(
    private readonly db: Kysely<WorkspaceSchema>,
    private readonly now: () => number = Date.now,
  ) {}

  async enqueue(job: JobToEnqueue): Promise<{ id: string; created: boolean }> {
    const id = newId('job');
    const stamp = nowIso();
    const result = await this.db
      .insertInto('pipeline_jobs')
      .values({
        id,
        queue: job.queue,
        payload: JSON.stringify(job.payload ?? null),
        status: 'queued',
        dedupe_key: job.dedupeKey ?? null,
        attempts: 0,
        max_attempts: Math.max(1, job.maxAttempts ?? 1),
        backoff_ms: Math.max(0, job.backoffMs ?? 0),
        run_at: job.runAt ?? this.now(),
        locked_by: null,
        locked_until: null,
        last_error: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .onConflict((conflict) => conflict.column('dedupe_key').doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return { id, created: true };
    const existing = await this.db.selectFrom('pipeline_jobs').select('id').where('dedupe_key', '=', job.dedupeKey!).executeTakeFirstOrThrow();
    return { id: existing.id, created: false };
  }

  async claim(queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | null> {
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('pipeline_jobs')
        .selectAll()
        .where('queue', '=', queue)
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
            eb.and([eb('status', '=', 'claimed'), eb('locked_until', '<', now)]),
          ]),
        )
        .orderBy('run_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (!row) return null;
      const updated = await trx
        .updateTable('pipeline_jobs')
        .set({ status: 'claimed', locked_by: workerId, locked_until: now + leaseMs, attempts: row.attempts + 1, updated_at: nowIso() })
        .where('id', '=', row.id)
        .where('status', '=', row.status)
        .where('attempts', '=', row.attempts)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return null;
      return { id: row.id, queue: row.queue, payload: JSON.parse(row.payload) as unknown, attempt: row.attempts + 1, maxAttempts: row.max_attempts };
    });
  }

  async extend(jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
    const updated = await this.db
      .updateTable('pipeline_jobs')
      .set({ locked_until: this.now() + leaseMs })
      .where('id', '=', jobId)
      .where('status', '=', 'claimed')
      .where('locked_by', '=', workerId)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async complete(jobId: string, workerId: string): Promise<boolean> {
    const updated = await this.db
      .updateTable('pipeline_jobs')
      .set({ status: 'done', locked_by: null, locked_until: null, updated_at: nowIso() })
      .where('id', '=', jobId)
      .where('status', '=', 'claimed')
      .where('locked_by', '=', workerId)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async fail(jobId: string, workerId: string, error: string, options: { retry?: boolean } = {}): Promise<{ retryAt: number | null }> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('pipeline_jobs').selectAll().where('id', '=', jobId).where('locked_by', '=', workerId).where('status', '=', 'claimed').executeTakeFirst();
      if (!row) return { retryAt: null };
      const retry = options.retry !== false && row.attempts < row.max_attempts;
      const retryAt = retry ? this.now() + retryDelayMs(row.backoff_ms, row.attempts) : null;
      await trx
        .updateTable('pipeline_jobs')
        .set({ status: retry ? 'queued' : 'dead', run_at: retryAt ?? row.run_at, locked_by: null, locked_until: null, last_error: error.slice(0, 4_000), updated_at: nowIso() })
        .where('id', '=', jobId)
        .execute();
      return { retryAt };
    });
  }

  async release(workerId: string): Promise<number> {
    const updated = await this.db
      .updateTable('pipeline_jobs')
      .set((eb) => ({ status: 'queued', locked_by: null, locked_until: null, attempts: eb('attempts', '-', 1), updated_at: nowIso() }))
      .where('status', '=', 'claimed')
      .where('locked_by', '=', workerId)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows);
  }

  async reclaimAbandoned(workerId: string): Promise<number> {
    const updated = await this.db
      .updateTable('pipeline_jobs')
      .set({ status: 'queued', locked_by: null, locked_until: null, updated_at: nowIso() })
      .where('status', '=', 'claimed')
      .where('locked_by', '!=', workerId)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows);
  }

  async nextDueAt(queue: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('pipeline_jobs')
      .select((eb) => eb.fn.min('run_at').as('at'))
      .where('queue', '=', queue)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    const leased = await this.db
      .selectFrom('pipeline_jobs')
      .select((eb) => eb.fn.min('locked_until').as('at'))
      .where('queue', '=', queue)
      .where('status', '=', 'claimed')
      .executeTakeFirst();
    const candidates = [row?.at, leased?.at].filter((value): value is number => value !== null && value !== undefined).map(Number);
    return candidates.length > 0 ? Math.min(...candidates) : null;
  }
}
