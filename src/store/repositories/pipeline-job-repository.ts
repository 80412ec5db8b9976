import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { PipelineJobTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn, jsonColumn } from './column-parsers.js';

/**
 * Rows of the embedded job queue (`pipeline_jobs`, PIPE-1). Only {@link SqliteJobQueue} uses these;
 * a PostgreSQL queue implements the same JobQueue interface over its own statements.
 */

export const PIPELINE_JOB_STATUSES = ['queued', 'claimed', 'done', 'dead'] as const;
export type PipelineJobStatus = (typeof PIPELINE_JOB_STATUSES)[number];

const parseStatus = enumColumn('pipeline_jobs', 'status', PIPELINE_JOB_STATUSES);
const parsePayload = jsonColumn('pipeline_jobs', 'payload', z.unknown());

export interface PipelineJobRecord {
  id: string;
  queue: string;
  payload: unknown;
  status: PipelineJobStatus;
  dedupeKey: string | null;
  attempts: number;
  maxAttempts: number;
  backoffMs: number;
  runAt: number;
  lockedBy: string | null;
  lockedUntil: number | null;
}

export function toPipelineJob(row: Selectable<PipelineJobTable>): PipelineJobRecord {
  return {
    id: row.id,
    queue: row.queue,
    payload: parsePayload(row.payload, row.id),
    status: parseStatus(row.status, row.id),
    dedupeKey: row.dedupe_key,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    backoffMs: row.backoff_ms,
    runAt: Number(row.run_at),
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until === null ? null : Number(row.locked_until),
  };
}

export interface NewPipelineJob {
  id: string;
  queue: string;
  payload: unknown;
  dedupeKey: string | null;
  maxAttempts: number;
  backoffMs: number;
  runAt: number;
  at: string;
}

/** Inserts a job unless one with its dedupe key exists; returns the id of the job that holds the key. */
export async function insertPipelineJob(db: Kysely<WorkspaceSchema>, job: NewPipelineJob): Promise<{ id: string; created: boolean }> {
  const result = await db
    .insertInto('pipeline_jobs')
    .values({
      id: job.id,
      queue: job.queue,
      payload: JSON.stringify(job.payload ?? null),
      status: 'queued',
      dedupe_key: job.dedupeKey,
      attempts: 0,
      max_attempts: job.maxAttempts,
      backoff_ms: job.backoffMs,
      run_at: job.runAt,
      locked_by: null,
      locked_until: null,
      last_error: null,
      created_at: job.at,
      updated_at: job.at,
    })
    .onConflict((conflict) => conflict.column('dedupe_key').doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return { id: job.id, created: true };
  const existing = await db.selectFrom('pipeline_jobs').select('id').where('dedupe_key', '=', job.dedupeKey!).executeTakeFirstOrThrow();
  return { id: existing.id, created: false };
}

/** The oldest claimable job of `queue` at `now`: due and queued, or claimed with an expired lease. */
export async function findClaimableJob(db: Kysely<WorkspaceSchema>, queue: string, now: number): Promise<PipelineJobRecord | null> {
  const row = await db
    .selectFrom('pipeline_jobs')
    .selectAll()
    .where('queue', '=', queue)
    .where((eb) => eb.or([eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]), eb.and([eb('status', '=', 'claimed'), eb('locked_until', '<', now)])]))
    .orderBy('run_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row ? toPipelineJob(row) : null;
}

/** Leases `job` to `workerId` if nobody changed it since it was read (compare-and-set); false when lost. */
export async function leasePipelineJob(db: Kysely<WorkspaceSchema>, job: PipelineJobRecord, workerId: string, lockedUntil: number, at: string): Promise<boolean> {
  const updated = await db
    .updateTable('pipeline_jobs')
    .set({ status: 'claimed', locked_by: workerId, locked_until: lockedUntil, attempts: job.attempts + 1, updated_at: at })
    .where('id', '=', job.id)
    .where('status', '=', job.status)
    .where('attempts', '=', job.attempts)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** A claimed job still held by `workerId`, or null. */
export async function findHeldJob(db: Kysely<WorkspaceSchema>, jobId: string, workerId: string): Promise<PipelineJobRecord | null> {
  const row = await db.selectFrom('pipeline_jobs').selectAll().where('id', '=', jobId).where('locked_by', '=', workerId).where('status', '=', 'claimed').executeTakeFirst();
  return row ? toPipelineJob(row) : null;
}

/** Changes a job `workerId` holds (status, lease, error); false when the worker no longer holds it. */
export async function updateHeldJob(
  db: Kysely<WorkspaceSchema>,
  jobId: string,
  workerId: string,
  change: { status?: PipelineJobStatus; lockedUntil?: number | null; runAt?: number; lastError?: string; at?: string },
): Promise<boolean> {
  const released = change.status !== undefined && change.status !== 'claimed';
  const updated = await db
    .updateTable('pipeline_jobs')
    .set({
      ...(change.status !== undefined ? { status: change.status } : {}),
      ...(released ? { locked_by: null, locked_until: null } : change.lockedUntil !== undefined ? { locked_until: change.lockedUntil } : {}),
      ...(change.runAt !== undefined ? { run_at: change.runAt } : {}),
      ...(change.lastError !== undefined ? { last_error: change.lastError } : {}),
      ...(change.at !== undefined ? { updated_at: change.at } : {}),
    })
    .where('id', '=', jobId)
    .where('status', '=', 'claimed')
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/**
 * Puts claimed jobs back in the queue: those of `workerId` (`'mine'`, shutdown: the claim is not
 * counted) or those of every other worker (`'others'`, start-up: abandoned by a dead process).
 */
export async function requeueClaimedJobs(db: Kysely<WorkspaceSchema>, workerId: string, whose: 'mine' | 'others', at: string): Promise<number> {
  const updated = await db
    .updateTable('pipeline_jobs')
    .set((eb) => ({ status: 'queued', locked_by: null, locked_until: null, updated_at: at, ...(whose === 'mine' ? { attempts: eb('attempts', '-', 1) } : {}) }))
    .where('status', '=', 'claimed')
    .where('locked_by', whose === 'mine' ? '=' : '!=', workerId)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows);
}

/** The earliest time a job of `queue` becomes claimable: a queued job's `run_at` or a claim's lease end. */
export async function nextJobDueAt(db: Kysely<WorkspaceSchema>, queue: string): Promise<number | null> {
  const queued = await db.selectFrom('pipeline_jobs').select((eb) => eb.fn.min('run_at').as('at')).where('queue', '=', queue).where('status', '=', 'queued').executeTakeFirst();
  const leased = await db.selectFrom('pipeline_jobs').select((eb) => eb.fn.min('locked_until').as('at')).where('queue', '=', queue).where('status', '=', 'claimed').executeTakeFirst();
  const candidates = [queued?.at, leased?.at].filter((value): value is number => value !== null && value !== undefined).map(Number);
  return candidates.length > 0 ? Math.min(...candidates) : null;
}
