import type { Kysely, Selectable } from 'kysely';
import type { SpaceRepositoryTable, WorkspaceSchema } from '../workspace-schema.js';
import { reusableQuery } from '../reusable-query.js';
import { pinnedRead, type ConfigPin } from '../pinned-config-reads.js';

/** A repository a space links (SKL-4), checked out under `repos/<name>/`. */
export interface SpaceRepositoryLink {
  spaceId: string;
  name: string;
  repoPath: string;
  createdAt: string;
}

export function toSpaceRepositoryLink(row: Selectable<SpaceRepositoryTable>): SpaceRepositoryLink {
  return { spaceId: row.space_id, name: row.name, repoPath: row.repo_path, createdAt: row.created_at };
}

/** Read on every run in a space: compiled once per database. */
const linksOfSpace = reusableQuery((db, spaceId: string) => db.selectFrom('space_repositories').selectAll().where('space_id', '=', spaceId).orderBy('name'));

/** `pin`: kept across runs while the configuration's version holds (see pinnedRead). */
export async function listSpaceRepositoryLinks(db: Kysely<WorkspaceSchema>, spaceId: string, pin?: ConfigPin): Promise<SpaceRepositoryLink[]> {
  return pinnedRead(pin, db, `space-repositories:${spaceId}`, async () => (await linksOfSpace(db, spaceId)).map(toSpaceRepositoryLink));
}

export async function findSpaceRepositoryLink(db: Kysely<WorkspaceSchema>, spaceId: string, name: string): Promise<SpaceRepositoryLink | null> {
  const row = await db.selectFrom('space_repositories').selectAll().where('space_id', '=', spaceId).where('name', '=', name).executeTakeFirst();
  return row ? toSpaceRepositoryLink(row) : null;
}

export async function insertSpaceRepositoryLink(db: Kysely<WorkspaceSchema>, link: SpaceRepositoryLink): Promise<void> {
  await db.insertInto('space_repositories').values({ space_id: link.spaceId, name: link.name, repo_path: link.repoPath, created_at: link.createdAt }).execute();
}

export async function deleteSpaceRepositoryLink(db: Kysely<WorkspaceSchema>, spaceId: string, name: string): Promise<void> {
  await db.deleteFrom('space_repositories').where('space_id', '=', spaceId).where('name', '=', name).execute();
}
