import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/open-postgres.js';
import { startWorker } from '../../src/server/start-worker.js';
import { withStartupLock } from '../../src/store/startup-lock.js';
import { closeInOrder, freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * NF-SCALE: the database ends a connection the process holds — a PostgreSQL restart, a failover, an
 * administrator, a test dropping its database `with (force)` — while that connection is borrowed
 * (inside a transaction, or held for the start-up lock). The statement that needed it fails and its
 * caller handles that; the process itself must not die of the connection's 'error' event, which
 * `pg` emits on a borrowed connection that nothing listens to (a CI run ended with such an error
 * thrown outside any test, during a PostgreSQL test's teardown).
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let admin: pg.Client;
const uncaught: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  admin = new pg.Client({ connectionString: database.url });
  admin.on('error', () => undefined);
  await admin.connect();
  process.on('uncaughtException', record);
});

afterAll(async () => {
  process.off('uncaughtException', record);
  await admin?.end();
  if (enabled) await database.drop();
});

beforeEach(() => {
  uncaught.length = 0;
});

/** Ends one server process's connection as an administrator would, and waits until it is gone. */
async function terminate(pid: number): Promise<void> {
  await admin.query('select pg_terminate_backend($1)', [pid]);
  await expect.poll(async () => (await admin.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount).toBe(0);
}

describe.skipIf(!enabled)('a connection lost while borrowed', () => {
  it('a workspace store\'s transaction fails with the loss; the process gets no uncaught error, and the store serves the next query', async () => {
    const db = await openPostgres<Record<string, never>>(database.url, 'cc_w_lost_connection');
    try {
      const failed = db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          // Idle between two statements of the transaction: no query is there to take the error.
          await terminate(rows[0]!.pid);
          await sql`select 1`.execute(trx);
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(await failed).toBeInstanceOf(Error);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await db.destroy();
    }
    expect(uncaught).toEqual([]);
  });

  it('the start-up lock\'s connection lost while the start-up work runs: the work finishes, no uncaught error', async () => {
    const location = { dialect: 'postgres' as const, url: database.url };
    const done = await withStartupLock(location, async () => {
      const holder = await admin.query<{ pid: number }>(`select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`);
      expect(holder.rows).toHaveLength(1);
      await terminate(holder.rows[0]!.pid);
      return 'started';
    });
    expect(done).toBe('started');
    expect(uncaught).toEqual([]);
  });

  it('a worker whose database is gone answers /metrics 503 instead of dying of the failed read', async () => {
    const own = await freshTestDatabase();
    const dataRoot = await makeDataRoot();
    const worker = await startWorker({ dataRoot, database: own.url, logLevel: 'silent', port: 0 });
    try {
      const token = (await readFile(join(dataRoot, 'operator-token'), 'utf8')).trim();
      expect((await fetch(`${worker.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      await own.drop();
      const answer = await fetch(`${worker.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { error: unknown }).error).toMatchObject({ code: 'unavailable', field: 'path' });
    } finally {
      await closeInOrder([() => worker.close().catch(() => undefined), () => rm(dataRoot, { recursive: true, force: true }), () => own.drop()]);
    }
    expect(uncaught).toEqual([]);
  }, 60_000);
});
