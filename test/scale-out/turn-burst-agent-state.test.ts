import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newestRunStates } from '../../src/store/repositories/run-repository.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import { freshTestDatabase } from '../support/test-database.js';

/**
 * NF-SCALE, bursts; AG-3: every POSTed turn reads its agent's newest run and whether any of its runs
 * is running. That read must cost the same whatever the agent's history: a burst of 1,000 turns to
 * one agent made PostgreSQL re-run the newest-run subquery once per run of the agent, in every POST
 * (quadratic over the burst: ten backends busy with it for most of the acceptance). Counted with
 * PostgreSQL's own per-transaction table statistics, so no timing is asserted.
 */
const RUNS = 300;
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let dir: string;
let postgres: WorkspaceDatabase;
let sqlite: WorkspaceDatabase;

/** `RUNS` runs of one agent, one `running` among them; the newest is queued, and shares its time with another (the id breaks the tie). */
async function seedRuns(store: WorkspaceDatabase): Promise<void> {
  const at = (index: number) => new Date(Date.UTC(2026, 11, 6) + Math.min(index, RUNS - 2) * 1_000).toISOString();
  const rows = Array.from({ length: RUNS }, (_, index) => ({
    id: `run_${String(index).padStart(4, '0')}`,
    agent_id: 'agt_burst',
    space_id: null,
    conversation_id: null,
    parent_run_id: null,
    state: index === 10 ? ('running' as const) : index < RUNS - 2 ? ('completed' as const) : ('queued' as const),
    liveness: 'ok' as const,
    deliverable_failed: 0,
    error: null,
    created_at: at(index),
    started_at: null,
    ended_at: null,
  }));
  for (let from = 0; from < rows.length; from += 100) await store.db.insertInto('runs').values(rows.slice(from, from + 100)).execute();
  // A run of another agent, newer than all: not this agent's newest.
  await store.db.insertInto('runs').values({ ...rows[0]!, id: 'run_other', agent_id: 'agt_other', created_at: new Date(Date.UTC(2027, 0, 1)).toISOString() }).execute();
}

beforeAll(async () => {
  database = await freshTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'cc-agent-state-'));
  mkdirSync(join(dir, 'pg'));
  mkdirSync(join(dir, 'sqlite'));
  postgres = await WorkspaceDatabase.open('ws_agent_state', join(dir, 'pg'), { dialect: 'postgres', url: database.url });
  sqlite = await WorkspaceDatabase.open('ws_agent_state', join(dir, 'sqlite'));
  await seedRuns(postgres);
  await seedRuns(sqlite);
  await sql`analyze runs`.execute(postgres.db);
}, 60_000);

afterAll(async () => {
  await postgres?.close();
  await sqlite?.close();
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

describe("a turn's read of its agent's state", () => {
  it('finds the newest run (the id breaks a tie of times) and a running one, on both dialects', async () => {
    for (const store of [postgres, sqlite]) {
      const { newest, running } = await newestRunStates(store.db, ['agt_burst']);
      expect(newest.get('agt_burst')).toEqual({ state: 'queued', liveness: 'ok' });
      expect([...running]).toEqual(['agt_burst']);
      // Several agents at once read the same.
      const many = await newestRunStates(store.db, ['agt_burst', 'agt_other']);
      expect([...many.newest.keys()].sort()).toEqual(['agt_burst', 'agt_other']);
      expect([...many.running]).toEqual(['agt_burst']);
    }
  });

  it("reads a handful of rows on PostgreSQL, not one per run of the agent", async () => {
    const rowsRead = await postgres.db.transaction().execute(async (trx) => {
      // The backend's counts not yet flushed (at most once a second) include earlier statements': a difference, on one connection.
      const counted = async () =>
        Number((await sql<{ read: string }>`select coalesce(sum(seq_tup_read + idx_tup_fetch), 0) as read from pg_stat_xact_user_tables where relname = 'runs'`.execute(trx)).rows[0]?.read ?? 0);
      const before = await counted();
      await newestRunStates(trx, ['agt_burst']);
      return (await counted()) - before;
    });
    expect(rowsRead).toBeGreaterThan(0);
    expect(rowsRead).toBeLessThan(RUNS / 10);
  });
});
