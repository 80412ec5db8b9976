import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqliteJobQueue } from '../../../src/services/pipelines/sqlite-job-queue.js';
import { WorkspaceDatabase } from '../../../src/store/workspace-database.js';
import { testStoreLocation } from '../../support/test-database.js';

let dir: string;
let database: WorkspaceDatabase;
let clock: number;
let queue: SqliteJobQueue;
// SQLite, or under CC_TEST_DATABASE=postgres a PostgreSQL database for this file (issue 16).
let store: Awaited<ReturnType<typeof testStoreLocation>>;

beforeAll(async () => {
  store = await testStoreLocation();
});
afterAll(async () => {
  await store.cleanup();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-queue-'));
  database = await WorkspaceDatabase.open('ws_queue', dir, store.location);
  clock = 1_000_000;
  queue = new SqliteJobQueue(database.db, () => clock);
});
afterEach(async () => {
  await database.closeAndDrop();
  await rm(dir, { recursive: true, force: true });
});

describe('SqliteJobQueue (PIPE-1 embedded queue)', () => {
  it('claims due jobs oldest first, one holder at a time, and completes them', async () => {
    const first = await queue.enqueue({ queue: 'nodes', payload: { n: 1 } });
    await queue.enqueue({ queue: 'nodes', payload: { n: 2 }, runAt: clock + 5_000 });
    await queue.enqueue({ queue: 'other', payload: { n: 3 } });
    const claimed = await queue.claim('nodes', 'w1', 10_000);
    expect(claimed).toMatchObject({ id: first.id, payload: { n: 1 }, attempt: 1 });
    expect(await queue.claim('nodes', 'w2', 10_000)).toBeNull(); // the other one is not due yet
    expect(await queue.nextDueAt('nodes')).toBe(clock + 5_000);
    expect(await queue.complete(claimed!.id, 'w2')).toBe(false); // not its holder
    expect(await queue.complete(claimed!.id, 'w1')).toBe(true);
    clock += 5_000;
    expect((await queue.claim('nodes', 'w2', 10_000))?.payload).toEqual({ n: 2 });
  });

  it('an expired lease makes the job claimable again (a crashed worker)', async () => {
    const job = await queue.enqueue({ queue: 'nodes', payload: null });
    await queue.claim('nodes', 'dead-worker', 1_000);
    expect(await queue.claim('nodes', 'w2', 1_000)).toBeNull();
    expect(await queue.extend(job.id, 'dead-worker', 1_000)).toBe(true);
    clock += 1_001;
    const again = await queue.claim('nodes', 'w2', 1_000);
    expect(again).toMatchObject({ id: job.id, attempt: 2 });
    expect(await queue.extend(job.id, 'dead-worker', 1_000)).toBe(false);
  });

  it('fail retries with exponential backoff until attempts run out, then the job is dead', async () => {
    const job = await queue.enqueue({ queue: 'nodes', payload: null, maxAttempts: 3, backoffMs: 100 });
    await queue.claim('nodes', 'w', 1_000);
    expect(await queue.fail(job.id, 'w', 'boom')).toEqual({ retryAt: clock + 100 });
    expect(await queue.claim('nodes', 'w', 1_000)).toBeNull();
    clock += 100;
    expect((await queue.claim('nodes', 'w', 1_000))?.attempt).toBe(2);
    expect(await queue.fail(job.id, 'w', 'boom')).toEqual({ retryAt: clock + 200 });
    clock += 200;
    expect((await queue.claim('nodes', 'w', 1_000))?.attempt).toBe(3);
    expect(await queue.fail(job.id, 'w', 'boom')).toEqual({ retryAt: null });
    clock += 10_000;
    expect(await queue.claim('nodes', 'w', 1_000)).toBeNull();
    const row = await database.db.selectFrom('pipeline_jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'dead', last_error: 'boom', attempts: 3 });
  });

  it('fail without retry is dead at once; release on shutdown returns held jobs uncounted', async () => {
    const a = await queue.enqueue({ queue: 'nodes', payload: 'a', maxAttempts: 5 });
    await queue.claim('nodes', 'w', 1_000);
    expect(await queue.fail(a.id, 'w', 'no', { retry: false })).toEqual({ retryAt: null });
    const b = await queue.enqueue({ queue: 'nodes', payload: 'b' });
    await queue.claim('nodes', 'w', 60_000);
    expect(await queue.release('w')).toBe(1);
    expect(await queue.claim('nodes', 'w2', 1_000)).toMatchObject({ id: b.id, attempt: 1 });
  });

  it('a dedupe key makes enqueue idempotent', async () => {
    const one = await queue.enqueue({ queue: 'nodes', payload: 1, dedupeKey: 'run1:a' });
    const two = await queue.enqueue({ queue: 'nodes', payload: 2, dedupeKey: 'run1:a' });
    expect(two).toEqual({ id: one.id, created: false });
    expect(one.created).toBe(true);
    expect(await database.db.selectFrom('pipeline_jobs').select('id').execute()).toHaveLength(1);
  });
});
