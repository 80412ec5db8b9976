import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import { DEFAULT_POOL_SIZE, openPostgres } from '../../src/store/open-postgres.js';
import { parseStoreLocation } from '../../src/store/store-location.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * NF-SCALE, bursts: how many connections one PostgreSQL pool of a process holds at most — the
 * default, or `--db-pool-size` (CONTROL_CENTER_DB_POOL_SIZE) carried by the store location. Seen
 * from the server: the distinct backends that answer more concurrent statements than the pool has.
 */
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
beforeAll(async () => {
  database = await freshTestDatabase();
}, 60_000);
afterAll(async () => {
  await database?.drop();
});

/** The distinct server processes that answered `statements` statements sent at once over one pool. */
async function backendsFor(poolSize: number | undefined, statements: number): Promise<number> {
  const location = parseStoreLocation(database.url, poolSize);
  if (location.dialect !== 'postgres') throw new Error('expected a PostgreSQL location');
  const db = await openPostgres<unknown>(location.url, 'cc_pool_size_test', location.poolSize);
  try {
    return await backendsAnswering(db, statements);
  } finally {
    await db.destroy();
  }
}

/** The distinct server processes that answer `statements` statements sent at once over `db`'s pool. */
async function backendsAnswering(db: Kysely<any>, statements: number): Promise<number> {
  // Each statement holds its connection a moment, so the pool must lend all it has.
  const pids = await Promise.all(Array.from({ length: statements }, () => sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.2)`.execute(db)));
  return new Set(pids.map((result) => result.rows[0]!.pid)).size;
}

describe('the PostgreSQL pool size (NF-SCALE, bursts)', () => {
  it(`is ${DEFAULT_POOL_SIZE} connections by default and what --db-pool-size says when given`, async () => {
    expect(await backendsFor(undefined, DEFAULT_POOL_SIZE + 4)).toBe(DEFAULT_POOL_SIZE);
    expect(await backendsFor(3, 8)).toBe(3);
  }, 60_000);

  it('a process opened with a pool size sizes its registry and workspace pools with it; the embedded store refuses one', async () => {
    const app = await ControlCenter.open({ dataRoot: await makeDataRoot(), database: database.url, dbPoolSize: 3, builtinSandbox: 'none' });
    try {
      const workspace = await app.workspaces.create('Pools');
      expect(await backendsAnswering((await app.workspaces.handle(workspace.id)).database.db, 8)).toBe(3);
      expect(await backendsAnswering(app.registry.db, 8)).toBe(3);
    } finally {
      await app.close();
    }
    await expect(ControlCenter.open({ dataRoot: await makeDataRoot(), dbPoolSize: 3, builtinSandbox: 'none' })).rejects.toThrow(/--db-pool-size sizes PostgreSQL connection pools/);
  }, 60_000);
});
