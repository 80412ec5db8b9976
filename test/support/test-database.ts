import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { guardClient } from '../../src/store/connection-error-guard.js';
import { NUMERIC_TYPES, quotedSchema } from '../../src/store/open-postgres.js';
import { EMBEDDED_STORE, type StoreLocation } from '../../src/store/store-location.js';
import { WORKSPACE_DB_FILE, workspaceSchemaName } from '../../src/store/workspace-database.js';

/**
 * Which store the dual-dialect suites run on: `CC_TEST_DATABASE=postgres` runs them on a
 * real PostgreSQL server — `CC_TEST_POSTGRES_URL` (an admin URL), else the throw-away server that
 * scripts/start-test-postgres.sh starts (idempotently) on a unix socket. Anything else: SQLite.
 */
export function testDialect(): 'sqlite' | 'postgres' {
  return process.env.CC_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
}

let adminUrl: string | null = null;

/** The admin URL of the tests' PostgreSQL server, starting the throw-away one when none is given. */
export function postgresAdminUrl(): string {
  adminUrl ??=
    process.env.CC_TEST_POSTGRES_URL ??
    execFileSync('bash', [fileURLToPath(new URL('../../scripts/start-test-postgres.sh', import.meta.url))], { encoding: 'utf8' }).trim();
  return adminUrl;
}

/** The URL of database `name` on the same server as the admin URL. */
function databaseUrl(name: string): string {
  const url = new URL(postgresAdminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = guardClient(new pg.Client({ connectionString: postgresAdminUrl() }));
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates database `name` when missing (C collation, as the store expects) and returns its URL. */
export async function ensureTestDatabase(name: string): Promise<string> {
  if (!/^cc_test_[a-z0-9_]+$/.test(name)) throw new Error(`bad test database name ${name}`);
  await withAdmin(async (client) => {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`create database ${name} template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
  });
  return databaseUrl(name);
}

/** Drops a test database, closing whatever connections a test left open on it. */
export async function dropTestDatabase(name: string): Promise<void> {
  await withAdmin((client) => client.query(`drop database if exists ${name} with (force)`));
}

/**
 * A test's teardown: every step in turn, each even when one before it failed (a process left
 * running would outlive the test and fail later, outside it); the first failure is thrown at the end.
 */
export async function closeInOrder(steps: ReadonlyArray<() => Promise<unknown> | undefined>): Promise<void> {
  let firstFailure: unknown = null;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      firstFailure ??= error;
    }
  }
  if (firstFailure) throw firstFailure;
}

/** A fresh database with a random name; `drop` removes it. */
export async function freshTestDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `cc_test_${randomBytes(6).toString('hex')}`;
  const url = await ensureTestDatabase(name);
  return { name, url, drop: () => dropTestDatabase(name) };
}

/** The test database that belongs to one data root: a restarted server over the same root finds its rows. */
export function databaseNameFor(dataRoot: string): string {
  return `cc_test_${createHash('sha256').update(dataRoot).digest('hex').slice(0, 20)}`;
}

/**
 * Where a store test opens its stores: SQLite, or (under CC_TEST_DATABASE=postgres) a fresh
 * PostgreSQL database for this test file; `cleanup` drops it (call it in afterAll).
 */
export async function testStoreLocation(): Promise<{ location: StoreLocation; cleanup: () => Promise<void> }> {
  if (testDialect() === 'sqlite') return { location: EMBEDDED_STORE, cleanup: async () => undefined };
  const database = await freshTestDatabase();
  return { location: { dialect: 'postgres', url: database.url }, cleanup: database.drop };
}

/**
 * Rows of one workspace's store read over a second connection, as another process would see them:
 * its SQLite file, or its schema of the server's PostgreSQL database (the query names tables unqualified).
 */
export async function workspaceStoreRows<Row = Record<string, unknown>>(
  location: StoreLocation,
  workspace: { id: string; dataDir: string },
  query: string,
): Promise<Row[]> {
  if (location.dialect === 'sqlite') {
    const db = new Database(join(workspace.dataDir, WORKSPACE_DB_FILE), { readonly: true });
    try {
      return db.prepare(query).all() as Row[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url, types: NUMERIC_TYPES, options: `-c search_path=${quotedSchema(workspaceSchemaName(workspace.id))}` });
  await client.connect();
  try {
    return (await client.query(query)).rows as Row[];
  } finally {
    await client.end();
  }
}

