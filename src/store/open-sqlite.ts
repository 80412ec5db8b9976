import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery, type SqliteDatabase } from 'kysely';

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
  const statements = withStatementCache(raw);
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: statements }) });
  directHandles.set(db, {
    execute<Row>(query: CompiledQuery<Row>): Row[] | null {
      // A Kysely transaction is open on the one connection (it awaits between its statements): a
      // statement run now would join it. The caller goes through Kysely, which waits for it to end.
      if (raw.inTransaction) return null;
      const statement = statements.prepare(query.sql) as Database.Statement;
      if (statement.reader) return statement.all(query.parameters) as Row[];
      statement.run(query.parameters);
      return [];
    },
  });
  return { db, raw };
}

/**
 * A compiled query run on the SQLite connection itself, synchronously: what Kysely adds
 * around a statement it runs — the connection mutex, a chain of promises, the result object — costs
 * more than running the statement, for the few hot statements whose SQL is compiled once and kept
 * (`reusable-query.ts`). Kysely's SQLite driver runs exactly this (`all` for a statement that returns
 * rows, else `run`) on the same cached statement, so rows and errors are the same.
 */
export interface DirectSqlite {
  /** The rows (none for a write), or null while a transaction is open: then the caller must go through Kysely. */
  execute<Row>(query: CompiledQuery<Row>): Row[] | null;
}

const directHandles = new WeakMap<object, DirectSqlite>();

/** The direct path of a SQLite store's Kysely handle; undefined for any other handle (PostgreSQL, a transaction). */
export function directSqlite(db: object): DirectSqlite | undefined {
  return directHandles.get(db);
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
