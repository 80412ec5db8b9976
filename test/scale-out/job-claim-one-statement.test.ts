import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { postgresEnabled } from '../support/dispatch-pair.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';
import { freshTestDatabase } from '../support/test-database.js';

/**
 * NF-SCALE: claiming a job of a busy pg-boss queue is one statement — the job taken (`for update skip
 * locked`), its lease and its holder written together — since a claim is on every queued run's path
 * and each statement is a round trip. The claim still counts as an attempt, holds the job for its
 * holder only (another worker cannot complete it) and lets the holder extend and complete it.
 * Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let connection: PgBossConnection;

beforeAll(async () => {
  if (!postgresEnabled) return;
  database = await freshTestDatabase();
  connection = new PgBossConnection(database.url);
  await connection.start();
}, 120_000);

afterAll(async () => {
  await connection?.stop();
  await database?.drop();
});

describe.skipIf(!postgresEnabled)('a claim of a busy pg-boss queue', () => {
  it('is one statement, and the job is leased to its holder', async () => {
    const queue = connection.queueFor('ws_claims');
    for (let n = 1; n <= 3; n += 1) await queue.enqueue({ queue: 'runs', payload: { n } });
    // The first claim of a queue also puts overdue leases back (a statement of its own).
    expect((await queue.claim('runs', 'worker-a', 30_000))?.payload).toEqual({ n: 1 });
    let second: Awaited<ReturnType<typeof queue.claim>> = null;
    const sent = await statementsDuring(async () => (second = await queue.claim('runs', 'worker-a', 30_000)));
    expect(second).toMatchObject({ payload: { n: 2 }, attempt: 1 });
    expect(sent).toHaveLength(1);
    expect(await queue.complete(second!.id, 'worker-b')).toBe(false);
    expect(await queue.extend(second!.id, 'worker-a', 30_000)).toBe(true);
    expect(await queue.complete(second!.id, 'worker-a')).toBe(true);
  });
});
