import { randomUUID } from 'node:crypto';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { directSqlite } from './open-sqlite.js';
import type { WorkspaceSchema } from './workspace-schema.js';

/** Stand-in argument values, unguessable so no real argument or constant equals one. */
const STAND_IN = `cc-query-argument-${randomUUID()}-`;

/** A compiled query and, per parameter, the argument it takes (null: a constant of the query itself). */
interface Compiled<Row> {
  query: CompiledQuery<Row>;
  slots: Array<number | null>;
}

/**
 * A query of fixed shape whose compiled SQL is kept per database handle and reused with new
 * arguments: building and compiling a Kysely query costs more than running it against
 * SQLite, and a tool turn runs about twenty of them. `build` is called once per handle (SQLite or
 * PostgreSQL, each compiles its own SQL) with stand-ins for the arguments; each stand-in must reach
 * the compiled parameters as it is, so a builder that transforms an argument is refused at its first
 * use. A builder must not branch on its arguments either: the SQL is the same for every call, only
 * the parameters change. Returns the rows.
 */
export function reusableQuery<Args extends string[], Row, DB = WorkspaceSchema>(build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>): (db: Kysely<DB>, ...args: Args) => Promise<Row[]> {
  const byHandle = new WeakMap<Kysely<DB>, Compiled<Row>>();
  return async (db, ...args) => {
    let compiled = byHandle.get(db);
    if (!compiled) {
      compiled = compileWithStandIns(db, build, args.length);
      byHandle.set(db, compiled);
    }
    const { query, slots } = compiled;
    // Constants were compiled with the query; only the arguments are new. The PostgreSQL handle
    // escapes NUL in every statement's parameters as it sends them (nul-escaping-dialect.ts), kept ones too.
    const parameters = query.parameters.map((value, index) => {
      const slot = slots[index];
      return slot === null || slot === undefined ? value : args[slot];
    });
    return runKept(db, { ...query, parameters });
  };
}

/** Runs a kept compiled query: on SQLite on the connection itself when no transaction is open (see `directSqlite`), else through Kysely. */
async function runKept<Row, DB>(db: Kysely<DB>, query: CompiledQuery<Row>): Promise<Row[]> {
  const rows = directSqlite(db)?.execute(query);
  return rows ?? (await db.executeQuery(query)).rows;
}

function compileWithStandIns<Args extends string[], Row, DB>(db: Kysely<DB>, build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>, arity: number): Compiled<Row> {
  const standIns = Array.from({ length: arity }, (_, index) => `${STAND_IN}${index}`) as Args;
  const query = build(db, ...standIns).compile();
  const used = new Set<number>();
  const slots = query.parameters.map((value) => {
    if (typeof value !== 'string' || !value.includes(STAND_IN)) return null;
    const slot = standIns.indexOf(value);
    if (slot < 0) throw new Error(`reusableQuery: an argument was transformed before it reached the query (${JSON.stringify(value)}); pass it as it is`);
    used.add(slot);
    return slot;
  });
  if (used.size !== arity) throw new Error(`reusableQuery: the query uses ${used.size} of its ${arity} arguments; every argument must be a parameter`);
  return { query, slots };
}

/**
 * For statements whose SQL depends on which columns they write (a row insert, a partial update): the
 * compiled query per database handle and `shape` (the caller's name for its column set), reused with
 * new `values`. A compiled query is kept only when its parameters are exactly `values`, in order, so
 * new values can take their places; otherwise it is built every time, as without this.
 */
export function queryPerShape(): (db: Kysely<WorkspaceSchema>, shape: string, values: readonly unknown[], build: () => Compilable<unknown>) => Promise<void> {
  const byHandle = new WeakMap<Kysely<WorkspaceSchema>, Map<string, CompiledQuery<unknown>>>();
  return async (db, shape, values, build) => {
    let byShape = byHandle.get(db);
    if (!byShape) {
      byShape = new Map();
      byHandle.set(db, byShape);
    }
    // An undefined value is a column Kysely leaves out: another shape than the one kept.
    const known = values.includes(undefined) ? undefined : byShape.get(shape);
    if (known) {
      await runKept(db, { ...known, parameters: values });
      return;
    }
    const compiled = build().compile();
    if (!values.includes(undefined) && compiled.parameters.length === values.length && compiled.parameters.every((value, index) => value === values[index])) byShape.set(shape, compiled);
    await db.executeQuery(compiled);
  };
}
