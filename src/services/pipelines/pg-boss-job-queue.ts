import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { retryDelayMs, type ClaimedJob, type JobQueue, type JobToEnqueue } from './job-queue.js';
import { guardPoolConnections } from '../../store/connection-error-guard.js';
import { escapeNulDeep, unescapeNulDeep } from '../../store/nul-escape.js';
import type { StatementPart } from '../../store/one-statement.js';

/** pg-boss keeps its tables in this schema, apart from every workspace's `cc_w_…` schema and the registry's. */
export const PG_BOSS_SCHEMA = 'cc_pgboss';
/** Who holds which job: pg-boss's job row has no holder column, so the lease's owner is kept beside it. */
const HOLDERS = `${PG_BOSS_SCHEMA}.cc_job_holders`;
const JOBS = `${PG_BOSS_SCHEMA}.job`;
/** The advisory lock that serializes pg-boss schema changes (queue creation) across processes. */
const DDL_LOCK = `${PG_BOSS_SCHEMA}:ddl`;
/**
 * pg-boss's own retry counter is used for "claims so far", not for failures: a job may be claimed
 * again after any number of expired leases (a dead worker is never the job's fault), and whether a
 * failure is retried is decided here from the job's own `maxAttempts` (kept in its data).
 */
const UNLIMITED_REDELIVERIES = 1_000_000;

interface StoredJob {
  payload: unknown;
  maxAttempts: number;
  backoffMs: number;
}

/**
 * How often a busy queue's claims put overdue leases back: a lease that ran out while other jobs
 * wait is claimed again within this much longer than before (an empty-looking queue sweeps at once).
 */
const EXPIRY_SWEEP_EVERY_MS = 1_000;

/**
 * One pg-boss instance per PostgreSQL database, shared by every workspace's queue in the process
 *. Started once: creates or migrates pg-boss's schema and the holders table.
 */
export class PgBossConnection {
  private readonly boss: PgBoss;
  private readonly pool: pg.Pool;
  private readonly created = new Set<string>();
  private started: Promise<void> | null = null;
  /** @internal When this process last put a queue's overdue leases back (`performance.now()`), by pg-boss queue name. */
  readonly expirySweptAt = new Map<string, number>();
  /** @internal How often a busy queue's claims sweep (tests lengthen it, so that a slow machine does not add a sweep). */
  expirySweepEveryMs = EXPIRY_SWEEP_EVERY_MS;
  /** @internal Queues (pg-boss names) whose last claim here found nothing: their next claim asks before it fetches. */
  readonly seemedEmpty = new Set<string>();
  /**
   * @internal A queue's next due time as read by the claim that just found it empty, by pg-boss queue
   * name: the look-ahead that follows such a claim ({@link PgBossJobQueue.nextDueAt}) takes it instead
   * of reading it again. Cleared by anything this process changes in any queue.
   */
  readonly dueAfterEmptyClaim = new Map<string, { due: number | null; at: number }>();

  constructor(url: string) {
    // pg-boss's own maintenance (archive, drop, and expiring overdue leases every 30 s) runs in
    // every process; a queue also expires overdue leases of its queue itself when it claims (see `claim`).
    this.boss = new PgBoss({ connectionString: url, schema: PG_BOSS_SCHEMA, max: 4, maintenanceIntervalSeconds: 30, monitorStateIntervalSeconds: 600 });
    this.boss.on('error', () => undefined);
    // Its borrowed connections (the DDL lock's, a move's transaction) must not crash the process when lost.
    this.pool = guardPoolConnections(new pg.Pool({ connectionString: url, max: 4 }));
  }

  start(): Promise<void> {
    this.started ??= (async () => {
      await this.boss.start();
      // `if not exists` is not safe against another process doing the same at the same moment.
      await serializedPgBossDdl(this.pool, async (client) => {
        await client.query(`create table if not exists ${HOLDERS} (job_id uuid primary key, queue_name text not null, worker_id text not null)`);
        await client.query(`create index if not exists cc_job_holders_worker on ${HOLDERS} (worker_id)`);
      });
    })();
    return this.started;
  }

