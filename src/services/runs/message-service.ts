import type { Compilable, Kysely } from 'kysely';
import { newId, nowIso } from '../../ids.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { Message } from '../../schemas/message.js';
import {
  latestContextUsage,
  historyMarksAndTranscript,
  historyMarksAndTranscriptFrom,
  type TranscriptItem,
} from '../../store/repositories/conversation-transcript-repository.js';
import type { ModelMessage } from '../../llm/model-types.js';
import { extendHistory, keep, type BuiltHistory, type KeptHistory } from './conversation-history.js';
import type { ContextUsage } from '../../harness/context-window.js';
import { insertMessage, listMessages, listRecentMessages, messageInsertQuery, type HistoryMessage } from '../../store/repositories/message-repository.js';
import { insertAttachments, listAttachmentsOfConversation } from '../../store/repositories/message-attachment-repository.js';
import type { AcceptedAttachment } from '../attachments/attachment-service.js';
import { keepEarlierImages } from '../attachments/attachment-history-blocks.js';
import type { EventBus } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

/** How many conversations' built histories are kept (the least recently extended are dropped first). */
const KEPT_CONVERSATIONS = 500;

export type NewMessage = Omit<Message, 'id' | 'createdAt'>;

/** Where a message sits in its conversation's timeline (a turn's history ends before it). */
export type MessagePlace = Pick<Message, 'id' | 'createdAt'>;

/** The timeline items before `message`: it and everything listed after it (or created later, were it rewound away) are cut. */
function itemsBefore(items: TranscriptItem[], message: MessagePlace): TranscriptItem[] {
  const end = items.findIndex((item) => (item.kind === 'message' && item.id === message.id) || item.createdAt > message.createdAt);
  return end < 0 ? items : items.slice(0, end);
}

/** See {@link MessageService.pendingMessage}. */
export interface PendingMessage {
  message: Message;
  write(db: Kysely<WorkspaceSchema>): Promise<void>;
  /** The same rows as insert queries (written with a run in one statement on PostgreSQL). */
  inserts(db: Kysely<WorkspaceSchema>): Array<Compilable<unknown>>;
  published(): void;
  /** Set when the message has no files: the one row written (see WrittenWithRun). */
  soleMessage?: Message;
}

