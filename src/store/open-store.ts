import type Database from 'better-sqlite3';
import type { Kysely, Migration } from 'kysely';
import { dropSchema, openPostgres } from './open-postgres.js';
import { openSqlite } from './open-sqlite.js';
import { PortableColumnTypes } from './portable-column-types.js';
import { runMigrations } from './run-migrations.js';
import type { StoreLocation } from './store-location.js';

/** One opened store (the registry, or one workspace's), migrated to the latest version. */
export interface OpenedStore<Schema> {
  db: Kysely<Schema>;
  /** The SQLite connection under `db`, for the run log's prepared statements; null on PostgreSQL. */
  sqlite: Database.Database | null;
  close(): Promise<void>;
  /** Deletes the store's rows for good: PostgreSQL drops the schema; a SQLite file goes with its directory. */
  drop(): Promise<void>;
}

/**
 * The one place the dialect is chosen (WS-3): a SQLite file at `place.file`, or the PostgreSQL schema
 * `place.schema` of the database at `location.url`. The same migrations run on both; on PostgreSQL
 * through PortableColumnTypes (SQLite's integer and real are wider than PostgreSQL's).
 */
export async function openStore<Schema>(
  location: StoreLocation,
  place: { file: string; schema: string },
  migrations: Record<string, Migration>,
): Promise<OpenedStore<Schema>> {
  if (location.dialect === 'postgres') {
    const db = await openPostgres<Schema>(location.url, place.schema, location.poolSize);
    await migrateOrClose(db, db.withPlugin(new PortableColumnTypes()), migrations, place.schema);
    return { db, sqlite: null, close: () => db.destroy(), drop: () => dropSchema(location.url, place.schema) };
  }
  const { db, raw } = openSqlite<Schema>(place.file);
  await migrateOrClose(db, db, migrations);
  return {
    db,
    sqlite: raw,
    async close() {
      await db.destroy();
      if (raw.open) raw.close();
    },
    drop: async () => undefined,
  };
}

async function migrateOrClose<Schema>(db: Kysely<Schema>, migrating: Kysely<Schema>, migrations: Record<string, Migration>, schema?: string): Promise<void> {
  try {
    await runMigrations(migrating as Kysely<unknown>, migrations, schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
