import type { Kysely } from 'kysely';
import type { ModelMessage } from '../../llm/model-types.js';
import { messagesWithImages } from '../../store/repositories/message-attachment-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { promptImagesOf } from './attachment-service.js';

/**
 * TOOL-3, CTX-1: earlier turns' images stay in the history. A turn's history keeps one model message
 * per message row (by id, made once: a row never changes); for each operator message of the
 * conversation that carried images, this makes that model message with them — the same user message
 * its turn sent, images before the text — before the history is built, so later turns send them again
 * as the provider's image blocks. They count in the request's estimate at the provider's rate
 * (harness/image-tokens.ts), and when the window is tight they are elided to one-line placeholders
 * like old tool results (harness/context-window.ts), never dropped unannounced.
 *
 * One indexed query a turn finds the messages with images; only those not kept yet have their bytes read.
 */
export async function keepEarlierImages(db: Kysely<WorkspaceSchema>, conversationId: string, kept: Map<string, ModelMessage>): Promise<void> {
  for (const message of await messagesWithImages(db, conversationId)) {
    if (kept.has(message.id)) continue;
    kept.set(message.id, { role: 'user', content: message.content, images: await promptImagesOf(db, conversationId, message.id) });
  }
}
