import type { Kysely, Selectable } from 'kysely';
import type { ConversationArchiveTable, ConversationShareTable, WorkspaceSchema } from '../workspace-schema.js';

/** A share link as stored (RLY-3): the token's hash, never the token. */
export interface ConversationShareRecord {
  id: string;
  conversationId: string;
  tokenHash: string;
  createdBy: string;
  createdAt: string;
  revokedAt: string | null;
}

function toShareRecord(row: Selectable<ConversationShareTable>): ConversationShareRecord {
  return { id: row.id, conversationId: row.conversation_id, tokenHash: row.token_hash, createdBy: row.created_by, createdAt: row.created_at, revokedAt: row.revoked_at };
}

export async function insertConversationShare(db: Kysely<WorkspaceSchema>, share: ConversationShareRecord): Promise<void> {
  await db
    .insertInto('conversation_shares')
    .values({ id: share.id, conversation_id: share.conversationId, token_hash: share.tokenHash, created_by: share.createdBy, created_at: share.createdAt, revoked_at: share.revokedAt })
    .execute();
}

export async function findShareByTokenHash(db: Kysely<WorkspaceSchema>, tokenHash: string): Promise<ConversationShareRecord | null> {
  const row = await db.selectFrom('conversation_shares').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row ? toShareRecord(row) : null;
}

export async function findConversationShare(db: Kysely<WorkspaceSchema>, shareId: string): Promise<ConversationShareRecord | null> {
  const row = await db.selectFrom('conversation_shares').selectAll().where('id', '=', shareId).executeTakeFirst();
  return row ? toShareRecord(row) : null;
}

/** A conversation's share links, newest first, revoked ones included. */
export async function listConversationShares(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<ConversationShareRecord[]> {
  const rows = await db.selectFrom('conversation_shares').selectAll().where('conversation_id', '=', conversationId).orderBy('created_at', 'desc').orderBy('id').execute();
  return rows.map(toShareRecord);
}

/** Revokes a live link; returns false when it was already revoked (the first revocation's time is kept). */
export async function revokeConversationShare(db: Kysely<WorkspaceSchema>, shareId: string, revokedAt: string): Promise<boolean> {
  const result = await db.updateTable('conversation_shares').set({ revoked_at: revokedAt }).where('id', '=', shareId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** RLY-6: who archived a conversation, when; null when it is not archived. */
export type ConversationArchiveRecord = { conversationId: string; archivedByKind: ConversationArchiveTable['archived_by_kind']; archivedById: string; archivedAt: string };

export async function findConversationArchive(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<ConversationArchiveRecord | null> {
  const row = await db.selectFrom('conversation_archives').selectAll().where('conversation_id', '=', conversationId).executeTakeFirst();
  return row ? { conversationId: row.conversation_id, archivedByKind: row.archived_by_kind, archivedById: row.archived_by_id, archivedAt: row.archived_at } : null;
}

export async function listArchivedConversationIds(db: Kysely<WorkspaceSchema>): Promise<Set<string>> {
  const rows = await db.selectFrom('conversation_archives').select('conversation_id').execute();
  return new Set(rows.map((row) => row.conversation_id));
}

/** Archives once: archiving an archived conversation keeps the first record. */
export async function insertConversationArchive(db: Kysely<WorkspaceSchema>, archive: ConversationArchiveRecord): Promise<void> {
  await db
    .insertInto('conversation_archives')
    .values({ conversation_id: archive.conversationId, archived_by_kind: archive.archivedByKind, archived_by_id: archive.archivedById, archived_at: archive.archivedAt })
    .onConflict((conflict) => conflict.column('conversation_id').doNothing())
    .execute();
}
