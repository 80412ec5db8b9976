import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_BOSS_SCHEMA } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { RunAffinity } from '../../src/services/runs/run-affinity.js';
import { guardPoolConnections } from '../../src/store/connection-error-guard.js';
import { closeInOrder, freshTestDatabase } from '../support/test-database.js';

/**
 * NF-SCALE: a worker's claim of a queued run is the run's ownership — one statement takes the run
 * (of two claimers only one) and makes its conversation stick to the taker, so the run's start adds
 * no owner write of its own (one statement less per queued turn). Real PostgreSQL; runs under
 * CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let sql: pg.Pool;
let affinity: RunAffinity;
let statements = 0;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  sql = guardPoolConnections(new pg.Pool({ connectionString: database.url, max: 2 }));
  // pg-boss makes its schema when a process starts its queues; the tables here live beside them.
  await sql.query(`create schema if not exists ${PG_BOSS_SCHEMA}`);
  affinity = new RunAffinity(sql, 10_000);
  await affinity.heartbeat('proc_a');
  await affinity.heartbeat('proc_b');
  const query = sql.query.bind(sql) as (...args: unknown[]) => Promise<unknown>;
  (sql as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
    statements += 1;
    return query(...args);
  };
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  await closeInOrder([() => sql?.end(), () => database?.drop()]);
});

describe.skipIf(!enabled)('claiming a queued run', () => {
  it('takes the run for one claimer only and makes its conversation stick to it, in one statement', async () => {
    const before = statements;
    const [first, second] = await Promise.all([affinity.claim('ws_1', 'run_1', 'proc_a', 'conv_1'), affinity.claim('ws_1', 'run_1', 'proc_b', 'conv_1')]);
    expect(statements - before).toBe(2);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const taker = first ? 'proc_a' : 'proc_b';
    expect(await affinity.owned('ws_1', ['run_1'])).toEqual(new Set(['run_1']));
    // The claimer that lost changed nothing: the conversation sticks to the taker.
    expect(await affinity.affinityOf('ws_1', 'conv_1')).toBe(taker);

    // A later run of the conversation taken by the other process moves it there; a run without a conversation sticks nothing.
    const other = taker === 'proc_a' ? 'proc_b' : 'proc_a';
    expect(await affinity.claim('ws_1', 'run_2', other, 'conv_1')).toBe(true);
    expect(await affinity.affinityOf('ws_1', 'conv_1')).toBe(other);
    expect(await affinity.claim('ws_1', 'run_3', taker, null)).toBe(true);
    expect(await affinity.owned('ws_1', ['run_2', 'run_3'])).toEqual(new Set(['run_2', 'run_3']));
    expect((await sql.query(`select count(*)::int as n from ${PG_BOSS_SCHEMA}.cc_conversation_affinity`)).rows[0].n).toBe(1);
  });
});
