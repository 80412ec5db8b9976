import type pg from 'pg';
import { PG_BOSS_SCHEMA, serializedPgBossDdl, type JobClaimPart } from '../pipelines/pg-boss-job-queue.js';
import type { StatementPart } from '../../store/one-statement.js';

/**
 * Which process executes which run, and which process a conversation sticks to
 * (docs/scale-out.md "Files when a worker dies"). PostgreSQL only, kept beside pg-boss's tables in
 * `cc_pgboss` (not in a workspace's schema: a process must see the liveness of every other process,
 * and a workspace handle can by construction read nothing outside its own schema).
 *
 * - `cc_processes`: every process that executes runs writes a heartbeat; one silent for longer than
 *   the stale limit is dead.
 * - `cc_run_owners`: the process executing each unfinished run. A run whose owner is dead (or that
 *   is `running` with no owner at all) is an orphan; no other run is ever marked dead, so a process
 *   starting on a shared database leaves the runs of live processes alone.
 * - `cc_conversation_affinity`: the process that last executed a run of a conversation holds its
 *   checkout; the next run of that conversation is queued for it while it lives.
 */
const PROCESSES = `${PG_BOSS_SCHEMA}.cc_processes`;
const OWNERS = `${PG_BOSS_SCHEMA}.cc_run_owners`;
const AFFINITY = `${PG_BOSS_SCHEMA}.cc_conversation_affinity`;
/** A process row `p` is alive while its last heartbeat is younger than the limit it declared. */
const ALIVE = `p.heartbeat_at + p.stale_ms * interval '1 millisecond' > now()`;

export class RunAffinity {
  private started: Promise<void> | null = null;

  constructor(
    private readonly sql: pg.Pool,
    /** This process is dead for the others once its heartbeat is older than this. */
    readonly staleMs: number,
  ) {}

  start(): Promise<void> {
    // Every process creates the tables on start, and `if not exists` races in PostgreSQL's catalog
    // (`type "cc_run_owners" already exists`): one process at a time, under pg-boss's DDL lock.
    this.started ??= serializedPgBossDdl(this.sql, async (client) => {
      // Each process states its own limit: processes started with different leases judge each other by the beater's.
      await client.query(`create table if not exists ${PROCESSES} (process_id text primary key, heartbeat_at timestamptz not null, stale_ms bigint not null)`);
      // When another process first saw this one dead (the failover sweep); null while alive. A later
      // column: tables made by an earlier release get it here.
      await client.query(`alter table ${PROCESSES} add column if not exists noticed_dead_at timestamptz`);
      await client.query(
        `create table if not exists ${OWNERS} (workspace_id text not null, run_id text not null, process_id text not null, primary key (workspace_id, run_id))`,
      );
      await client.query(
        `create table if not exists ${AFFINITY} (workspace_id text not null, conversation_id text not null, process_id text not null, primary key (workspace_id, conversation_id))`,
      );
    }).catch((error: unknown) => {
      // A failed start (the database away for a moment) is tried again by the next call.
      this.started = null;
      throw error;
    });
    return this.started;
  }

  async heartbeat(processId: string): Promise<void> {
    await this.start();
    // A beat after a false death (a stall longer than the margin) makes the process alive again.
    await this.sql.query(
      `insert into ${PROCESSES} (process_id, heartbeat_at, stale_ms) values ($1, now(), $2) on conflict (process_id) do update set heartbeat_at = now(), noticed_dead_at = null`,
      [processId, this.staleMs],
    );
  }

