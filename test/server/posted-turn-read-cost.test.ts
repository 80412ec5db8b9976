import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPostedTurn } from '../../src/store/repositories/posted-turn-reads.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import { freshTestDatabase } from '../support/test-database.js';

/**
 * NF-SCALE, bursts: a posted turn reads its conversation, its space, whether a turn of it is going
 * and its agent's state in one statement. During a burst of 1,000 turns to one agent, each in its
 * own conversation, that agent has ever more queued runs and the workspace ever more going turns:
 * the read must cost the same whatever their number (a plan that walked them would make the burst
 * quadratic). Counted with PostgreSQL's own per-transaction table statistics; no timing is asserted.
 * The answers are checked on both dialects.
 */
const RUNS = 300;
const AT = Date.UTC(2026, 11, 7);
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let dir: string;
let postgres: WorkspaceDatabase;
let sqlite: WorkspaceDatabase;

const iso = (seconds: number) => new Date(AT + seconds * 1_000).toISOString();

/** A space, two agents, and `RUNS` conversations each with one queued turn of `ceo`; `cv_quiet` has none, `cv_busy` one. */
async function seed(store: WorkspaceDatabase): Promise<void> {
  const { db } = store;
  await db.insertInto('spaces').values({ id: 'sp_work', name: 'Work', kind: 'room', mode: 'chat', autonomy: 'askFirst', default_agent_id: null, repo_path: null, created_at: iso(0), updated_at: iso(0), archived_at: null }).execute();
  for (const [id, name, at] of [['ag_engineer', 'engineer', 0], ['ag_ceo', 'ceo', 1]] as const) {
    await db.insertInto('agents').values({ id, workspace_id: 'ws_read_cost', name, title: name, persona: '', system_prompt: null, skills: '[]', adapter_id: null, model_id: null, effort: null, context_size: null, silence_timeout_minutes: null, reports_to: null, acp_command: null, created_at: iso(at), updated_at: iso(at) }).execute();
  }
  const conversations = [...Array.from({ length: RUNS }, (_, index) => `cv_${String(index).padStart(4, '0')}`), 'cv_quiet', 'cv_busy'];
  const conversationRows = conversations.map((id) => ({ id, space_id: 'sp_work', parent_conversation_id: null, branched_from_message_id: null, title: id, goal: null, created_at: iso(2), updated_at: iso(2), archived_at: null }));
  for (let from = 0; from < conversationRows.length; from += 100) await db.insertInto('conversations').values(conversationRows.slice(from, from + 100)).execute();
  const run = (id: string, conversationId: string, seconds: number, state: 'queued' | 'completed') => ({
    id,
    agent_id: 'ag_ceo',
    space_id: 'sp_work',
    conversation_id: conversationId,
    parent_run_id: null,
    state,
    liveness: 'ok' as const,
    deliverable_failed: 0,
    error: null,
    created_at: iso(seconds),
    started_at: null,
    ended_at: null,
  });
  // The oldest run completed; every later one is queued, the burst's turns waiting for the workers.
  const runRows = conversations.slice(0, RUNS).map((conversationId, index) => run(`run_${String(index).padStart(4, '0')}`, conversationId, 10 + index, index === 0 ? 'completed' : 'queued'));
  for (let from = 0; from < runRows.length; from += 100) await db.insertInto('runs').values(runRows.slice(from, from + 100)).execute();
  await db.insertInto('runs').values(run('run_busy', 'cv_busy', 5, 'queued')).execute();
}

beforeAll(async () => {
  database = await freshTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'cc-posted-turn-'));
  mkdirSync(join(dir, 'pg'));
  mkdirSync(join(dir, 'sqlite'));
  postgres = await WorkspaceDatabase.open('ws_read_cost', join(dir, 'pg'), { dialect: 'postgres', url: database.url });
  sqlite = await WorkspaceDatabase.open('ws_read_cost', join(dir, 'sqlite'));
  await seed(postgres);
  await seed(sqlite);
}, 60_000);

afterAll(async () => {
  await postgres?.close();
  await sqlite?.close();
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

describe("a posted turn's one read", () => {
  it('answers alike on both dialects: the space, the going turn, the agent and its state', async () => {
    for (const store of [postgres, sqlite]) {
      const quiet = await readPostedTurn(store.db, 'ws_read_cost', { conversationId: 'cv_quiet', mentioned: null, agentId: null });
      expect(quiet).toMatchObject({ conversationTitle: 'cv_quiet', spaceId: 'sp_work', space: { id: 'sp_work', mode: 'chat' }, turnGoing: false });
      expect(quiet?.agent).toMatchObject({ record: { id: 'ag_ceo', name: 'ceo' }, newest: { state: 'queued', liveness: 'ok' }, anyRunning: false });
      expect((await readPostedTurn(store.db, 'ws_read_cost', { conversationId: 'cv_busy', mentioned: null, agentId: null }))?.turnGoing).toBe(true);
      // A completed turn is not going.
      expect((await readPostedTurn(store.db, 'ws_read_cost', { conversationId: 'cv_0000', mentioned: null, agentId: null }))?.turnGoing).toBe(false);
      const engineer = await readPostedTurn(store.db, 'ws_read_cost', { conversationId: 'cv_quiet', mentioned: 'engineer', agentId: 'ag_ceo' });
      expect(engineer?.agent).toMatchObject({ record: { id: 'ag_engineer' }, newest: null, anyRunning: false });
      expect((await readPostedTurn(store.db, 'ws_read_cost', { conversationId: 'cv_quiet', mentioned: 'nobody', agentId: 'ag_missing' }))?.agent).toBeNull();
      expect(await readPostedTurn(store.db, 'ws_read_cost', { conversationId: 'cv_missing', mentioned: null, agentId: null })).toBeNull();
    }
  });

  it('reads a handful of run rows on PostgreSQL, not one per queued run of the agent or of the workspace, with or without statistics', async () => {
    const runRowsRead = () =>
      postgres.db.transaction().execute(async (trx) => {
        // The backend's counts not yet flushed include earlier statements': a difference, on one connection.
        const counted = async () =>
          Number((await sql<{ read: string }>`select coalesce(sum(seq_tup_read + idx_tup_fetch), 0) as read from pg_stat_xact_user_tables where relname = 'runs'`.execute(trx)).rows[0]?.read ?? 0);
        const before = await counted();
        const found = await readPostedTurn(trx, 'ws_read_cost', { conversationId: 'cv_quiet', mentioned: null, agentId: null });
        expect(found?.agent?.newest?.state).toBe('queued');
        return (await counted()) - before;
      });
    // A fresh workspace's first burst: the runs table has no statistics yet (autovacuum has not analyzed it).
    const fresh = await runRowsRead();
    expect(fresh).toBeGreaterThan(0);
    expect(fresh).toBeLessThan(RUNS / 10);
    await sql`analyze runs`.execute(postgres.db);
    const analyzed = await runRowsRead();
    expect(analyzed).toBeGreaterThan(0);
    expect(analyzed).toBeLessThan(RUNS / 10);
  });
});
