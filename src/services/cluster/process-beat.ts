import type pg from 'pg';
import { PG_BOSS_SCHEMA } from '../pipelines/pg-boss-job-queue.js';
import type { RunAffinity } from '../runs/run-affinity.js';

const PROCESSES = `${PG_BOSS_SCHEMA}.cc_processes`;
const OWNERS = `${PG_BOSS_SCHEMA}.cc_run_owners`;
/** As `RunAffinity` judges it: a process row `p` is alive while its last heartbeat is younger than the limit it declared. */
const ALIVE = `p.heartbeat_at + p.stale_ms * interval '1 millisecond' > now()`;

export interface Beat {
  /** Processes this beat recorded dead (each is recorded once, by whichever process sees it first). */
  deaths: Array<{ processId: string; lastHeartbeatAt: Date; noticedDeadAt: Date }>;
  /**
   * Whether some run, in any workspace, is owned by a process that is not alive: only then has the
   * orphan sweep (`RunAffinity.takeOrphans`, per workspace) anything to take.
   */
  orphansOwned: boolean;
}

/**
 * One beat of a process on a shared store: its heartbeat (`RunAffinity.heartbeat`), the failover
 * sweep (`RunAffinity.noticeDeaths`) and whether the orphan sweep has work, in one statement. They
 * run at every beat (a few times a second in every process that executes work), and each statement
 * is a wake-up of this process and of the database (NF-SCALE). Same rows, same rules as the separate
 * statements: a beat after a false death makes the process alive again; a process whose heartbeat ran
 * past its stale limit is recorded dead once (a clean stop's `-infinity` is not a death). The
 * process's own row is left out of the sweep: the statement's reads do not see its own beat, and it
 * is beating — alive.
 *
 * `orphansOwned` is read in the same snapshot, before this beat: it may say yes for this process's
 * own runs after a stall (the orphan sweep then runs after the beat, sees it alive and takes
 * nothing), never no while an owner row of a dead process exists — an owner that dies after this
 * read is seen by the next beat, the same beat that can first notice its death.
 */
export async function beat(affinity: RunAffinity, sql: pg.Pool, processId: string): Promise<Beat> {
  await affinity.start();
  const result = await sql.query<{ deaths: Array<{ process_id: string; heartbeat_at: string; noticed_dead_at: string }>; orphans_owned: boolean }>(
    `with beat as (
       insert into ${PROCESSES} (process_id, heartbeat_at, stale_ms) values ($1, now(), $2)
       on conflict (process_id) do update set heartbeat_at = now(), noticed_dead_at = null
     ), deaths as (
       update ${PROCESSES} p set noticed_dead_at = now()
        where p.process_id <> $1 and p.noticed_dead_at is null and p.heartbeat_at <> '-infinity' and not (${ALIVE})
        returning p.process_id, p.heartbeat_at, p.noticed_dead_at
     )
     select coalesce((select json_agg(deaths) from deaths), '[]'::json) as deaths,
            exists (select 1 from ${OWNERS} o where not exists (select 1 from ${PROCESSES} p where p.process_id = o.process_id and ${ALIVE})) as orphans_owned`,
    [processId, affinity.staleMs],
  );
  const row = result.rows[0];
  return {
    deaths: (row?.deaths ?? []).map((dead) => ({ processId: dead.process_id, lastHeartbeatAt: new Date(dead.heartbeat_at), noticedDeadAt: new Date(dead.noticed_dead_at) })),
    orphansOwned: row?.orphans_owned ?? true,
  };
}
