/**
 * NF-SCALE: the client-side CPU of one PostgreSQL statement, by path. A primary-key read of one row
 * (the shape of most of a tool turn's reads), N times in sequence, through:
 * - `product`: the product's own workspace handle (`openPostgres`: Kysely, its NUL-escaping plugin,
 *   the pool), the query compiled once and re-run with new parameters, as `reusableQuery` does;
 * - `product-built`: the same handle, the query built and compiled by Kysely every time;
 * - `pool`: bare node-postgres `Pool.query` (checkout, query, release);
 * - `client`: bare node-postgres on one checked-out client (no pool per statement);
 * - `client-named`: the same with a named prepared statement (parsed once per connection);
 * and the same for a 31-column row (`wide-*`: read by primary key; `insert-*`: a new row, built by
 * Kysely each time through the product's handle, or sent as SQL text through the bare pool).
 * `product-spaced`: the product path with 20 ms between statements, as an idle process's timers
 * send them (BENCH_SPACED statements, default 150), beside `pool-spaced` (bare
 * node-postgres, the same way) and `timer-alone-spaced`, the wake-up alone.
 * CPU is this process's user + system time per statement (the PostgreSQL server's is not counted);
 * the paths alternate over BENCH_ROUNDS rounds (default 3) and the median is printed, since the
 * shared development machine's load moves. N: BENCH_STATEMENTS (default 4,000 per path and round).
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { NUMERIC_TYPES, openPostgres, quotedSchema } from '../src/store/open-postgres.js';
import { freshTestDatabase } from '../test/support/test-database.js';
import { median, type BenchFigure } from './figure.js';

interface BenchSchema {
  items: { id: string; name: string; size: number };
  wide: Record<string, string | number | null>;
}

const ROWS = 200;
/** A run row's width: most of a tool turn's rows have 20–40 columns, half of them text. */
const WIDE_COLUMNS = Array.from({ length: 30 }, (_, index) => (index % 2 === 0 ? `text_${index}` : `number_${index}`));

function wideRow(id: string, index: number): Record<string, string | number> {
  return Object.fromEntries([['id', id], ...WIDE_COLUMNS.map((column) => [column, column.startsWith('text') ? `${column} of row ${index}` : index])]);
}

async function cpuPerStatementUs(statements: number, run: (id: string) => Promise<unknown>, ids: string[]): Promise<number> {
  // Warm-up: JIT, the pool's connections, a named statement's first parse.
  for (let index = 0; index < Math.min(200, statements); index += 1) await run(ids[index % ids.length]!);
  const before = process.cpuUsage();
  for (let index = 0; index < statements; index += 1) await run(ids[index % ids.length]!);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / statements;
}

export default async function postgresStatement(): Promise<BenchFigure[]> {
  const statements = Number(process.env.BENCH_STATEMENTS ?? 4_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const database = await freshTestDatabase();
  const schema = `cc_bench_${randomUUID().slice(0, 8)}`;
  const db: Kysely<BenchSchema> = await openPostgres<BenchSchema>(database.url, schema);
  const pool = new pg.Pool({ connectionString: database.url, max: 10, types: NUMERIC_TYPES, options: `-c search_path=${quotedSchema(schema)}` });
  const client = await pool.connect();
  try {
    await sql`create table items (id text primary key, name text not null, size bigint not null)`.execute(db);
    const ids = Array.from({ length: ROWS }, () => randomUUID());
    await db.insertInto('items').values(ids.map((id, index) => ({ id, name: `item ${index}`, size: index }))).execute();
    await sql.raw(`create table wide (id text primary key, ${WIDE_COLUMNS.map((column) => `${column} ${column.startsWith('text') ? 'text' : 'bigint'}`).join(', ')})`).execute(db);
    await db.insertInto('wide').values(ids.map(wideRow)).execute();
    const wideText = `select * from "wide" where "id" = $1`;
    const wideKept = db.selectFrom('wide').selectAll().where('id', '=', 'stand-in').compile();
    let inserted = 0;
    const insertText = `insert into "wide" ("id", ${WIDE_COLUMNS.map((column) => `"${column}"`).join(', ')}) values (${['id', ...WIDE_COLUMNS].map((_, index) => `$${index + 1}`).join(', ')})`;
    const text = 'select "id", "name", "size" from "items" where "id" = $1';
    const compiled = db.selectFrom('items').select(['id', 'name', 'size']).where('id', '=', 'stand-in').compile();
    const paths: Record<string, (id: string) => Promise<unknown>> = {
      product: (id) => db.executeQuery({ ...compiled, parameters: [id] }),
      'product-built': (id) => db.selectFrom('items').select(['id', 'name', 'size']).where('id', '=', id).execute(),
      pool: (id) => pool.query(text, [id]),
      client: (id) => client.query(text, [id]),
      'client-named': (id) => client.query({ name: 'bench_item_by_id', text, values: [id] }),
      'wide-product': (id) => db.executeQuery({ ...wideKept, parameters: [id] }),
      'wide-product-built': (id) => db.selectFrom('wide').selectAll().where('id', '=', id).execute(),
      'wide-pool': (id) => pool.query(wideText, [id]),
      'wide-client-named': (id) => client.query({ name: 'bench_wide_by_id', text: wideText, values: [id] }),
      'insert-product-built': () => db.insertInto('wide').values(wideRow(randomUUID(), (inserted += 1))).execute(),
      'insert-pool': () => pool.query(insertText, Object.values(wideRow(randomUUID(), (inserted += 1)))),
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, run] of Object.entries(paths)) samples[name]!.push(await cpuPerStatementUs(statements, run, ids));
    }
    // An idle process's statements come one at a time from a timer, on a cold cache: the same read
    // 20 ms apart, and the timer's wake-up alone for comparison.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
    const spacedPaths: Record<string, (id: string) => Promise<unknown>> = {
      'product-spaced': async (id) => {
        await pause();
        return paths.product!(id);
      },
      'pool-spaced': async (id) => {
        await pause();
        return paths.pool!(id);
      },
      'timer-alone-spaced': pause,
    };
    for (const name of Object.keys(spacedPaths)) samples[name] = [];
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, run] of Object.entries(spacedPaths)) samples[name]!.push(await cpuPerStatementUs(Number(process.env.BENCH_SPACED ?? 150), run, ids));
    }
    const figures: BenchFigure[] = Object.entries(samples).map(([name, values]) => ({ metric: `cpu_per_statement_${name.replace(/-/g, '_')}`, value: median(values), unit: 'us' }));
    figures.push({ metric: 'load_average_1m', value: loadavg()[0]!, unit: '' });
    return figures;
  } finally {
    client.release();
    await pool.end();
    await db.destroy();
    await database.drop();
  }
}
