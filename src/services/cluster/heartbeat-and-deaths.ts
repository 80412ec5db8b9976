import type pg from 'pg';
import { PG_BOSS_SCHEMA } from '../pipelines/pg-boss-job-queue.js';
import type { RunAffinity } from '../runs/run-affinity.js';

const PROCESSES = `${PG_BOSS_SCHEMA}.cc_processes`;

/**
 * One beat of a process on a shared store: its heartbeat (`RunAffinity.heartbeat`) and the failover
 * sweep (`RunAffinity.noticeDeaths`) in one statement. They run together at every beat (a few times
 * a second in every process that executes work), and each statement is a wake-up of this process and
 * of the database (NF-SCALE). Same rows, same rules as the two statements: a beat after a false death
 * makes the process alive again; a process whose heartbeat ran past its stale limit is recorded dead
 * once (a clean stop's `-infinity` is not a death) and returned. The process's own row is left out
 * of the sweep: the statement's reads do not see its own beat, and it is beating — alive.
 */
export async function beatAndNoticeDeaths(affinity: RunAffinity, sql: pg.Pool, processId: string): Promise<Array<{ processId: string; lastHeartbeatAt: Date; noticedDeadAt: Date }>> {
  await affinity.start();
  const result = await sql.query<{ process_id: string; heartbeat_at: Date; noticed_dead_at: Date }>(
    `with beat as (
       insert into ${PROCESSES} (process_id, heartbeat_at, stale_ms) values ($1, now(), $2)
       on conflict (process_id) do update set heartbeat_at = now(), noticed_dead_at = null
     )
     update ${PROCESSES} p set noticed_dead_at = now()
      where p.process_id <> $1 and p.noticed_dead_at is null and p.heartbeat_at <> '-infinity'
        and not (p.heartbeat_at + p.stale_ms * interval '1 millisecond' > now())
      returning p.process_id, p.heartbeat_at, p.noticed_dead_at`,
    [processId, affinity.staleMs],
  );
  return result.rows.map((row) => ({ processId: row.process_id, lastHeartbeatAt: row.heartbeat_at, noticedDeadAt: row.noticed_dead_at }));
}
