/**
 * NF-SCALE, a run's preparation: its reads of the agent, settings, space, the space's repositories,
 * MCP servers and installed skills are kept under `config_version`, which a trigger bumps in the
 * transaction of every write to those tables. Two stores opened on one database stand for two
 * processes: a change written through one is seen by the next pinned read of the other, and an
 * unchanged version costs one statement (the pin) whatever is read under it. Real SQLite, or
 * PostgreSQL under CC_TEST_DATABASE=postgres.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONFIG_TABLES } from '../../src/store/migrations/workspace-migrations.js';
import { pinConfigVersion } from '../../src/store/pinned-config-reads.js';
import { readWorkspaceSettings, writeWorkspaceSettings } from '../../src/store/repositories/settings-repository.js';
import { deleteSpaceRepositoryLink, insertSpaceRepositoryLink, listSpaceRepositoryLinks } from '../../src/store/repositories/space-repository-link-repository.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import type { WorkspaceSchema } from '../../src/store/workspace-schema.js';
import { testStoreLocation } from '../support/test-database.js';

let dir: string;
let store: Awaited<ReturnType<typeof testStoreLocation>>;
let preparing: WorkspaceDatabase;
let editing: WorkspaceDatabase;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-pinned-config-'));
  store = await testStoreLocation();
  preparing = await WorkspaceDatabase.open('ws_pinned_config', dir, store.location);
  editing = await WorkspaceDatabase.open('ws_pinned_config', dir, store.location);
  for (const id of ['space_1', 'space_2']) {
    await editing.db.insertInto('spaces').values({ id, name: id, kind: 'room', mode: 'chat', autonomy: 'askFirst', default_agent_id: null, repo_path: null, created_at: '', updated_at: '', archived_at: null }).execute();
  }
}, 120_000);
afterAll(async () => {
  await preparing?.close();
  await editing?.close();
  await store?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** The preparing process's handle, counting every statement it executes. */
function counted(db: Kysely<WorkspaceSchema>): { db: Kysely<WorkspaceSchema>; statements: () => number } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements += 1;
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), statements: () => statements };
}

/** What a run's preparation reads here, pinned as a run pins it; and the statements that cost. */
async function prepareReads(db: Kysely<WorkspaceSchema>, statements: () => number) {
  const before = statements();
  const pin = await pinConfigVersion(db);
  const settings = await readWorkspaceSettings(db, pin);
  const links = await listSpaceRepositoryLinks(db, 'space_1', pin);
  return { settings, links, statements: statements() - before };
}

it('an unchanged configuration costs a run one statement; a change through another process is read by the next run', async () => {
  const { db, statements } = counted(preparing.db);
  const first = await prepareReads(db, statements);
  expect(first.statements).toBe(3);
  expect(first.links).toEqual([]);

  // Nothing changed: the pin alone.
  const again = await prepareReads(db, statements);
  expect(again.statements).toBe(1);
  expect(again.settings).toEqual(first.settings);

  // A repository linked and the delegation depth changed by the other process.
  await insertSpaceRepositoryLink(editing.db, { spaceId: 'space_1', name: 'docs', repoPath: '/srv/docs', createdAt: new Date().toISOString() });
  await writeWorkspaceSettings(editing.db, { ...(await readWorkspaceSettings(editing.db)), delegationDepth: first.settings.delegationDepth + 1 });
  const changed = await prepareReads(db, statements);
  expect(changed.links.map((link) => link.name)).toEqual(['docs']);
  expect(changed.settings.delegationDepth).toBe(first.settings.delegationDepth + 1);
  expect(changed.statements).toBe(3);

  // A repository unlinked: gone at the next run.
  await deleteSpaceRepositoryLink(editing.db, 'space_1', 'docs');
  expect((await prepareReads(db, statements)).links).toEqual([]);
});

it('a caller that adjusts what it read does not change what the next run reads', async () => {
  const { db, statements } = counted(preparing.db);
  const first = await prepareReads(db, statements);
  first.settings.delegationDepth = 99;
  first.links.push({ spaceId: 'space_1', name: 'made-up', repoPath: '/nowhere', createdAt: '' });
  const next = await prepareReads(db, statements);
  expect(next.statements).toBe(1);
  expect(next.settings.delegationDepth).not.toBe(99);
  expect(next.links).toEqual([]);
});

it('a read given no pin, or a pin of another handle, goes to the database', async () => {
  const { db, statements } = counted(preparing.db);
  await prepareReads(db, statements);
  const before = statements();
  await readWorkspaceSettings(db);
  await readWorkspaceSettings(db, await pinConfigVersion(editing.db));
  expect(statements() - before).toBe(2);
});

it('every table a run prepares from bumps the version when written, in the writing transaction', async () => {
  const versionBefore = (await pinConfigVersion(editing.db)).version;
  await editing.db.transaction().execute(async (trx) => {
    await insertSpaceRepositoryLink(trx, { spaceId: 'space_2', name: 'api', repoPath: '/srv/api', createdAt: new Date().toISOString() });
    // Not committed yet: the other process still reads the old version.
    expect((await pinConfigVersion(preparing.db)).version).toBe(versionBefore);
  });
  expect((await pinConfigVersion(preparing.db)).version).toBeGreaterThan(versionBefore);

  // Each of the six tables, on insert, update and delete.
  const triggers =
    store.location.dialect === 'postgres'
      ? (await sql<{ tab: string; change: string }>`select event_object_table as tab, lower(event_manipulation) as change from information_schema.triggers where trigger_schema = current_schema() and action_statement like '%bump_config_version%'`.execute(editing.db)).rows
      : (await sql<{ tab: string; change: string }>`select tbl_name as tab, substr(name, length(tbl_name) + 2, 6) as change from sqlite_master where type = 'trigger' and name like '%bumps_config_version'`.execute(editing.db)).rows;
  const expected = CONFIG_TABLES.flatMap((table) => ['insert', 'update', 'delete'].map((change) => `${table} ${change}`)).sort();
  expect(triggers.map((trigger) => `${trigger.tab} ${trigger.change}`).sort()).toEqual(expected);
});
