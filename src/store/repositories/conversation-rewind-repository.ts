import type { Kysely, Selectable } from 'kysely';
import type { ConversationRewind } from '../../schemas/rewind.js';
import type { ConversationRewindTable, WorkspaceSchema } from '../workspace-schema.js';

export type { ConversationRewind };

function toRewind(row: Selectable<ConversationRewindTable>): ConversationRewind {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    messageId: row.message_id,
    checkpointCommit: row.checkpoint_commit,
    archiveRef: row.archive_ref,
    archivedMessages: Number(row.archived_messages),
    operatorId: row.operator_id,
    createdAt: row.created_at,
    restoredAt: row.restored_at,
    restoreArchiveRef: row.restore_archive_ref,
  };
}

export async function insertTurnCheckpoint(db: Kysely<WorkspaceSchema>, row: { run_id: string; conversation_id: string; commit_sha: string; created_at: string }): Promise<void> {
  await db.insertInto('turn_checkpoints').values(row).execute();
}

/**
 * The first checkpoint taken by a turn that began at or after `since` (the turn a message started, or
 * a later one). Selected by when the turn's run was created, not when its checkpoint was: a built-in
 * turn checkpoints at its first change, which can come after a message queued for the next turn.
 */
export async function firstTurnCheckpointSince(db: Kysely<WorkspaceSchema>, conversationId: string, since: string): Promise<{ runId: string; commit: string } | null> {
  const row = await db
    .selectFrom('turn_checkpoints')
    .innerJoin('runs', 'runs.id', 'turn_checkpoints.run_id')
    .select(['turn_checkpoints.run_id', 'turn_checkpoints.commit_sha'])
    .where('turn_checkpoints.conversation_id', '=', conversationId)
    .where('runs.created_at', '>=', since)
    .orderBy('turn_checkpoints.created_at')
    .limit(1)
    .executeTakeFirst();
  return row ? { runId: row.run_id, commit: row.commit_sha } : null;
}

export async function insertRewind(db: Kysely<WorkspaceSchema>, rewind: ConversationRewind): Promise<void> {
  await db
    .insertInto('conversation_rewinds')
    .values({
      id: rewind.id,
      conversation_id: rewind.conversationId,
      message_id: rewind.messageId,
      checkpoint_commit: rewind.checkpointCommit,
      archive_ref: rewind.archiveRef,
      archived_messages: rewind.archivedMessages,
      operator_id: rewind.operatorId,
      created_at: rewind.createdAt,
      restored_at: null,
      restore_archive_ref: null,
    })
    .execute();
}

export async function findRewind(db: Kysely<WorkspaceSchema>, id: string): Promise<ConversationRewind | null> {
  const row = await db.selectFrom('conversation_rewinds').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRewind(row) : null;
}

export async function listRewinds(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<ConversationRewind[]> {
  const rows = await db.selectFrom('conversation_rewinds').selectAll().where('conversation_id', '=', conversationId).orderBy('created_at').execute();
  return rows.map(toRewind);
}

export async function markRewindRestored(db: Kysely<WorkspaceSchema>, id: string, restoredAt: string, restoreArchiveRef: string | null): Promise<void> {
  await db.updateTable('conversation_rewinds').set({ restored_at: restoredAt, restore_archive_ref: restoreArchiveRef }).where('id', '=', id).execute();
}

/** Archives the messages from `from` on (by time, then id) that are still in the history; returns how many. */
export async function archiveMessagesFrom(db: Kysely<WorkspaceSchema>, conversationId: string, from: { id: string; createdAt: string }, rewindId: string): Promise<number> {
  const result = await db
    .updateTable('messages')
    .set({ rewound_by: rewindId })
    .where('conversation_id', '=', conversationId)
    .where('rewound_by', 'is', null)
    .where((where) => where.or([where('created_at', '>', from.createdAt), where.and([where('created_at', '=', from.createdAt), where('id', '>=', from.id)])]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Puts a rewind's messages back into the history. */
export async function unarchiveMessages(db: Kysely<WorkspaceSchema>, conversationId: string, rewindId: string): Promise<number> {
  const result = await db.updateTable('messages').set({ rewound_by: null }).where('conversation_id', '=', conversationId).where('rewound_by', '=', rewindId).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A message of the conversation still in it (not archived by a rewind), read by its id; null when there is none. */
export async function findUnarchivedMessage(db: Kysely<WorkspaceSchema>, conversationId: string, messageId: string): Promise<{ id: string; createdAt: string; content: string } | null> {
  const row = await db
    .selectFrom('messages')
    .select(['id', 'created_at', 'content'])
    .where('id', '=', messageId)
    .where('conversation_id', '=', conversationId)
    .where('rewound_by', 'is', null)
    .executeTakeFirst();
  return row ? { id: row.id, createdAt: row.created_at, content: row.content } : null;
}

/** A run of the conversation still queued or running, in any process (null: none). */
export async function unfinishedRunOfConversation(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<string | null> {
  const row = await db.selectFrom('runs').select('id').where('conversation_id', '=', conversationId).where('state', 'in', ['queued', 'running']).limit(1).executeTakeFirst();
  return row?.id ?? null;
}
