import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteJobQueue } from '../../src/services/pipelines/sqlite-job-queue.js';
import { registryMigrations } from '../../src/store/migrations/registry-migrations.js';
import { workspaceMigrations } from '../../src/store/migrations/workspace-migrations.js';
import { RegistryStore, REGISTRY_SCHEMA } from '../../src/store/registry-store.js';
import { insertWorkspace, isUniqueViolation } from '../../src/store/repositories/workspace-repository.js';
import type { StoreLocation } from '../../src/store/store-location.js';
import { WorkspaceDatabase, workspaceSchemaName } from '../../src/store/workspace-database.js';
import { freshTestDatabase } from '../support/test-database.js';

// WS-3: the store on a real PostgreSQL server (scripts/start-test-postgres.sh), one database for this file.
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let location: StoreLocation;
let dir: string;

beforeAll(async () => {
  database = await freshTestDatabase();
  location = { dialect: 'postgres', url: database.url };
  dir = await mkdtemp(join(tmpdir(), 'cc-pg-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await database.drop();
});

async function query<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

describe('the store on PostgreSQL (WS-3)', () => {
  it('runs every workspace and registry migration, with SQLite integers widened to bigint and reals to double', async () => {
    const workspace = await WorkspaceDatabase.open('ws_migrations', dir, location);
    const registry = await RegistryStore.open(dir, location);
    try {
      const schema = workspaceSchemaName('ws_migrations');
      const applied = await query<{ name: string }>(`select name from "${schema}".kysely_migration order by name`);
      expect(applied.map((row) => row.name)).toEqual(Object.keys(workspaceMigrations).sort());
      const registryApplied = await query<{ name: string }>(`select name from "${REGISTRY_SCHEMA}".kysely_migration order by name`);
      expect(registryApplied.map((row) => row.name)).toEqual(Object.keys(registryMigrations).sort());
      const types = await query<{ table_name: string; column_name: string; data_type: string }>(
        'select table_name, column_name, data_type from information_schema.columns where table_schema = $1',
        [schema],
      );
      const typeOf = (table: string, column: string) => types.find((row) => row.table_name === table && row.column_name === column)?.data_type;
      expect(typeOf('pipeline_jobs', 'run_at')).toBe('bigint');
      expect(typeOf('runs', 'cost_usd')).toBe('double precision');
      expect(types.some((row) => row.data_type === 'integer' || row.data_type === 'real')).toBe(false);
    } finally {
      await workspace.closeAndDrop();
      await registry.close();
    }
  });

  it('keeps epoch-millisecond values and counts as numbers (the embedded queue runs unchanged)', async () => {
    const workspace = await WorkspaceDatabase.open('ws_queue', dir, location);
    try {
      const now = Date.now();
      const queue = new SqliteJobQueue(workspace.db, () => now);
      const job = await queue.enqueue({ queue: 'nodes', payload: { n: 1 }, dedupeKey: 'k1', maxAttempts: 3, backoffMs: 1_000 });
      expect(await queue.enqueue({ queue: 'nodes', payload: { n: 2 }, dedupeKey: 'k1' })).toEqual({ id: job.id, created: false });
      const claimed = await queue.claim('nodes', 'w1', 10_000);
      expect(claimed).toMatchObject({ id: job.id, payload: { n: 1 }, attempt: 1, maxAttempts: 3 });
      expect(await queue.fail(job.id, 'w1', 'boom')).toEqual({ retryAt: now + 1_000 });
      expect(await queue.nextDueAt('nodes')).toBe(now + 1_000);
      const counted = await workspace.db.selectFrom('pipeline_jobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(counted.n).toBe(1);
    } finally {
      await workspace.closeAndDrop();
    }
  });

  it('gives each workspace its own schema: a handle sees only its rows and resolves no table outside its schema', async () => {
    const a = await WorkspaceDatabase.open('ws_a', dir, location);
    const b = await WorkspaceDatabase.open('ws_b', dir, location);
    try {
      await query('create table if not exists public.leak (secret text)');
      await query("insert into public.leak values ('from public')");
      await a.db.insertInto('workspace_settings').values({ key: 'only-in-a', value: '1' }).execute();
      expect(await b.db.selectFrom('workspace_settings').selectAll().where('key', '=', 'only-in-a').execute()).toEqual([]);
      expect(await a.db.selectFrom('workspace_settings').select('value').where('key', '=', 'only-in-a').execute()).toEqual([{ value: '1' }]);
      // Each handle's search_path is its schema alone: a table of `public` (or of anything else) does not resolve.
      await expect(sql`select secret from leak`.execute(a.db)).rejects.toThrow(/relation "leak" does not exist/);
      const path = await sql<{ search_path: string }>`show search_path`.execute(b.db);
      expect(path.rows[0]!.search_path).toBe(`"${workspaceSchemaName('ws_b')}"`);
      expect((await a.db.selectFrom('workspace_meta').select('value').where('key', '=', 'workspace_id').executeTakeFirstOrThrow()).value).toBe('ws_a');
    } finally {
      await a.closeAndDrop();
      await b.closeAndDrop();
    }
    const left = await query<{ nspname: string }>("select nspname from pg_namespace where nspname like 'cc_w_%'");
    expect(left).toEqual([]);
  });

  it('escapes NUL in every statement of a handle, however it was made: built, compiled once and run with new parameters, in a transaction, written with sql (SEC)', async () => {
    const workspace = await WorkspaceDatabase.open('ws_nul', dir, location);
    const tricky = 'a\u0000b \uFDD0 \uFDD00 \u0000';
    try {
      const { db } = workspace;
      // A compiled query re-run with new parameters skips Kysely's compile step (and so any plugin of it).
      const insert = db.insertInto('workspace_settings').values({ key: 'stand-in', value: 'stand-in' }).compile();
      await db.executeQuery({ ...insert, parameters: ['kept', `kept ${tricky}`] });
      await db.transaction().execute((trx) => trx.executeQuery({ ...insert, parameters: ['in-transaction', `trx ${tricky}`] }));
      await db.insertInto('workspace_settings').values({ key: 'built', value: `built ${tricky}` }).execute();
      await sql`insert into workspace_settings (key, value) values (${'written'}, ${`sql ${tricky}`})`.execute(db);

      const select = db.selectFrom('workspace_settings').select('value').where('key', '=', 'stand-in').compile();
      const read = async (key: string) => (await db.executeQuery({ ...select, parameters: [key] })).rows;
      expect(await read('kept')).toEqual([{ value: `kept ${tricky}` }]);
      expect(await read('in-transaction')).toEqual([{ value: `trx ${tricky}` }]);
      expect((await sql<{ value: string }>`select value from workspace_settings where key = ${'built'}`.execute(db)).rows).toEqual([{ value: `built ${tricky}` }]);
      expect(await db.selectFrom('workspace_settings').select('value').where('key', '=', 'written').execute()).toEqual([{ value: `sql ${tricky}` }]);
      // Stored escaped: no NUL reached PostgreSQL, and the marker itself is stuffed.
      const stored = await query<{ value: string }>(`select value from ${workspaceSchemaName('ws_nul')}.workspace_settings where key = 'kept'`);
      expect(stored).toEqual([{ value: 'kept a\uFDD00b \uFDD0\uFDD0 \uFDD0\uFDD00 \uFDD00' }]);
    } finally {
      await workspace.closeAndDrop();
    }
  });

  it('refuses a workspace id that would not make a plain schema name', async () => {
    await expect(WorkspaceDatabase.open('ws_x"; drop schema cc_registry; --', dir, location)).rejects.toThrow(/invalid schema name/);
  });

  it('says a duplicate workspace name is a unique violation (SQLSTATE 23505)', async () => {
    const registry = await RegistryStore.open(dir, location);
    try {
      const row = { id: 'ws_1', name: 'Acme', dataDir: dir, seeding: 'pending' as const, seededAt: null, createdAt: 'now', updatedAt: 'now' };
      await insertWorkspace(registry.db, row);
      const error = await insertWorkspace(registry.db, { ...row, id: 'ws_2', name: 'ACME' }).catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
      expect(isUniqueViolation(new Error('other'))).toBe(false);
    } finally {
      await registry.close();
    }
  });

  it('writes run logs in one transaction per turn, in order, and reports only the rows that cannot be written', async () => {
    const workspace = await WorkspaceDatabase.open('ws_log', dir, location);
    try {
      const failures: string[] = [];
      const onError = (_error: unknown, what: string) => failures.push(what);
      workspace.runLog.appendEvent('run_a', 1, 'run_start', '{}', 't1', onError);
      workspace.runLog.toolCallStarted('run_a', 'c1', 'read', '{"path":"x"}', 't2', onError);
      workspace.runLog.toolCallDecided('run_a', 'c1', 'allow', '{"scope":"default"}', '[]', onError);
      workspace.runLog.toolCallEnded('run_a', 'c1', 'ok', false, true, 't3', onError);
      // The same (run, sequence) twice: the second cannot be written, the rest of the batch still is.
      workspace.runLog.appendEvent('run_a', 1, 'duplicate', '{}', 't4', onError);
      workspace.runLog.appendEvent('run_a', 2, 'run_end', '{}', 't5', onError);
      await workspace.runLog.flush();
      expect(failures).toEqual(['event duplicate']);
      const events = await workspace.db.selectFrom('run_events').select(['sequence', 'type']).where('run_id', '=', 'run_a').orderBy('sequence').execute();
      expect(events).toEqual([
        { sequence: 1, type: 'run_start' },
        { sequence: 2, type: 'run_end' },
      ]);
      const calls = await workspace.db.selectFrom('tool_calls').selectAll().execute();
      expect(calls).toMatchObject([{ id: 'run_a:c1', decision: 'allow', output: 'ok', is_error: 0, executed: 1, ended_at: 't3' }]);
    } finally {
      await workspace.closeAndDrop();
    }
  });
});
