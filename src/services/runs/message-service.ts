import { newId, nowIso } from '../../ids.js';
import type { Message } from '../../schemas/message.js';
import { insertMessage, listMessages, listRecentMessages, type HistoryMessage } from '../../store/repositories/message-repository.js';
import type { EventBus } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

export type NewMessage = Omit<Message, 'id' | 'createdAt'>;

/** The visible log of a conversation: operator messages, agent answers, system lines (PLAN-6). */
export class MessageService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
  ) {}

  async append(workspaceId: string, input: NewMessage): Promise<Message> {
    const { database } = await this.workspaces.handle(workspaceId);
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
    await insertMessage(database.db, message);
    this.events.publish(workspaceId, 'message.created', message);
    return message;
  }

  async list(workspaceId: string, conversationId: string): Promise<Message[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    return listMessages(database.db, conversationId);
  }

  /** The newest `count` messages that are not system lines, oldest first, as a turn's history needs them. */
  async recent(workspaceId: string, conversationId: string, count: number): Promise<HistoryMessage[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    return listRecentMessages(database.db, conversationId, count);
  }
}
