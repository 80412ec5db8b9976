import type { Kysely, Selectable } from 'kysely';
import type { Conversation, Space } from '../../schemas/space.js';
import type { ConversationTable, SpaceTable, WorkspaceSchema } from '../workspace-schema.js';
import { reusableQuery } from '../reusable-query.js';
import { toSpace } from './space-repository.js';

/** A conversation as stored: its mode is its space's (MODE-1), read from there by the service. */
export type ConversationRecord = Omit<Conversation, 'mode'>;

/** The one mapper from a `conversations` row. */
export function toConversationRecord(row: Selectable<ConversationTable>): ConversationRecord {
  return {
    id: row.id,
    spaceId: row.space_id,
    parentConversationId: row.parent_conversation_id,
    branchedFromMessageId: row.branched_from_message_id,
    title: row.title,
    goal: row.goal,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archivedAt: row.archived_at,
  };
}

/** Read on every message posted: compiled once per database. */
const conversationById = reusableQuery((db, conversationId: string) => db.selectFrom('conversations').selectAll().where('id', '=', conversationId));

export async function findConversation(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<ConversationRecord | null> {
  const [row] = await conversationById(db, conversationId);
  return row ? toConversationRecord(row) : null;
}

/**
 * A conversation with its space, read in one statement (NF-SCALE: every posted turn reads both; one
 * round trip less on PostgreSQL). A left join: a conversation whose space row is gone reads as the
 * conversation with no space, as the two reads did.
 */
const conversationWithSpaceById = reusableQuery((db, conversationId: string) =>
  db
    .selectFrom('conversations')
    .leftJoin('spaces', 'spaces.id', 'conversations.space_id')
    .selectAll('conversations')
    .select([
      'spaces.id as space_row_id',
      'spaces.name as space_name',
      'spaces.kind as space_kind',
      'spaces.mode as space_mode',
      'spaces.autonomy as space_autonomy',
      'spaces.default_agent_id as space_default_agent_id',
      'spaces.repo_path as space_repo_path',
      'spaces.created_at as space_created_at',
      'spaces.updated_at as space_updated_at',
      'spaces.archived_at as space_archived_at',
    ])
    .where('conversations.id', '=', conversationId),
);

/** A space's columns as a left join names them (`space_name`, …): null fields when no space joined. */
export interface JoinedSpaceColumns {
  space_name: string | null;
  space_kind: SpaceTable['kind'] | null;
  space_mode: SpaceTable['mode'] | null;
  space_autonomy: SpaceTable['autonomy'] | null;
  space_default_agent_id: string | null;
  space_repo_path: string | null;
  space_created_at: string | null;
  space_updated_at: string | null;
  space_archived_at: string | null;
}

/** The space a left join brought along (its id `spaceId`; null: no space joined). */
export function joinedSpace(spaceId: string | null, row: JoinedSpaceColumns, workspaceId: string): Space | null {
  if (spaceId === null) return null;
  return toSpace(
    {
      id: spaceId,
      name: row.space_name!,
      kind: row.space_kind!,
      mode: row.space_mode!,
      autonomy: row.space_autonomy!,
      default_agent_id: row.space_default_agent_id,
      repo_path: row.space_repo_path,
      created_at: row.space_created_at!,
      updated_at: row.space_updated_at!,
      archived_at: row.space_archived_at,
    },
    workspaceId,
  );
}

export async function findConversationWithSpace(db: Kysely<WorkspaceSchema>, workspaceId: string, conversationId: string): Promise<{ record: ConversationRecord; space: Space | null } | null> {
  const [row] = await conversationWithSpaceById(db, conversationId);
  if (!row) return null;
  const space = joinedSpace(row.space_row_id, row, workspaceId);
  return { record: toConversationRecord(row), space };
}

/** A space's conversations and branches, oldest first. */
export async function listConversations(db: Kysely<WorkspaceSchema>, spaceId: string): Promise<ConversationRecord[]> {
  const rows = await db.selectFrom('conversations').selectAll().where('space_id', '=', spaceId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toConversationRecord);
}

/** The space of each of these conversations (one query, whatever their number). */
export async function spacesOfConversations(db: Kysely<WorkspaceSchema>, conversationIds: readonly string[]): Promise<Map<string, string>> {
  if (conversationIds.length === 0) return new Map();
  const rows = await db.selectFrom('conversations').select(['id', 'space_id']).where('id', 'in', [...conversationIds]).execute();
  return new Map(rows.map((row) => [row.id, row.space_id]));
}

export async function insertConversation(db: Kysely<WorkspaceSchema>, conversation: ConversationRecord): Promise<void> {
  await db
    .insertInto('conversations')
    .values({
      id: conversation.id,
      space_id: conversation.spaceId,
      parent_conversation_id: conversation.parentConversationId,
      branched_from_message_id: conversation.branchedFromMessageId,
      title: conversation.title,
      goal: conversation.goal,
      created_at: conversation.createdAt,
      updated_at: conversation.updatedAt,
      archived_at: conversation.archivedAt,
    })
    .execute();
}

export async function setConversationGoal(db: Kysely<WorkspaceSchema>, conversationId: string, goal: string | null, updatedAt: string): Promise<void> {
  await db.updateTable('conversations').set({ goal, updated_at: updatedAt }).where('id', '=', conversationId).execute();
}

export async function setConversationTitle(db: Kysely<WorkspaceSchema>, conversationId: string, title: string, updatedAt: string): Promise<void> {
  await db.updateTable('conversations').set({ title, updated_at: updatedAt }).where('id', '=', conversationId).execute();
}

/** Archives a conversation (`archivedAt` set) or brings it back (null); nothing of it is deleted. */
export async function setConversationArchived(db: Kysely<WorkspaceSchema>, conversationId: string, archivedAt: string | null, updatedAt: string): Promise<void> {
  await db.updateTable('conversations').set({ archived_at: archivedAt, updated_at: updatedAt }).where('id', '=', conversationId).execute();
}

/** Sets the title only while it is still `untitled` (one UPDATE … WHERE, so a rename in between wins). */
export async function setTitleIfUntitled(db: Kysely<WorkspaceSchema>, conversationId: string, untitled: string, title: string, updatedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('conversations')
    .set({ title, updated_at: updatedAt })
    .where('id', '=', conversationId)
    .where('title', '=', untitled)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
