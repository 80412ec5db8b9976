import type { Kysely, Selectable } from 'kysely';
import { Message } from '../../schemas/message.js';
import type { MessageTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';
import { queryPerShape, reusableQuery } from '../reusable-query.js';

const parseRole = enumColumn('messages', 'role', Message.shape.role.options);
const parseAuthorKind = enumColumn('messages', 'author_kind', Message.shape.authorKind.options);

/** The one mapper from a `messages` row (RLY-1: the mode and picker in force when it was sent). */
export function toMessage(row: Selectable<MessageTable>): Message {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    runId: row.run_id,
    role: parseRole(row.role, row.id),
    authorKind: parseAuthorKind(row.author_kind, row.id),
    authorId: row.author_id,
    mode: row.mode,
    picker: row.picker,
    content: row.content,
    createdAt: row.created_at,
  };
}

/** Two messages per turn (the operator's and the answer): compiled once per database. */
const messageInsert = queryPerShape();

export function toMessageRow(message: Message) {
  return {
    id: message.id,
    conversation_id: message.conversationId,
    run_id: message.runId,
    role: message.role,
    author_kind: message.authorKind,
    author_id: message.authorId,
    mode: message.mode,
    picker: message.picker,
    content: message.content,
    created_at: message.createdAt,
  };
}

export async function insertMessage(db: Kysely<WorkspaceSchema>, message: Message): Promise<void> {
  const row = toMessageRow(message);
  await messageInsert(db, 'row', Object.values(row), () => db.insertInto('messages').values(row));
}

/** A message's insert as a query, to be folded into a statement with its run's rows. */
export function messageInsertQuery(db: Kysely<WorkspaceSchema>, message: Message) {
  return db.insertInto('messages').values(toMessageRow(message));
}

/** Read on every message posted (the turn's history): compiled once per database. */
const messagesOfConversation = reusableQuery((db, conversationId: string) =>
  // CTX-3: messages a rewind archived are out of the conversation until the rewind is restored.
  db.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId).where('rewound_by', 'is', null).orderBy('created_at').orderBy('id'),
);

/** A conversation's messages, oldest first. */
export async function listMessages(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<Message[]> {
  const rows = await messagesOfConversation(db, conversationId);
  return rows.map(toMessage);
}

/** A message as a turn's history needs it: who said it and what. */
export type HistoryMessage = Pick<Message, 'role' | 'content'>;

/** The kept query of {@link listRecentMessages} per count (a count is part of the SQL, not a parameter). */
const newestOfConversation = new Map<number, (db: Kysely<WorkspaceSchema>, conversationId: string) => Promise<Array<Pick<Selectable<MessageTable>, 'id' | 'role' | 'content'>>>>();

/**
 * The newest `count` messages of a conversation that are not system lines, oldest first: a turn's
 * history. Read through the (conversation, time) index from its end, so a turn reads the same few
 * rows however long the conversation has grown, and only the columns the history uses: building the
 * other eight strings of each row took half the statement's time.
 */
export async function listRecentMessages(db: Kysely<WorkspaceSchema>, conversationId: string, count: number): Promise<HistoryMessage[]> {
  let newest = newestOfConversation.get(count);
  if (!newest) {
    newest = reusableQuery((handle, conversation: string) =>
      handle
        .selectFrom('messages')
        .select(['id', 'role', 'content'])
        .where('conversation_id', '=', conversation)
        .where('role', '!=', 'system')
        .where('rewound_by', 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(count),
    );
    newestOfConversation.set(count, newest);
  }
  const rows = await newest(db, conversationId);
  return rows.reverse().map((row) => ({ role: parseRole(row.role, row.id), content: row.content }));
}
