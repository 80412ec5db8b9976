import type { Selectable } from 'kysely';
import { newId, nowIso } from '../../ids.js';
import type { Message } from '../../schemas/message.js';
import type { MessageTable } from '../../store/workspace-schema.js';
import type { EventBus } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

export type NewMessage = Omit<Message, 'id' | 'createdAt'>;

function toMessage(row: Selectable<MessageTable>): Message {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    runId: row.run_id,
    role: row.role as Message['role'],
    authorKind: row.author_kind as Message['authorKind'],
    authorId: row.author_id,
    mode: row.mode,
    picker: row.picker,
    content: row.content,
    createdAt: row.created_at,
  };
}

/** The visible log of a conversation: operator messages, agent answers, system lines (PLAN-6). */
export class MessageService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
  ) {}

  async append(workspaceId: string, input: NewMessage): Promise<Message> {
    const { database } = await this.workspaces.handle(workspaceId);
    const row: MessageTable = {
      id: newId('msg'),
      conversation_id: input.conversationId,
      run_id: input.runId,
      role: input.role,
      author_kind: input.authorKind,
      author_id: input.authorId,
      mode: input.mode,
      picker: input.picker,
      content: input.content,
      created_at: nowIso(),
    };
    await database.db.insertInto('messages').values(row).execute();
    const message = toMessage(row);
    this.events.publish(workspaceId, 'message.created', message);
    return message;
  }

  async list(workspaceId: string, conversationId: string): Promise<Message[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    const rows = await database.db
      .selectFrom('messages')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toMessage);
  }
}
