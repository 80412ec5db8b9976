import type { Kysely, Selectable } from 'kysely';
import { AUTONOMY_LEVELS, MODES } from '../../core/modes.js';
import { spaceModeToPicker } from '../../core/picker.js';
import { SpaceKind, type Space } from '../../schemas/space.js';
import type { SpaceTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';
import { reusableQuery } from '../reusable-query.js';
import { pinnedRead, type ConfigPin } from '../pinned-config-reads.js';

const parseKind = enumColumn('spaces', 'kind', SpaceKind.options);
const parseMode = enumColumn('spaces', 'mode', MODES);
const parseAutonomy = enumColumn('spaces', 'autonomy', AUTONOMY_LEVELS);

/**
 * The one mapper from a `spaces` row (MODE-1): the mode lives here only. Rows carry no workspace id
 * (the file is the workspace's own), so the caller names it.
 */
export function toSpace(row: Selectable<SpaceTable>, workspaceId: string): Space {
  const mode = parseMode(row.mode, row.id);
  const autonomy = parseAutonomy(row.autonomy, row.id);
  return {
    id: row.id,
    workspaceId,
    name: row.name,
    kind: parseKind(row.kind, row.id),
    mode,
    autonomy,
    picker: spaceModeToPicker(mode, autonomy),
    defaultAgentId: row.default_agent_id,
    repoPath: row.repo_path,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archivedAt: row.archived_at,
  };
}

export async function listSpaces(db: Kysely<WorkspaceSchema>, workspaceId: string): Promise<Space[]> {
  const rows = await db.selectFrom('spaces').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map((row) => toSpace(row, workspaceId));
}

/** Read twice per turn: compiled once per database. */
const spaceById = reusableQuery((db, spaceId: string) => db.selectFrom('spaces').selectAll().where('id', '=', spaceId));

/** `pin`: kept across runs while the configuration's version holds (see pinnedRead). */
export async function findSpace(db: Kysely<WorkspaceSchema>, workspaceId: string, spaceId: string, pin?: ConfigPin): Promise<Space | null> {
  return pinnedRead(pin, db, `space:${spaceId}`, async () => {
    const [row] = await spaceById(db, spaceId);
    return row ? toSpace(row, workspaceId) : null;
  });
}

export async function insertSpace(db: Kysely<WorkspaceSchema>, space: Space): Promise<void> {
  await db
    .insertInto('spaces')
    .values({
      id: space.id,
      name: space.name,
      kind: space.kind,
      mode: space.mode,
      autonomy: space.autonomy,
      default_agent_id: space.defaultAgentId,
      repo_path: space.repoPath,
      created_at: space.createdAt,
      updated_at: space.updatedAt,
      archived_at: space.archivedAt,
    })
    .execute();
}

/** Writes what a space update may change (MODE-4): name, mode, autonomy, default agent, archived. */
export async function updateSpace(db: Kysely<WorkspaceSchema>, space: Space): Promise<void> {
  await db
    .updateTable('spaces')
    .set({ name: space.name, mode: space.mode, autonomy: space.autonomy, default_agent_id: space.defaultAgentId, updated_at: space.updatedAt, archived_at: space.archivedAt })
    .where('id', '=', space.id)
    .execute();
}

/**
 * Renames a space only while it still has `placeholder` as its name (one UPDATE … WHERE, so a rename
 * by the operator in between wins). True when it was renamed.
 */
export async function renameSpaceIfNamed(db: Kysely<WorkspaceSchema>, spaceId: string, placeholder: string, name: string, updatedAt: string): Promise<boolean> {
  const result = await db.updateTable('spaces').set({ name, updated_at: updatedAt }).where('id', '=', spaceId).where('name', '=', placeholder).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes a space nothing refers to yet (undoing a half-made open, e.g. a review's). */
export async function deleteSpace(db: Kysely<WorkspaceSchema>, spaceId: string): Promise<void> {
  await db.deleteFrom('spaces').where('id', '=', spaceId).execute();
}

/** Removes a just-made space and its conversation together (undoing a half-made open). */
export async function deleteSpaceAndConversation(db: Kysely<WorkspaceSchema>, spaceId: string, conversationId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('conversations').where('id', '=', conversationId).execute();
    await trx.deleteFrom('spaces').where('id', '=', spaceId).execute();
  });
}
