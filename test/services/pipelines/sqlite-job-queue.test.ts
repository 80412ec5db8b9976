import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobQueue } from '../../../src/services/pipelines/job-queue.js';
import { PG_BOSS_SCHEMA, PgBossConnection } from '../../../src/services/pipelines/pg-boss-job-queue.js';
import { SqliteJobQueue } from '../../../src/services/pipelines/sqlite-job-queue.js';
import { WorkspaceDatabase } from '../../../src/store/workspace-database.js';
import { freshTestDatabase, testStoreLocation } from '../../support/test-database.js';

/**
 * The JobQueue contract (PIPE-1), run against both implementations: the embedded queue
 * (SQLite, or under CC_TEST_DATABASE=postgres its rows on PostgreSQL) and pg-boss on a real
 * PostgreSQL server (when one is configured: CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres).
 * Time moves through `advance`: the embedded queue's clock is injected; pg-boss compares with the
 * database's now(), so its rows' timestamps are moved back instead — the same as time passing.
 */
interface Harness {
  queue: JobQueue;
  now(): number;
  advance(ms: number): Promise<void>;
  /** The stored row of a job: its state in the implementation's words, last error and claims. */
  deadJob(id: string): Promise<{ dead: boolean; lastError: string | null; claims: number }>;
  jobCount(): Promise<number>;
  dispose(): Promise<void>;
}

interface Implementation {
  name: string;
  enabled: boolean;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  harness(): Promise<Harness>;
}