  /**
   * The failover sweep: records, once, the moment a process whose heartbeat ran past its stale limit
   * is first seen dead (a clean stop's `-infinity` is not a death) and returns those processes. One
   * query over a table of one row per process: cheap enough for every beat.
   */
  async noticeDeaths(): Promise<Array<{ processId: string; lastHeartbeatAt: Date; noticedDeadAt: Date }>> {
    await this.start();
    const result = await this.sql.query<{ process_id: string; heartbeat_at: Date; noticed_dead_at: Date }>(
      `update ${PROCESSES} p set noticed_dead_at = now()
        where p.noticed_dead_at is null and p.heartbeat_at <> '-infinity' and not (${ALIVE})
        returning p.process_id, p.heartbeat_at, p.noticed_dead_at`,
    );
    return result.rows.map((row) => ({ processId: row.process_id, lastHeartbeatAt: row.heartbeat_at, noticedDeadAt: row.noticed_dead_at }));
  }

  /**
   * A clean stop: the process is dead at once for everyone (its runs were cancelled and recorded);
   * kept as a dead row so the runs queued for it are claimed by the others.
   */
  async leave(processId: string): Promise<void> {
    await this.start();
    await this.sql.query(`update ${PROCESSES} set heartbeat_at = '-infinity' where process_id = $1`, [processId]);
  }

  /**
   * `processId` takes a queued run unless some process (live or not yet reaped) already holds it;
   * true when taken. Two claimers of one run — two jobs for it, after a sweep re-enqueued its
   * dispatch — never both go on. The taker is the run's owner from here on and its conversation (if
   * any) sticks to it, in the same statement (this is on every queued run's path; a claimer that
   * then finds the run is not to be executed has made its conversation stick to a live process,
   * which only decides where that conversation's next run is queued).
   */
  async claim(workspaceId: string, runId: string, processId: string, conversationId: string | null): Promise<boolean> {
    await this.start();
    // The run as a claimed job's row would carry it (`claimPart` reads it from there).
    const part = this.claimPart(workspaceId, processId);
    const result = await this.sql.query<{ claimed: string | null }>(`with job as (select $1::jsonb as data), ${part.ctes(2, 'job')} select ${part.answer} as claimed`, [
      JSON.stringify({ payload: { runId, conversationId } }),
      ...part.values,
    ]);
    return result.rows[0]?.claimed === runId;
  }

  /**
   * {@link claim} as a part of a runs-queue job's claim (`PgBossJobQueue.claimWith`): the run and its
   * conversation are read from the claimed job's payload, so taking a queued run costs no statement
   * of its own. Its answer is the id of the run taken (the payload's `runId` as stored), null when
   * nothing was taken: the caller compares it with the payload it parsed. The caller has awaited {@link start}.
   */
  claimPart(workspaceId: string, processId: string): JobClaimPart {
    return {
      ctes: (first, claimed) => {
        const [workspace, process] = [`$${first}`, `$${first + 1}`];
        return `owner as (
         insert into ${OWNERS} (workspace_id, run_id, process_id)
         select ${workspace}::text, c.data->'payload'->>'runId', ${process}::text from ${claimed} c where jsonb_typeof(c.data->'payload'->'runId') = 'string'
         on conflict (workspace_id, run_id) do nothing returning run_id
       ), affinity as (
         insert into ${AFFINITY} (workspace_id, conversation_id, process_id)
         select ${workspace}::text, c.data->'payload'->>'conversationId', ${process}::text from ${claimed} c, owner where jsonb_typeof(c.data->'payload'->'conversationId') = 'string'
         on conflict (workspace_id, conversation_id) do update set process_id = excluded.process_id
       )`;
      },
      values: [workspaceId, processId],
      answer: '(select run_id from owner)',
    };
  }

  /** `processId` executes the run from now on; the run's conversation (if any) sticks to it. */
  async own(workspaceId: string, runId: string, conversationId: string | null, processId: string): Promise<void> {
    await this.start();
    // Both rows in one statement: this is on every run's path.
    await this.sql.query(
      `with owner as (
         insert into ${OWNERS} (workspace_id, run_id, process_id) values ($1, $2, $3) on conflict (workspace_id, run_id) do update set process_id = excluded.process_id
       )
       insert into ${AFFINITY} (workspace_id, conversation_id, process_id) select $1, $4::text, $3 where $4::text is not null
       on conflict (workspace_id, conversation_id) do update set process_id = excluded.process_id`,
      [workspaceId, runId, processId, conversationId],
    );
  }

