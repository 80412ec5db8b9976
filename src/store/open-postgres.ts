import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { guardClient, guardPoolConnections } from './connection-error-guard.js';
import { NulEscapingDialect } from './nul-escaping-dialect.js';
import { isUniqueViolation } from './unique-violation.js';

/**
 * Connections per pool by default (`--db-pool-size`): one pool per open workspace plus the registry.
 * Profiled on a burst of 1,000 turns, an API process with 5 sat near 5 % CPU waiting for a free
 * connection: a POST's statements are round trips, so the pool bounds how many POSTs progress at once.
 */
export const DEFAULT_POOL_SIZE = 10;

/** PostgreSQL type oids whose text the driver would otherwise hand back as a string. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;
/** SQLSTATE of a `create schema` that lost a race to a concurrent one. */
const DUPLICATE_SCHEMA = '42P06';

/**
 * Numbers come back as numbers, as they do from SQLite: the migrations' `integer` columns are
 * `bigint` on PostgreSQL (see PortableColumnTypes) and `count(*)` is `bigint`, which `pg` returns as
 * text by default. Our values (epoch ms, counts, token sums) stay far below 2^53.
 */
export const NUMERIC_TYPES: pg.CustomTypesConfig = {
  // Asked once per column of every answer: one parser for all, not a new closure each time.
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return Number;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Schema names this store creates: a fixed prefix plus an id of letters, digits, `_` and `-`. */
const SCHEMA_NAME = /^cc_[A-Za-z0-9_-]{1,56}$/;

/** Quotes a schema name checked against SCHEMA_NAME (its characters need no escaping). */
export function quotedSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name '${schema}'`);
  return `"${schema}"`;
}

/**
 * Opens a Kysely handle on one schema of a PostgreSQL database. The schema is created when missing
 * and fixed as the connection's whole `search_path` by a start-up parameter of every pooled
 * connection, before any query runs: every unqualified table name this handle's queries use
 * resolves inside that schema and nowhere else (no `public` fallback), which is how a workspace's
 * handle cannot read a neighbour's rows (docs/scale-out.md).
 */
export async function openPostgres<Schema>(url: string, schema: string, poolSize = DEFAULT_POOL_SIZE): Promise<Kysely<Schema>> {
  const quoted = quotedSchema(schema);
  await ensureSchema(url, quoted);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: NUMERIC_TYPES,
    options: `-c search_path=${quoted}`,
  });
  // A connection the server closes (a restart, an administrator) must not crash the process, idle or borrowed.
  guardPoolConnections(pool);
  // PostgreSQL's text refuses NUL; operator and agent text may hold it (nul-escape.ts).
  return new Kysely<Schema>({ dialect: new NulEscapingDialect(new PostgresDialect({ pool })) });
}

/** Creates the schema when it does not exist (two processes racing on it both succeed). */
async function ensureSchema(url: string, quoted: string): Promise<void> {
  const client = guardClient(new pg.Client({ connectionString: url }));
  await client.connect();
  try {
    await client.query(`create schema if not exists ${quoted}`);
  } catch (error) {
    // `if not exists` still races in the catalog: a concurrent creator's unique violation means it exists.
    if (!isUniqueViolation(error) && !(error instanceof Error && 'code' in error && error.code === DUPLICATE_SCHEMA)) throw error;
  } finally {
    await client.end();
  }
}

/** Drops a schema and everything in it (a deleted workspace's rows). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = guardClient(new pg.Client({ connectionString: url }));
  await client.connect();
  try {
    await client.query(`drop schema if exists ${quotedSchema(schema)} cascade`);
  } finally {
    await client.end();
  }
}