let embeddedStore: Awaited<ReturnType<typeof testStoreLocation>>;
const embedded: Implementation = {
  name: 'SqliteJobQueue (embedded)',
  enabled: true,
  setup: async () => {
    embeddedStore = await testStoreLocation();
  },
  teardown: () => embeddedStore.cleanup(),
  harness: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cc-queue-'));
    const database = await WorkspaceDatabase.open('ws_queue', dir, embeddedStore.location);
    let clock = 1_000_000;
    return {
      queue: new SqliteJobQueue(database.db, () => clock),
      now: () => clock,
      advance: async (ms) => {
        clock += ms;
      },
      deadJob: async (id) => {
        const row = await database.db.selectFrom('pipeline_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        return { dead: row.status === 'dead', lastError: row.last_error, claims: row.attempts };
      },
      jobCount: async () => (await database.db.selectFrom('pipeline_jobs').select('id').execute()).length,
      dispose: async () => {
        await database.closeAndDrop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

let bossDatabase: Awaited<ReturnType<typeof freshTestDatabase>>;
let bossConnection: PgBossConnection;
let workspaceCounter = 0;
const pgBoss: Implementation = {
  name: 'PgBossJobQueue (pg-boss on PostgreSQL)',
  enabled: Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres',
  setup: async () => {
    bossDatabase = await freshTestDatabase();
    bossConnection = new PgBossConnection(bossDatabase.url);
    await bossConnection.start();
  },
  teardown: async () => {
    await bossConnection.stop();
    await bossDatabase.drop();
  },
  harness: async () => {
    // Each test its own workspace, so its own pg-boss queues.
    const workspaceId = `ws_queue${(workspaceCounter += 1)}`;
    const sql = bossConnection.sql;
    return {
      queue: bossConnection.queueFor(workspaceId),
      now: () => Date.now(),
      advance: async (ms) => {
        await sql.query(
          `update ${PG_BOSS_SCHEMA}.job set start_after = start_after - $2 * interval '1 millisecond', started_on = started_on - $2 * interval '1 millisecond' where name like $1`,
          [`${workspaceId}\\_\\_%`, ms],
        );
      },
      deadJob: async (id) => {
        const { rows } = await sql.query<{ state: string; output: { message?: string } | null; retry_count: number }>(`select state, output, retry_count from ${PG_BOSS_SCHEMA}.job where id = $1`, [id]);
        const row = rows[0]!;
        return { dead: row.state === 'failed', lastError: row.output?.message ?? null, claims: row.retry_count + 1 };
      },
      jobCount: async () => Number((await sql.query<{ n: string }>(`select count(*) as n from ${PG_BOSS_SCHEMA}.job where name like $1`, [`${workspaceId}\\_\\_%`])).rows[0]!.n),
      dispose: async () => undefined,
    };
  },
};

const LEASE = 600_000;

for (const implementation of [embedded, pgBoss]) {
  describe.skipIf(!implementation.enabled)(`${implementation.name}: the JobQueue contract (PIPE-1)`, () => {
    let h: Harness;
    let queue: JobQueue;
    beforeAll(() => implementation.setup());
    afterAll(() => implementation.teardown());
    beforeEach(async () => {
      h = await implementation.harness();
      queue = h.queue;
    });
    afterEach(() => h.dispose());

    it('claims due jobs oldest first, one holder at a time, and completes them', async () => {
      const first = await queue.enqueue({ queue: 'nodes', payload: { n: 1 } });
      const runAt = h.now() + LEASE;
      await queue.enqueue({ queue: 'nodes', payload: { n: 2 }, runAt });
      await queue.enqueue({ queue: 'other', payload: { n: 3 } });
      const claimed = await queue.claim('nodes', 'w1', LEASE * 2);
      expect(claimed).toMatchObject({ id: first.id, payload: { n: 1 }, attempt: 1 });
      expect(await queue.claim('nodes', 'w2', LEASE)).toBeNull(); // the other one is not due yet
      expect(await queue.nextDueAt('nodes')).toBe(runAt);
      expect(await queue.complete(claimed!.id, 'w2')).toBe(false); // not its holder
      expect(await queue.complete(claimed!.id, 'w1')).toBe(true);
      await h.advance(LEASE);
      expect((await queue.claim('nodes', 'w2', LEASE))?.payload).toEqual({ n: 2 });
    });

    it('an expired lease makes the job claimable again (a crashed worker)', async () => {
      const job = await queue.enqueue({ queue: 'nodes', payload: null });
      await queue.claim('nodes', 'dead-worker', LEASE);
      expect(await queue.claim('nodes', 'w2', LEASE)).toBeNull();
      expect(await queue.extend(job.id, 'dead-worker', LEASE)).toBe(true);
      await h.advance(LEASE + 1);
      const again = await queue.claim('nodes', 'w2', LEASE);
      expect(again).toMatchObject({ id: job.id, attempt: 2 });
      expect(await queue.extend(job.id, 'dead-worker', LEASE)).toBe(false);
      expect(await queue.complete(job.id, 'dead-worker')).toBe(false);
      expect(await queue.complete(job.id, 'w2')).toBe(true);
    });

    it('fail retries with exponential backoff until attempts run out, then the job is dead', async () => {
      const backoff = 60_000;
      const job = await queue.enqueue({ queue: 'nodes', payload: null, maxAttempts: 3, backoffMs: backoff });
      await queue.claim('nodes', 'w', LEASE);
      const expectRetryAt = async (delay: number) => {
        const before = h.now();
        const { retryAt } = await queue.fail(job.id, 'w', 'boom');
        expect(retryAt).toBeGreaterThanOrEqual(before + delay);
        expect(retryAt).toBeLessThanOrEqual(h.now() + delay);
      };
      await expectRetryAt(backoff);
      expect(await queue.claim('nodes', 'w', LEASE)).toBeNull();
      await h.advance(backoff);
      expect((await queue.claim('nodes', 'w', LEASE))?.attempt).toBe(2);
      await expectRetryAt(backoff * 2);
      await h.advance(backoff * 2);
      expect((await queue.claim('nodes', 'w', LEASE))?.attempt).toBe(3);
      expect(await queue.fail(job.id, 'w', 'boom')).toEqual({ retryAt: null });
      await h.advance(LEASE * 2);
      expect(await queue.claim('nodes', 'w', LEASE)).toBeNull();
      expect(await h.deadJob(job.id)).toEqual({ dead: true, lastError: 'boom', claims: 3 });
    });

    it('fail without retry is dead at once; release on shutdown returns held jobs uncounted', async () => {
      const a = await queue.enqueue({ queue: 'nodes', payload: 'a', maxAttempts: 5 });
      await queue.claim('nodes', 'w', LEASE);
      expect(await queue.fail(a.id, 'w', 'no', { retry: false })).toEqual({ retryAt: null });
      const b = await queue.enqueue({ queue: 'nodes', payload: 'b' });
      await queue.claim('nodes', 'w', LEASE);
      expect(await queue.release('w')).toBe(1);
      expect(await queue.claim('nodes', 'w2', LEASE)).toMatchObject({ id: b.id, attempt: 1 });
      expect(await queue.release('w')).toBe(0);
    });

    it('reclaimAbandoned hands back only what a dead holder left (its lease ran out)', async () => {
      const job = await queue.enqueue({ queue: 'nodes', payload: 'x' });
      await queue.claim('nodes', 'old', LEASE);
      const reclaimed = await queue.reclaimAbandoned('new');
      // The embedded queue is owned by one process, so any other holder is a previous, dead process.
      if (reclaimed === 0) {
        expect(await queue.claim('nodes', 'new', LEASE)).toBeNull();
        await h.advance(LEASE + 1);
        expect(await queue.reclaimAbandoned('new')).toBe(1);
      }
      expect(await queue.claim('nodes', 'new', LEASE)).toMatchObject({ id: job.id });
    });

    it('a dedupe key makes enqueue idempotent', async () => {
      const one = await queue.enqueue({ queue: 'nodes', payload: 1, dedupeKey: 'run1:a' });
      const two = await queue.enqueue({ queue: 'nodes', payload: 2, dedupeKey: 'run1:a' });
      expect(two).toEqual({ id: one.id, created: false });
      expect(one.created).toBe(true);
      expect(await h.jobCount()).toBe(1);
    });
  });
}

describe.skipIf(!pgBoss.enabled)('PgBossJobQueue: the claims of a busy queue (NF-SCALE)', () => {
  beforeAll(() => pgBoss.setup());
  afterAll(() => pgBoss.teardown());

  it('claims in a row put overdue leases back once, not once each; a claim finding nothing claimable puts them back and takes one at once', async () => {
    const h = await pgBoss.harness();
    // Longer than any machine takes for the claims below: the count does not depend on its speed.
    bossConnection.expirySweepEveryMs = 600_000;
    const queries = vi.spyOn(bossConnection.sql, 'query');
    const sweeps = () => queries.mock.calls.filter(([text]) => String(text).includes("set state = 'retry' where name = $1 and state = 'active' and started_on + expire_in < now()")).length;
    try {
      for (let n = 1; n <= 3; n += 1) await h.queue.enqueue({ queue: 'runs', payload: { n } });
      const claimed = [];
      for (let n = 1; n <= 3; n += 1) claimed.push(await h.queue.claim('runs', 'dead-worker', LEASE));
      expect(claimed.map((job) => job?.payload)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(sweeps()).toBe(1);
      // Every lease runs out (the worker died): the next claim finds nothing claimable, sweeps, and takes the oldest again.
      await h.advance(LEASE + 1);
      expect(await h.queue.claim('runs', 'w2', LEASE)).toMatchObject({ id: claimed[0]!.id, attempt: 2 });
      expect(sweeps()).toBe(2);
    } finally {
      queries.mockRestore();
    }
  });
});
