import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';

/** How many distinct SQL texts keep their prepared statement (least recently used ones are dropped). */
const STATEMENT_CACHE_SIZE = 500;

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
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  return { db, raw };
}

/**
 * Kysely prepares every query it runs, and preparing was a measurable share of a tool turn's CPU:
 * the same few SQL texts (a run's row update, a message insert…) are prepared again on every call.
 * This keeps the prepared statement per SQL text and hands it back. Safe because the driver runs a
 * statement to completion (`all` / `run`, synchronous) before the next one starts; SQLite re-prepares
 * a cached statement by itself when a migration changes the schema.
 */
function withStatementCache(raw: Database.Database): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        // Most recently used last, so the oldest is the one dropped.
        cache.delete(sql);
      } else {
        statement = raw.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
    close() {
      cache.clear();
      raw.close();
    },
  };
}
