import type { Kysely, Selectable } from 'kysely';
import type { Attachment } from '../../schemas/attachment.js';
import type { MessageAttachmentTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';

const parseKind = enumColumn('message_attachments', 'kind', ['image', 'text'] as const);

/** An attachment with the facts kept beside its bytes. */
export interface StoredAttachment extends Attachment {
  conversationId: string;
  messageId: string;
  sha256: string;
}

/** The one mapper from a `message_attachments` row, without its bytes. */
function toAttachment(row: Omit<Selectable<MessageAttachmentTable>, 'content'>): StoredAttachment {
  return {
    id: row.id,
    name: row.name,
    kind: parseKind(row.kind, row.id),
    mediaType: row.media_type,
    sizeBytes: Number(row.size_bytes),
    conversationId: row.conversation_id,
    messageId: row.message_id,
    sha256: row.sha256,
  };
}

/** Only what the API lists: the rest stays server-side. */
export function attachmentSummary(stored: StoredAttachment): Attachment {
  return { id: stored.id, name: stored.name, kind: stored.kind, mediaType: stored.mediaType, sizeBytes: stored.sizeBytes };
}

const WITHOUT_CONTENT = ['id', 'conversation_id', 'message_id', 'position', 'name', 'kind', 'media_type', 'size_bytes', 'sha256', 'created_at'] as const;

export async function insertAttachments(db: Kysely<WorkspaceSchema>, rows: Selectable<MessageAttachmentTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('message_attachments').values(rows).execute();
}

/** A conversation's attachments by message id, each message's in order. */
export async function listAttachmentsOfConversation(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<Map<string, Attachment[]>> {
  const rows = await db.selectFrom('message_attachments').select(WITHOUT_CONTENT).where('conversation_id', '=', conversationId).orderBy('message_id').orderBy('position').execute();
  const byMessage = new Map<string, Attachment[]>();
  for (const row of rows) {
    const list = byMessage.get(row.message_id) ?? [];
    list.push(attachmentSummary(toAttachment(row)));
    byMessage.set(row.message_id, list);
  }
  return byMessage;
}

/** One attachment with its bytes, or null. */
export async function findAttachment(db: Kysely<WorkspaceSchema>, id: string): Promise<(StoredAttachment & { content: Buffer }) | null> {
  const row = await db.selectFrom('message_attachments').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return null;
  return { ...toAttachment(row), content: Buffer.from(row.content) };
}

/** The attachments of one message with their bytes, in order. */
export async function attachmentsOfMessage(db: Kysely<WorkspaceSchema>, conversationId: string, messageId: string): Promise<Array<StoredAttachment & { content: Buffer }>> {
  const rows = await db.selectFrom('message_attachments').selectAll().where('conversation_id', '=', conversationId).where('message_id', '=', messageId).orderBy('position').execute();
  return rows.map((row) => ({ ...toAttachment(row), content: Buffer.from(row.content) }));
}
