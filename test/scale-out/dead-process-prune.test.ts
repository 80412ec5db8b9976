import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import { PG_BOSS_SCHEMA, PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { guardPoolConnections } from '../../src/store/connection-error-guard.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * NF-SCALE: processes come and go; their `cc_processes` rows and their private runs
 * queues (`<workspace>__runs-<process id>`, one pg-boss partition table each) must not pile up.
 * A worker (a real control center on PostgreSQL) prunes the rows of processes dead for longer than
 * its limit, with their conversations' affinity, and deletes their queues once they hold no job
 * still to execute — a job waiting there is claimed first (the queue of a pruned process is
 * anyone's). A live process's row and queue stay.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let sql: pg.Pool;
let boss: PgBossConnection;
const roots: string[] = [];
let worker: ControlCenter;
let workspaceId: string;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  sql = guardPoolConnections(new pg.Pool({ connectionString: database.url, max: 1 }));
  boss = new PgBossConnection(database.url);
  roots.push(await makeDataRoot());
  worker = await ControlCenter.open({ dataRoot: roots[0]!, database: database.url, role: 'worker', jobLeaseMs: 1_500, queuePollMs: 200, processPruneMs: 2_000 });
  await worker.auth.initialize();
  workspaceId = (await worker.workspaces.create('Prune')).id;
  await worker.recover();
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await boss?.stop();
  await sql?.end();
  for (const root of roots) await rm(root, { recursive: true, force: true });
  if (enabled) await database.drop();
});

const queues = async () => (await sql.query<{ name: string }>(`select name from ${PG_BOSS_SCHEMA}.queue where strpos(name, '__runs-') > 0 order by name`)).rows.map((row) => row.name);
const processes = async () => (await sql.query<{ process_id: string }>(`select process_id from ${PG_BOSS_SCHEMA}.cc_processes order by process_id`)).rows.map((row) => row.process_id);
const affinity = async () => (await sql.query<{ process_id: string }>(`select process_id from ${PG_BOSS_SCHEMA}.cc_conversation_affinity`)).rows.map((row) => row.process_id);
const jobStates = async (queue: string) => (await sql.query<{ state: string }>(`select state from ${PG_BOSS_SCHEMA}.job where name = $1`, [`${workspaceId}__${queue}`])).rows.map((row) => row.state);

describe.skipIf(!enabled)('pruning dead processes and their runs queues', () => {
  it('forgets long-dead processes, deletes their empty queues, keeps a queue until its waiting job is taken, and leaves a live process alone', async () => {
    const queue = boss.queueFor(workspaceId);
    // Two processes that died an hour ago (stale limit 3 s), one with a conversation sticking to it.
    await sql.query(`insert into ${PG_BOSS_SCHEMA}.cc_processes (process_id, heartbeat_at, stale_ms) values ('proc_gone', now() - interval '1 hour', 3000), ('proc_busy', now() - interval '1 hour', 3000)`);
    await sql.query(`insert into ${PG_BOSS_SCHEMA}.cc_conversation_affinity (workspace_id, conversation_id, process_id) values ($1, 'conv_x', 'proc_gone')`, [workspaceId]);
    // proc_gone's queue holds an ended job only; proc_busy's a job that becomes due in 4 s (not claimable before).
    await queue.enqueue({ queue: 'runs-proc_gone', payload: { junk: true } });
    await sql.query(`update ${PG_BOSS_SCHEMA}.job set state = 'completed', completed_on = now() where name = $1`, [`${workspaceId}__runs-proc_gone`]);
    const dueAt = Date.now() + 4_000;
    await queue.enqueue({ queue: 'runs-proc_busy', payload: { junk: true }, runAt: dueAt });
    // The live worker's own queue (created by an enqueue for it, as affinity would).
    await queue.enqueue({ queue: `runs-${worker.processId}`, payload: { junk: true } });

    await pollUntil(queues, (names) => !names.includes(`${workspaceId}__runs-proc_gone`), 10_000);
    expect(await processes()).toEqual([worker.processId]);
    expect(await affinity()).toEqual([]);
    // proc_busy is forgotten but its queue is kept while its job waits.
    expect(Date.now()).toBeLessThan(dueAt);
    expect(await queues()).toContain(`${workspaceId}__runs-proc_busy`);
    expect(await jobStates('runs-proc_busy')).toEqual(['created']);

    // Once due, the worker claims it (a junk payload executes nothing; the job is finished), then the queue goes.
    await pollUntil(queues, (names) => !names.includes(`${workspaceId}__runs-proc_busy`), 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
    // The live worker's queue stays (its junk job was claimed and finished there).
    expect(await queues()).toEqual([`${workspaceId}__runs-${worker.processId}`]);
    expect(await jobStates(`runs-${worker.processId}`)).toEqual(['completed']);
  }, 60_000);
});