  /** The queue of one workspace: its pg-boss queue names are `<workspace id>__<queue>`. */
  queueFor(workspaceId: string, now: () => number = Date.now): PgBossJobQueue {
    return new PgBossJobQueue(this, workspaceId, now);
  }

  async stop(): Promise<void> {
    if (this.started) await this.started.catch(() => undefined);
    await this.boss.stop({ graceful: false, close: true, wait: true }).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  /**
   * `/metrics`: a workspace's jobs by queue and status, read from pg-boss's table and named
   * as the embedded queue names them (`queued` = waiting or waiting to retry, `claimed` = active,
   * `done`, `dead` = failed or cancelled; archived jobs are gone). A process's own runs queue
   * (`runs-<process id>`, affinity) is counted under `runs`, so the series do not multiply with processes.
   * A job moved to the shared queue (work stealing, {@link PgBossJobQueue.move}) is not counted: its copy is.
   */
  async countJobs(workspaceId: string): Promise<Array<{ queue: string; status: string; count: number }>> {
    await this.start();
    const prefix = `${workspaceId}__`;
    const result = await this.pool.query<{ queue: string; status: string; count: string }>(
      `select case when q like 'runs-%' then 'runs' else q end as queue, status, count(*) as count from (
         select substr(name, length($1) + 1) as q,
                case state when 'created' then 'queued' when 'retry' then 'queued' when 'active' then 'claimed' when 'completed' then 'done' else 'dead' end as status
           from ${JOBS} where starts_with(name, $1) and not (state = 'cancelled' and output ? 'movedTo')) j
        group by 1, 2 order by 1, 2`,
      [prefix],
    );
    return result.rows.map((row) => ({ queue: row.queue, status: row.status, count: Number(row.count) }));
  }

  /**
   * Deletes queue `name` (its pg-boss partition table, with its ended jobs) unless it still holds a
   * job waiting, waiting to retry or claimed; true when deleted. Serialized with queue creation.
   * pg-boss's own `deleteQueue` fails on a queue with any job left (its foreign key is `on delete
   * restrict`), so the ended jobs are deleted first, in the same transaction.
   */
  async deleteQueueIfIdle(name: string): Promise<boolean> {
    await this.start();
    let deleted = false;
    // On the lock's own connection: the transaction does not need a second one of the pool.
    await serializedPgBossDdl(this.pool, async (client) => {
      try {
        await client.query('begin');
        const queue = await client.query(`select 1 from ${PG_BOSS_SCHEMA}.queue where name = $1 for update`, [name]);
        const busy = await client.query(`select 1 from ${JOBS} where name = $1 and state in ('created', 'retry', 'active') limit 1`, [name]);
        if (queue.rowCount === 0 || (busy.rowCount ?? 0) > 0) {
          await client.query('rollback');
          return;
        }
        await client.query(`delete from ${JOBS} where name = $1`, [name]);
        await client.query(`select ${PG_BOSS_SCHEMA}.delete_queue($1)`, [name]);
        await client.query('commit');
        this.created.delete(name);
        deleted = true;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      }
    });
    return deleted;
  }

  /** @internal */ get sql(): pg.Pool {
    return this.pool;
  }

  /** @internal */ async ensureQueue(name: string): Promise<PgBoss> {
    await this.start();
    if (!this.created.has(name)) {
      if (!(await this.boss.getQueue(name))) {
        await serializedPgBossDdl(this.pool, async () => {
          if (!(await this.boss.getQueue(name))) await this.boss.createQueue(name, { name, policy: 'standard' });
        });
      }
      this.created.add(name);
    }
    return this.boss;
  }
}

/**
 * Runs schema changes in pg-boss's schema one at a time across every process on the database.
 * `create table if not exists` is not safe against another session doing the same at the same
 * moment (the loser fails with `type "…" already exists`), and pg-boss's `create_queue` inserts the
 * queue row, then adds a foreign key to the queue table: two processes creating different queues at
 * once deadlock in PostgreSQL (and every process creates a new workspace's queues at about the same
 * moment). A session advisory lock on a connection of `pool` serializes them. `work` gets that
 * connection: its own statements go through it, never through another of `pool`'s, which other
 * callers waiting for the lock may all hold (pg-boss's DDL runs on pg-boss's own pool).
 */
export async function serializedPgBossDdl(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  let unlocked = false;
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [DDL_LOCK]);
    try {
      await work(client);
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [DDL_LOCK]);
      unlocked = true;
    }
  } finally {
    // A connection that may still hold the lock is closed, not pooled: closing it releases the lock.
    client.release(!unlocked);
  }
}