/** The visible log of a conversation: operator messages, agent answers, system lines (PLAN-6). */
export class MessageService {
  private readonly kept: KeptHistory = { finishedRuns: new Map(), messages: new Map() };
  /** Each conversation's history as built at its last turn, with the unrestored rewinds it was built under. */
  private readonly built = new Map<string, { history: BuiltHistory; rewinds: string }>();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
  ) {}

  /**
   * The workspace's database, where messages are written: a posted turn reads its conversation, its
   * space and the agent it addresses there in one statement before writing its message (TurnService).
   */
  async database(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }

  /** Records a message; `attachments` (TOOL-3, already checked) are stored with it in one transaction. */
  async append(workspaceId: string, input: NewMessage, attachments: readonly AcceptedAttachment[] = []): Promise<Message> {
    const { database } = await this.workspaces.handle(workspaceId);
    const pending = this.pendingMessage(workspaceId, input, attachments);
    await (attachments.length === 0 ? pending.write(database.db) : database.db.transaction().execute((transaction) => pending.write(transaction)));
    pending.published();
    return pending.message;
  }

  /**
   * A message not yet written: `write` stores it (and its attachments) on the handle it is given — a
   * transaction the caller commits together with other rows (a turn's message and its run, NF-SCALE
   * bursts) — and `published` announces it once that has committed.
   */
  pendingMessage(workspaceId: string, input: NewMessage, attachments: readonly AcceptedAttachment[] = []): PendingMessage {
    const message: Message = {
      id: newId('msg'),
      conversationId: input.conversationId,
      runId: input.runId,
      role: input.role,
      authorKind: input.authorKind,
      authorId: input.authorId,
      mode: input.mode,
      picker: input.picker,
      content: input.content,
      createdAt: nowIso(),
    };
    const rows = attachments.map((attachment, position) => ({
      id: newId('att'),
      conversation_id: message.conversationId,
      message_id: message.id,
      position,
      name: attachment.name,
      kind: attachment.content.kind,
      media_type: attachment.content.mediaType,
      size_bytes: attachment.bytes.length,
      sha256: attachment.sha256,
      content: attachment.bytes,
      created_at: message.createdAt,
    }));
    if (rows.length > 0) message.attachments = rows.map((row) => ({ id: row.id, name: row.name, kind: row.kind, mediaType: row.media_type, sizeBytes: row.size_bytes }));
    return {
      message,
      write: async (db) => {
        await insertMessage(db, message);
        if (rows.length > 0) await insertAttachments(db, rows);
      },
      inserts: (db) => [messageInsertQuery(db, message), ...(rows.length > 0 ? [db.insertInto('message_attachments').values(rows)] : [])],
      published: () => this.events.publish(workspaceId, 'message.created', message),
      ...(rows.length === 0 ? { soleMessage: message } : {}),
    };
  }

  async list(workspaceId: string, conversationId: string): Promise<Message[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    const [messages, attachments] = await Promise.all([listMessages(database.db, conversationId), listAttachmentsOfConversation(database.db, conversationId)]);
    for (const message of messages) {
      const attached = attachments.get(message.id);
      if (attached) message.attachments = attached;
    }
    return messages;
  }

  /** The newest `count` messages that are not system lines, oldest first, as a turn's history needs them. */
  async recent(workspaceId: string, conversationId: string, count: number): Promise<HistoryMessage[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    return listRecentMessages(database.db, conversationId, count);
  }

  /**
   * CTX-1: a turn's history — the conversation since its latest compaction, with what earlier runs
   * recorded (see extendHistory). The history built at the conversation's previous turn is kept and
   * extended by what came since (its rows only are read); it is built again from the whole timeline
   * after a rewind or restore, a compaction, or when the server has not built it yet.
   */
  async history(workspaceId: string, conversationId: string, excludingLast = false): Promise<ModelMessage[]> {
    return this.buildHistory(workspaceId, conversationId, excludingLast, null);
  }

  /**
   * The history a turn started by `message` sees: the conversation before that message, read when the
   * turn starts rather than when it is accepted (NF-SCALE, bursts: a POST does not wait on it). What
   * was written after the message — its own run, later messages — is left out, so the turn sees what
   * it would have seen had the history been read as the message was posted.
   */
  async historyBefore(workspaceId: string, conversationId: string, message: MessagePlace): Promise<ModelMessage[]> {
    return this.buildHistory(workspaceId, conversationId, false, message);
  }

  private async buildHistory(workspaceId: string, conversationId: string, excludingLast: boolean, before: MessagePlace | null): Promise<ModelMessage[]> {
    const cut = (items: TranscriptItem[]) => (before ? itemsBefore(items, before) : items);
    const { database } = await this.workspaces.handle(workspaceId);
    const runsBefore = before?.createdAt;
    const key = `${workspaceId}/${conversationId}`;
    const previous = this.built.get(key);
    // A turn's own run (created after its message) is cut anyway, so it is not listed and its log
    // not read. A kept history is extended by what came since, read with the rewinds and earlier
    // images in one statement (NF-SCALE: a statement is a round trip); a history kept from a later
    // point may hold `before` in its settled part, so it is built again then.
    const extending = previous && (!before || previous.history.unsettledFrom <= before.createdAt) ? previous : null;
    const read = extending ? await historyMarksAndTranscriptFrom(database.db, conversationId, extending.history.unsettledFrom, this.kept.finishedRuns, runsBefore) : null;
    // Built under other rewinds (a rewind or restore since), the kept history is built again.
    if (extending && read && extending.rewinds === JSON.stringify(read.marks.rewound)) {
      await keepEarlierImages(database.db, conversationId, read.marks.withImages, this.kept.messages);
      const extended = extendHistory(extending.history, cut(read.items), this.kept, excludingLast);
      if (extended) {
        keep(this.built, key, { history: extended.built, rewinds: extending.rewinds }, KEPT_CONVERSATIONS);
        return extended.history;
      }
    }
    // Built from the whole timeline: its rewinds, images and items since the latest compaction in
    // one statement (a conversation's first turn on this process reads nothing else).
    const whole = await historyMarksAndTranscript(database.db, conversationId, this.kept.finishedRuns, runsBefore);
    await keepEarlierImages(database.db, conversationId, whole.marks.withImages, this.kept.messages);
    const rebuilt = extendHistory(null, cut(whole.items), this.kept, excludingLast)!;
    keep(this.built, key, { history: rebuilt.built, rewinds: JSON.stringify(whole.marks.rewound) }, KEPT_CONVERSATIONS);
    return rebuilt.history;
  }

  /** CTX-1 `/context`: what filled the window at the conversation's last turn of the built-in harness (null: none ran). */
  async latestContextUsage(workspaceId: string, conversationId: string): Promise<ContextUsage | null> {
    const { database } = await this.workspaces.handle(workspaceId);
    const data = await latestContextUsage(database.db, conversationId);
    return data ? (JSON.parse(data) as { usage: ContextUsage }).usage : null;
  }
}
