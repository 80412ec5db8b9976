/**
 * Hot lookups keep their compiled SQL per database handle and run it again with new
 * parameters. On both dialects (a real SQLite file and a real PostgreSQL database), each call gets
 * exactly the rows the freshly built query gets — values are parameters, never spliced into the SQL —
 * and a builder that would bake one call's value into the kept SQL is refused at its first use.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryPerShape, reusableQuery } from '../../src/store/reusable-query.js';
import type { StoreLocation } from '../../src/store/store-location.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import { freshTestDatabase } from '../support/test-database.js';

let dir: string;
let postgres: Awaited<ReturnType<typeof freshTestDatabase>>;
const databases: WorkspaceDatabase[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-reusable-query-'));
  postgres = await freshTestDatabase();
}, 120_000);

afterAll(async () => {
  for (const database of databases) await database.close();
  await rm(dir, { recursive: true, force: true });
  await postgres?.drop();
});

const KEYS = ['alpha', 'beta', `quote'"; drop table workspace_settings; --`, 'gamma'];

/** One workspace database with a settings row per key (value: the key reversed). */
async function seeded(workspaceId: string, location: StoreLocation): Promise<WorkspaceDatabase> {
  const database = await WorkspaceDatabase.open(workspaceId, await mkdtemp(join(dir, 'ws-')), location);
  databases.push(database);
  for (const key of KEYS) await database.db.insertInto('workspace_settings').values({ key, value: [...key].reverse().join('') }).execute();
  return database;
}

const valueOf = reusableQuery((db, key: string) => db.selectFrom('workspace_settings').select(['key', 'value']).where('key', '=', key));
const between = reusableQuery((db, low: string, high: string) => db.selectFrom('workspace_settings').select('key').where('key', '>=', low).where('key', '<=', high).orderBy('key'));

describe.each([
  ['SQLite', (): StoreLocation => ({ dialect: 'sqlite' })],
  ['PostgreSQL', (): StoreLocation => ({ dialect: 'postgres', url: postgres.url })],
])('reusable compiled queries on %s', (_name, location) => {
  it('gives each call the rows the freshly built query gives, whatever the order of calls and handles', async () => {
    const first = await seeded(`ws_reuse_a_${_name.toLowerCase()}`, location());
    const second = await seeded(`ws_reuse_b_${_name.toLowerCase()}`, location());
    await second.db.updateTable('workspace_settings').set({ value: 'changed' }).where('key', '=', 'beta').execute();
    for (const key of [...KEYS, 'missing', ...KEYS.slice().reverse()]) {
      for (const database of [first, second]) {
        const fresh = await database.db.selectFrom('workspace_settings').select(['key', 'value']).where('key', '=', key).execute();
        expect(await valueOf(database.db, key), key).toEqual(fresh);
      }
    }
    expect(await valueOf(second.db, 'beta')).toEqual([{ key: 'beta', value: 'changed' }]);
    expect((await between(first.db, 'alpha', 'beta')).map((row) => row.key)).toEqual(['alpha', 'beta']);
    expect((await between(first.db, 'beta', 'quote')).map((row) => row.key)).toEqual(['beta', 'gamma']);
    // The hostile key was a parameter: the table is still there, with every row.
    expect(await first.db.selectFrom('workspace_settings').select('key').execute()).toHaveLength(KEYS.length);
  });

  it('writes each row with its own values when an insert or update is reused per column set', async () => {
    const database = await seeded(`ws_reuse_w_${_name.toLowerCase()}`, location());
    const write = queryPerShape();
    for (const [key, value] of [['w1', 'one'], ['w2', `it's "two"`], ['w3', '']]) {
      const row = { key: key!, value: value! };
      await write(database.db, 'insert', Object.values(row), () => database.db.insertInto('workspace_settings').values(row));
    }
    for (const [key, value] of [['w1', 'uno'], ['w3', 'tres']]) {
      await write(database.db, 'update value', [value, key], () => database.db.updateTable('workspace_settings').set({ value: value! }).where('key', '=', key!));
    }
    const rows = await database.db.selectFrom('workspace_settings').select(['key', 'value']).where('key', 'like', 'w%').orderBy('key').execute();
    expect(rows).toEqual([
      { key: 'w1', value: 'uno' },
      { key: 'w2', value: `it's "two"` },
      { key: 'w3', value: 'tres' },
    ]);
  });
});

describe('kept queries on SQLite run on the connection itself, never inside an open transaction', () => {
  it('a read and a write issued while another flow holds a transaction neither see nor join it', async () => {
    const database = await seeded('ws_reuse_transaction', { dialect: 'sqlite' });
    const write = queryPerShape();
    const insert = (row: { key: string; value: string }) => write(database.db, 'insert', Object.values(row), () => database.db.insertInto('workspace_settings').values(row));
    // The insert's compiled SQL is kept from here on: the next one takes the direct path.
    await insert({ key: 'before', value: 'b' });
    let opened!: () => void;
    const inside = new Promise<void>((resolve) => (opened = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = database.db.transaction().execute(async (trx) => {
      await trx.insertInto('workspace_settings').values({ key: 'uncommitted', value: 'u' }).execute();
      opened();
      await held;
      throw new Error('rolled back');
    });
    await inside;
    // Issued while the transaction is open on the one connection: run now, they would be part of it.
    const read = valueOf(database.db, 'uncommitted');
    const written = insert({ key: 'outside', value: 'kept' });
    release();
    await expect(transaction).rejects.toThrow('rolled back');
    expect(await read).toEqual([]);
    await written;
    expect(await valueOf(database.db, 'outside')).toEqual([{ key: 'outside', value: 'kept' }]);
    expect(await valueOf(database.db, 'uncommitted')).toEqual([]);
  });
});

describe('a builder that would bake a value into the kept SQL is refused', () => {
  it('refuses a transformed argument and an unused one at the first call', async () => {
    const database = await seeded('ws_reuse_refused', { dialect: 'sqlite' });
    const transformed = reusableQuery((db, key: string) => db.selectFrom('workspace_settings').selectAll().where('key', '=', `${key}%`));
    await expect(transformed(database.db, 'alpha')).rejects.toThrow(/transformed/);
    const unused = reusableQuery((db, _key: string) => db.selectFrom('workspace_settings').selectAll().where('key', '=', 'alpha'));
    await expect(unused(database.db, 'beta')).rejects.toThrow(/uses 0 of its 1 arguments/);
  });
});