/** How long the due time read by an empty claim stands in for a read of its own (they normally follow each other within milliseconds). */
const DUE_ANSWER_FRESH_MS = 250;

/** The earliest moment a job of the queue named by parameter `name` becomes claimable: its first waiting job's start, or its first lease's end. */
function dueOf(name: string): string {
  return `select min(due) from (
         select min(start_after) as due from ${JOBS} where name = ${name} and state in ('created', 'retry')
         union all
         select min(started_on + expire_in) from ${JOBS} where name = ${name} and state = 'active'
       ) d`;
}

/**
 * A caller's part of a claim ({@link PgBossJobQueue.claimWith}): data-modifying CTEs written from the
 * claimed job's row — the CTE named `claimed` (columns `id`, `data` as stored: `{ payload, … }`,
 * strings NUL-escaped), empty when nothing was due — with parameters numbered from `first`, and the
 * expression read back as the part's answer.
 */
export interface JobClaimPart {
  ctes(first: number, claimed: string): string;
  values: unknown[];
  answer: string;
}

/** A job as the claim's statement returns it. */
interface ClaimedRow {
  id: string;
  data: StoredJob;
  retry_count: number;
  answer?: unknown;
}

/** A dedupe key becomes the job's id, so a second insert of the key conflicts in pg-boss's own primary key. */
function jobIdFor(name: string, dedupeKey: string | undefined): string {
  if (dedupeKey === undefined) return randomUUID();
  const hex = createHash('sha256').update(`${name}\u0000${dedupeKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The {@link JobQueue} on pg-boss (docs/scale-out.md "pg-boss mapping"). pg-boss stores,
 * claims (`fetch`: `FOR UPDATE SKIP LOCKED`), completes and archives; this class adds what the
 * interface promises and pg-boss 10 does not have:
 * - **lease and holder**: a claim sets the job's `expire_in` to the lease and records the holder;
 *   `extend` moves `started_on` forward (pg-boss 10 has no heartbeat); an overdue lease is put back
 *   to `retry` by pg-boss's maintenance or by the next claim of the queue, whichever comes first;
 * - **exact backoff**: a retried failure is put back to `retry` with `start_after` computed here
 *   (pg-boss's own backoff is seconds-granular and jittered);
 * - **release uncounted**: `started_on` cleared, so pg-boss's next fetch does not count the claim.
 */
export class PgBossJobQueue implements JobQueue {
  constructor(
    private readonly connection: PgBossConnection,
    private readonly workspaceId: string,
    private readonly now: () => number,
  ) {}

  private name(queue: string): string {
    return `${this.workspaceId}__${queue}`;
  }

  async enqueue(job: JobToEnqueue): Promise<{ id: string; created: boolean }> {
    const name = this.name(job.queue);
    this.connection.dueAfterEmptyClaim.clear();
    const boss = await this.connection.ensureQueue(name);
    const id = jobIdFor(name, job.dedupeKey);
    // jsonb refuses `\u0000` like text does: payload strings are escaped reversibly (nul-escape.ts).
    const data: StoredJob = { payload: escapeNulDeep(job.payload ?? null), maxAttempts: Math.max(1, job.maxAttempts ?? 1), backoffMs: Math.max(0, job.backoffMs ?? 0) };
    const sent = await boss.send(name, data as object, {
      id,
      startAfter: new Date(job.runAt ?? this.now()),
      retryLimit: UNLIMITED_REDELIVERIES,
      retryDelay: 0,
      retryBackoff: false,
    });
    return { id, created: sent !== null };
  }

  async claim(queue: string, workerId: string, leaseMs: number): Promise<ClaimedJob | null> {
    return (await this.claimWith(queue, workerId, leaseMs, null))?.job ?? null;
  }

  /**
   * {@link claim}, with the caller's part (written from the claimed job's row, {@link JobClaimPart})
   * sent in the claim's statement; `answer` is the part's answer (null without a part).
   */
  async claimWith(queue: string, workerId: string, leaseMs: number, part: JobClaimPart | null): Promise<{ job: ClaimedJob; answer: unknown } | null> {
    const name = this.name(queue);
    await this.connection.ensureQueue(name);
    this.connection.dueAfterEmptyClaim.delete(name);
    // NF-SCALE: every statement is a round trip (a wake-up of this process and of the database), and
    // an idle worker claims from each of its queues at every poll. A queue whose last claim found
    // nothing is first asked, in one statement that also puts its overdue leases back, whether
    // anything is claimable: an idle queue costs one statement per poll, not a sweep and a fetch.
    // A busy queue is fetched from at once; its overdue leases are put back before a claim at most
    // once per `expirySweepEveryMs`, and whenever it seems empty (an overdue job may be all there
    // is: it is then claimed at once, as before).
    const sweptAt = this.connection.expirySweptAt.get(name);
    const sweepDue = sweptAt === undefined || performance.now() - sweptAt >= this.connection.expirySweepEveryMs;
    let claimed: ClaimedRow | null = null;
    if (sweepDue || this.connection.seemedEmpty.has(name)) {
      if (await this.sweepAndAsk(name)) claimed = await this.fetchAndLease(name, workerId, leaseMs, part);
    } else {
      claimed = await this.fetchAndLease(name, workerId, leaseMs, part);
      if (!claimed && (await this.sweepAndAsk(name))) claimed = await this.fetchAndLease(name, workerId, leaseMs, part);
    }
    if (!claimed) {
      this.connection.seemedEmpty.add(name);
      return null;
    }
    this.connection.seemedEmpty.delete(name);
    this.connection.dueAfterEmptyClaim.delete(name);
    const payload = unescapeNulDeep(claimed.data.payload);
    return { job: { id: claimed.id, queue, payload, attempt: claimed.retry_count + 1, maxAttempts: claimed.data.maxAttempts }, answer: part ? (claimed.answer ?? null) : null };
  }

  /**
   * The next due job of queue `name` taken, leased and its holder recorded — with the caller's part —
   * in one statement: a claim is on every run's path (NF-SCALE), and pg-boss's `fetch` followed by a
   * lease was two. The job is taken as pg-boss 10's `fetch` takes one (a batch of one: `FOR UPDATE
   * SKIP LOCKED` on the oldest due job of the highest priority; `active`, `started_on` now, a claim
   * after an earlier one counted in `retry_count`), with the lease as its `expire_in` in the same
   * update: a statement may change a row only once. Queues here are all `standard` (`ensureQueue`),
   * so pg-boss's grouping of singleton and stately jobs has nothing to do.
   */
  private async fetchAndLease(name: string, workerId: string, leaseMs: number, part: JobClaimPart | null): Promise<ClaimedRow | null> {
    const values: unknown[] = [name, leaseMs, workerId];
    const result = await this.connection.sql.query<ClaimedRow>(
      `with next as (
         select id from ${JOBS} where name = $1 and state < 'active' and start_after < now()
          order by priority desc, created_on, id limit 1 for update skip locked
       ), claimed as (
         update ${JOBS} j set state = 'active', started_on = now(), expire_in = $2 * interval '1 millisecond',
                retry_count = case when started_on is not null then retry_count + 1 else retry_count end
           from next where j.name = $1 and j.id = next.id
         returning j.id, j.data, j.retry_count
       ), holder as (
         insert into ${HOLDERS} (job_id, queue_name, worker_id) select id, $1, $3 from claimed
         on conflict (job_id) do update set worker_id = excluded.worker_id, queue_name = excluded.queue_name
       )${part ? `, ${part.ctes(values.length + 1, 'claimed')}` : ''}
       select id, data, retry_count${part ? `, ${part.answer} as answer` : ''} from claimed`,
      part ? [...values, ...part.values] : values,
    );
    return result.rows[0] ?? null;
  }

  async extend(jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
    const result = await this.connection.sql.query(
      `update ${JOBS} j set started_on = now(), expire_in = $3 * interval '1 millisecond'
         from ${HOLDERS} h
        where h.job_id = $1 and h.worker_id = $2 and j.name = h.queue_name and j.id = h.job_id
          and j.state = 'active' and j.started_on + j.expire_in > now()`,
      [jobId, workerId, leaseMs],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * Checks the holder, completes the job as pg-boss's `complete` does (state `completed`,
   * `completed_on`) and forgets the holder, in one statement: a completion is on every run's path.
   * `part` is sent in the same statement and runs whether or not the worker still held the job.
   * The queue's own CTE names (`next`, `claimed`, `holder`, `held`, `completed`, `forgotten`) are
   * taken: a part (here, in {@link completionPart} or in a claim) names its own otherwise.
   */
  async complete(jobId: string, workerId: string, part?: StatementPart): Promise<boolean> {
    this.connection.dueAfterEmptyClaim.clear();
    const result = await this.connection.sql.query<{ completed: number }>(
      `with held as (
         select h.queue_name from ${HOLDERS} h join ${JOBS} j on j.name = h.queue_name and j.id = h.job_id
          where h.job_id = $1 and h.worker_id = $2 and j.state = 'active'
       ), completed as (
         update ${JOBS} set completed_on = now(), state = 'completed' where name = (select queue_name from held) and id = $1 and state = 'active' returning id
       ), forgotten as (
         delete from ${HOLDERS} where job_id = $1 and exists (select 1 from held)
       )${part ? `, ${part.ctes(3)}` : ''}
       select count(*)::int as completed from completed`,
      [jobId, workerId, ...(part?.values ?? [])],
    );
    return (result.rows[0]?.completed ?? 0) > 0;
  }

  /**
   * {@link complete} as a part of another statement (a queued run's end carries its job's completion:
   * NF-SCALE, a round trip less per run): the same holder check, completion and holder delete, with
   * `extra` run whether or not the worker still held the job. A lost lease completes nothing, as in
   * {@link complete}; the caller does not learn which it was (a run's end does not need to).
   */
  completionPart(jobId: string, workerId: string, extra?: StatementPart): StatementPart {
    return {
      ctes: (first) => {
        // Built as the statement is about to be sent: what `complete` clears before it sends its own.
        this.connection.dueAfterEmptyClaim.clear();
        const job = `$${first}`;
        const worker = `$${first + 1}`;
        return `held as (
           select h.queue_name from ${HOLDERS} h join ${JOBS} j on j.name = h.queue_name and j.id = h.job_id
            where h.job_id = ${job}::uuid and h.worker_id = ${worker}::text and j.state = 'active'
         ), completed as (
           update ${JOBS} set completed_on = now(), state = 'completed' where name = (select queue_name from held) and id = ${job}::uuid and state = 'active'
         ), forgotten as (
           delete from ${HOLDERS} where job_id = ${job}::uuid and exists (select 1 from held)
         )${extra ? `, ${extra.ctes(first + 2)}` : ''}`;
      },
      values: [jobId, workerId, ...(extra?.values ?? [])],
    };
  }

  async fail(jobId: string, workerId: string, error: string, options: { retry?: boolean } = {}): Promise<{ retryAt: number | null }> {
    this.connection.dueAfterEmptyClaim.clear();
    const holder = await this.holder(jobId, workerId);
    if (!holder) return { retryAt: null };
    const sql = this.connection.sql;
    const row = await sql.query<{ retry_count: number; data: StoredJob }>(`select retry_count, data from ${JOBS} where name = $1 and id = $2 and state = 'active'`, [holder, jobId]);
    const job = row.rows[0];
    if (!job) return { retryAt: null };
    const claims = job.retry_count + 1;
    const retry = options.retry !== false && claims < job.data.maxAttempts;
    const output = JSON.stringify({ message: error.slice(0, 4_000) });
    let retryAt: number | null = null;
    if (retry) {
      retryAt = this.now() + retryDelayMs(job.data.backoffMs, claims);
      await sql.query(`update ${JOBS} set state = 'retry', start_after = to_timestamp($3::double precision / 1000), output = $4::jsonb where name = $1 and id = $2 and state = 'active'`, [holder, jobId, retryAt, output]);
    } else {
      await sql.query(`update ${JOBS} set state = 'failed', completed_on = now(), output = $3::jsonb where name = $1 and id = $2 and state = 'active'`, [holder, jobId, output]);
    }
    await sql.query(`delete from ${HOLDERS} where job_id = $1`, [jobId]);
    return { retryAt };
  }

  /**
   * Jobs of `queue` due and still waiting (never claimed, or put back) since before `waitedMs` ago,
   * oldest first: candidates for {@link move}.
   */
  async waitingSince(queue: string, waitedMs: number, limit: number): Promise<Array<{ id: string; payload: unknown }>> {
    const result = await this.connection.sql.query<{ id: string; data: StoredJob }>(
      `select id, data from ${JOBS} where name = $1 and state in ('created', 'retry') and start_after < now()
          and created_on < now() - $2 * interval '1 millisecond' order by created_on limit $3`,
      [this.name(queue), waitedMs, limit],
    );
    return result.rows.map((row) => ({ id: row.id, payload: unescapeNulDeep(row.data.payload) }));
  }

  /**
   * Moves a job still waiting in `from` onto `to`, in one transaction: it is cancelled in `from` (only
   * if nobody claimed it meanwhile — the row is locked, skipped when another mover holds it) and the
   * same data is sent to `to` under an id derived from the old one. False when it was not waiting
   * any more. Exactly one of the two jobs can ever be claimed.
   */
  async move(jobId: string, from: string, to: string): Promise<boolean> {
    const fromName = this.name(from);
    const toName = this.name(to);
    this.connection.dueAfterEmptyClaim.clear();
    const boss = await this.connection.ensureQueue(toName);
    const client = await this.connection.sql.connect();
    try {
      await client.query('begin');
      const moved = await client.query<{ data: StoredJob }>(
        `update ${JOBS} set state = 'cancelled', completed_on = now(), output = $3::jsonb
          where name = $1 and id = (select id from ${JOBS} where name = $1 and id = $2 and state in ('created', 'retry') for update skip locked)
          returning data`,
        [fromName, jobId, JSON.stringify({ movedTo: to })],
      );
      const data = moved.rows[0]?.data;
      if (!data) {
        await client.query('rollback');
        return false;
      }
      await boss.send(toName, data as object, {
        id: jobIdFor(toName, `moved:${jobId}`),
        retryLimit: UNLIMITED_REDELIVERIES,
        retryDelay: 0,
        retryBackoff: false,
        db: { executeSql: (text: string, values: unknown[]) => client.query(text, values) },
      });
      await client.query('commit');
      return true;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async release(workerId: string): Promise<number> {
    return this.requeue(`h.worker_id = $1`, workerId);
  }

  /**
   * On a shared queue another holder may be a live worker, so nothing it holds is taken: only leases
   * that ran out (their worker stopped renewing them — dead) go back, as pg-boss's expiry would.
   */
  async reclaimAbandoned(_workerId: string): Promise<number> {
    this.connection.dueAfterEmptyClaim.clear();
    const result = await this.connection.sql.query(
      `update ${JOBS} set state = 'retry' where name like $1 escape '!' and state = 'active' and started_on + expire_in < now()`,
      [`${this.workspaceId.replace(/[!%_]/g, '!$&')}!_!_%`],
    );
    return result.rowCount ?? 0;
  }

  async nextDueAt(queue: string): Promise<number | null> {
    const name = this.name(queue);
    // Right after a claim found the queue empty, its answer is this read made a moment earlier: a job
    // another process enqueues after it is found by the next poll either way. Anything this process
    // changed in a queue since has dropped it, and an old answer is not used.
    const known = this.connection.dueAfterEmptyClaim.get(name);
    this.connection.dueAfterEmptyClaim.delete(name);
    if (known && performance.now() - known.at <= DUE_ANSWER_FRESH_MS) return known.due;
    const result = await this.connection.sql.query<{ due: Date | null }>(`select (${dueOf('$1')}) as due`, [name]);
    const due = result.rows[0]?.due;
    return due ? new Date(due).getTime() : null;
  }

  /**
   * Puts the queue's overdue leases back to `retry` (their holders stopped renewing them) and tells
   * whether a job is now claimable, in one statement; when none is, keeps the queue's next due time
   * for {@link nextDueAt}. (The reads see the queue as it was before the update: a lease put back is
   * counted by `swept`, and the due time is kept only when nothing was put back.)
   */
  private async sweepAndAsk(name: string): Promise<boolean> {
    this.connection.expirySweptAt.set(name, performance.now());
    const result = await this.connection.sql.query<{ swept: number; claimable: boolean; due: Date | null }>(
      `with swept as (update ${JOBS} set state = 'retry' where name = $1 and state = 'active' and started_on + expire_in < now() returning 1)
       select (select count(*) from swept)::int as swept,
              exists (select 1 from ${JOBS} where name = $1 and state < 'active' and start_after < now()) as claimable,
              (${dueOf('$1')}) as due`,
      [name],
    );
    const row = result.rows[0];
    if (row && (row.swept > 0 || row.claimable)) return true;
    this.connection.dueAfterEmptyClaim.set(name, { due: row?.due ? new Date(row.due).getTime() : null, at: performance.now() });
    return false;
  }

  /** The pg-boss queue name of a job `workerId` holds, or null. */
  private async holder(jobId: string, workerId: string): Promise<string | null> {
    const result = await this.connection.sql.query<{ queue_name: string }>(
      `select h.queue_name from ${HOLDERS} h join ${JOBS} j on j.name = h.queue_name and j.id = h.job_id
        where h.job_id = $1 and h.worker_id = $2 and j.state = 'active'`,
      [jobId, workerId],
    );
    return result.rows[0]?.queue_name ?? null;
  }

  private async requeue(where: string, workerId: string): Promise<number> {
    this.connection.dueAfterEmptyClaim.clear();
    const result = await this.connection.sql.query(
      `with released as (
         update ${JOBS} j set state = 'retry', started_on = null
           from ${HOLDERS} h
          where ${where} and j.name = h.queue_name and j.id = h.job_id and j.state = 'active' and j.name like $2 escape '!'
          returning j.id)
       delete from ${HOLDERS} where job_id in (select id from released)`,
      [workerId, `${this.workspaceId.replace(/[!%_]/g, '!$&')}!_!_%`],
    );
    return result.rowCount ?? 0;
  }
}
