import type { Kysely } from 'kysely';
import type { ModelMessage } from '../../llm/model-types.js';
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
 * `withImages`: the conversation's messages with images and their text (`HistoryMarks`, read with the
 * history's rewinds and timeline in one statement); only those not kept yet have their bytes read.
 */
export async function keepEarlierImages(db: Kysely<WorkspaceSchema>, conversationId: string, withImages: ReadonlyArray<{ id: string; content: string }>, kept: Map<string, ModelMessage>): Promise<void> {
  for (const message of withImages) {
    if (kept.has(message.id)) continue;
    kept.set(message.id, { role: 'user', content: message.content, images: await promptImagesOf(db, conversationId, message.id) });
  }
}
