import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

/**
 * Opens one SQLite file for the store: WAL (readers never block the writer), foreign keys on, and
 * a busy timeout so a second process (the CLI, a backup) waits instead of failing.
 */
export function openSqlite<Schema>(filePath: string): { db: Kysely<Schema>; raw: Database.Database } {
  const raw = new Database(filePath);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: raw }) });
  return { db, raw };
}
