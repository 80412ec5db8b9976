import type { Kysely, Selectable } from 'kysely';
import type { Workspace } from '../../schemas/workspace.js';
import type { RegistrySchema, WorkspaceTable } from '../registry-schema.js';

/** The one mapper from a registry `workspaces` row (WS-1); seeding is pending until `seeded_at` is set (WS-2). */
export function toWorkspace(row: Selectable<WorkspaceTable>): Workspace {
  return {
    id: row.id,
    name: row.name,
    dataDir: row.data_dir,
    seeding: row.seeded_at ? 'done' : 'pending',
    seededAt: row.seeded_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every workspace, oldest first. */
export async function listWorkspaces(db: Kysely<RegistrySchema>): Promise<Workspace[]> {
  return (await db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute()).map(toWorkspace);
}

export async function findWorkspace(db: Kysely<RegistrySchema>, workspaceId: string): Promise<Workspace | null> {
  const row = await db.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
  return row ? toWorkspace(row) : null;
}

/** Every workspace's id and name (names are unique case-insensitively, checked by the service). */
export async function workspaceNames(db: Kysely<RegistrySchema>): Promise<Array<{ id: string; name: string }>> {
  return db.selectFrom('workspaces').select(['id', 'name']).execute();
}

export async function insertWorkspace(db: Kysely<RegistrySchema>, workspace: Workspace): Promise<void> {
  await db
    .insertInto('workspaces')
    .values({
      id: workspace.id,
      name: workspace.name,
      data_dir: workspace.dataDir,
      seeded_at: workspace.seededAt,
      created_at: workspace.createdAt,
      updated_at: workspace.updatedAt,
    })
    .execute();
}

export async function renameWorkspace(db: Kysely<RegistrySchema>, workspaceId: string, name: string, updatedAt: string): Promise<void> {
  await db.updateTable('workspaces').set({ name, updated_at: updatedAt }).where('id', '=', workspaceId).execute();
}

export async function markWorkspaceSeeded(db: Kysely<RegistrySchema>, workspaceId: string, seededAt: string): Promise<void> {
  await db.updateTable('workspaces').set({ seeded_at: seededAt }).where('id', '=', workspaceId).execute();
}

export async function deleteWorkspace(db: Kysely<RegistrySchema>, workspaceId: string): Promise<void> {
  await db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
}

/** The dialect-neutral check (SQLite's and PostgreSQL's codes), re-exported where the registry's callers import it. */
export { isUniqueViolation } from '../unique-violation.js';