  /** The run ended and is recorded: nobody owns it any more. */
  async disown(workspaceId: string, runId: string): Promise<void> {
    await this.start();
    const part = this.disownPart(workspaceId, runId);
    await this.sql.query(`with ${part.ctes(1)} select 1`, part.values);
  }

  /**
   * {@link disown} as a part of another statement: a worker sends it in the completion of the job it
   * executed the run from (`PgBossJobQueue.complete`). The caller has awaited {@link start}.
   */
  disownPart(workspaceId: string, runId: string): StatementPart {
    return { ctes: (first) => `disowned as (delete from ${OWNERS} where workspace_id = $${first} and run_id = $${first + 1})`, values: [workspaceId, runId] };
  }

  /** The live process a conversation sticks to, or null (none yet, or it is dead). */
  async affinityOf(workspaceId: string, conversationId: string): Promise<string | null> {
    await this.start();
    const result = await this.sql.query<{ process_id: string }>(
      `select a.process_id from ${AFFINITY} a join ${PROCESSES} p on p.process_id = a.process_id
        where a.workspace_id = $1 and a.conversation_id = $2 and ${ALIVE}`,
      [workspaceId, conversationId],
    );
    return result.rows[0]?.process_id ?? null;
  }

  /** Processes alive now: a private run queue of any other process (dead, or pruned) is anyone's. */
  async liveProcesses(): Promise<Set<string>> {
    await this.start();
    const result = await this.sql.query<{ process_id: string }>(`select process_id from ${PROCESSES} p where ${ALIVE}`);
    return new Set(result.rows.map((row) => row.process_id));
  }

  /** Every process with a row, alive or dead but not yet pruned. */
  async knownProcesses(): Promise<Set<string>> {
    await this.start();
    const result = await this.sql.query<{ process_id: string }>(`select process_id from ${PROCESSES}`);
    return new Set(result.rows.map((row) => row.process_id));
  }

  /**
   * Forgets processes dead for longer than `afterMs` past their stale limit (a clean stop's
   * `-infinity` included): their rows and their conversations' affinity. Their owned runs need no
   * row of theirs to be taken as orphans. Returns the ids forgotten.
   */
  async prune(afterMs: number): Promise<string[]> {
    await this.start();
    const result = await this.sql.query<{ process_id: string }>(
      `delete from ${PROCESSES} p where p.heartbeat_at + (p.stale_ms + $1) * interval '1 millisecond' < now() returning p.process_id`,
      [afterMs],
    );
    const gone = result.rows.map((row) => row.process_id);
    if (gone.length > 0) await this.sql.query(`delete from ${AFFINITY} where process_id = any($1::text[])`, [gone]);
    return gone;
  }

  /**
   * Takes the ownership of `workspaceId`'s runs whose owner is dead (or gone), exactly once across
   * processes (the rows are deleted as they are returned): the caller marks those runs dead.
   */
  async takeOrphans(workspaceId: string): Promise<string[]> {
    await this.start();
    const result = await this.sql.query<{ run_id: string }>(
      `delete from ${OWNERS} o
        where o.workspace_id = $1
          and not exists (select 1 from ${PROCESSES} p where p.process_id = o.process_id and ${ALIVE})
        returning o.run_id`,
      [workspaceId],
    );
    return result.rows.map((row) => row.run_id);
  }

  /** Which of `runIds` have an owner row (owned by some process, live or not yet reaped). */
  async owned(workspaceId: string, runIds: readonly string[]): Promise<Set<string>> {
    if (runIds.length === 0) return new Set();
    await this.start();
    const result = await this.sql.query<{ run_id: string }>(`select run_id from ${OWNERS} where workspace_id = $1 and run_id = any($2::text[])`, [workspaceId, [...runIds]]);
    return new Set(result.rows.map((row) => row.run_id));
  }
}
