import type { CompiledQuery, DatabaseConnection, DatabaseIntrospector, Dialect, DialectAdapter, Driver, Kysely, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';
import { escapeNul, NUL_MARKER, unescapeNul } from './nul-escape.js';

/**
 * The PostgreSQL store's NUL escaping (nul-escape.ts) applied where every statement of a handle
 * passes: its database connection. String parameters are escaped on the way in, string columns
 * unescaped on the way out, whether the statement was built by Kysely, written with `sql`, or kept
 * compiled and re-run with new parameters (reusable-query.ts).
 *
 * Why at the connection and not as a Kysely plugin (how it was done first): a plugin rewrites the
 * query's operation tree at every compile — a copy of every node of every built query, 18 µs for a
 * 30-column insert of the 130 µs it costs in all, measured by bench/postgres-statement.bench.ts —
 * and adds an awaited result step to every statement; a kept compiled query skips the plugin
 * altogether, so its parameters had to be escaped a second way. Here it is one loop over the
 * parameters and one over the rows, for every statement alike.
 *
 * What is escaped is unchanged: every string the query sends as a parameter (values, `in (…)` list
 * items, `sql` template values); arrays and objects are left to the driver, as the plugin left them.
 */
export class NulEscapingDialect implements Dialect {
  constructor(private readonly inner: Dialect) {}

  createDriver(): Driver {
    return new NulEscapingDriver(this.inner.createDriver());
  }

  createQueryCompiler(): QueryCompiler {
    return this.inner.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return this.inner.createAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return this.inner.createIntrospector(db);
  }
}

/**
 * The inner driver with each connection it lends wrapped. The inner driver's own methods get its
 * own connection back (PostgreSQL's driver releases and discards a connection through private
 * members of it), so a wrapper remembers what it wraps.
 */
class NulEscapingDriver implements Driver {
  private readonly wrappers = new WeakMap<DatabaseConnection, NulEscapingConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.wrappers.get(connection);
    if (!wrapper) {
      wrapper = new NulEscapingConnection(connection);
      this.wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(unwrap(connection));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint?.(unwrap(connection), name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint?.(unwrap(connection), name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint?.(unwrap(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof NulEscapingConnection ? connection.inner : connection;
}

class NulEscapingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<Row>(compiled: CompiledQuery): Promise<QueryResult<Row>> {
    const result = await this.inner.executeQuery<Row>(withEscapedParameters(compiled));
    unescapeRows(result.rows);
    return result;
  }

  async *streamQuery<Row>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<Row>> {
    for await (const result of this.inner.streamQuery<Row>(withEscapedParameters(compiled), chunkSize)) {
      unescapeRows(result.rows);
      yield result;
    }
  }
}

/** The query itself when no parameter holds NUL or the marker (nearly always): nothing is copied. */
function withEscapedParameters(compiled: CompiledQuery): CompiledQuery {
  const { parameters } = compiled;
  for (let index = 0; index < parameters.length; index += 1) {
    const value = parameters[index];
    if (typeof value === 'string' && escapeNul(value) !== value) {
      return { ...compiled, parameters: parameters.map((parameter) => (typeof parameter === 'string' ? escapeNul(parameter) : parameter)) };
    }
  }
  return compiled;
}

/** Decodes string columns in place: the rows are the driver's fresh objects, nobody else holds them. */
function unescapeRows(rows: readonly unknown[]): void {
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    for (const key in record) {
      const value = record[key];
      if (typeof value === 'string' && value.includes(NUL_MARKER)) record[key] = unescapeNul(value);
    }
  }
}
