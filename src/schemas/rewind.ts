import { z } from 'zod';
import { IsoTime } from './common.js';

/** CTX-3: a conversation rewound to before one of its messages; restorable while `restoredAt` is null. */
export const ConversationRewind = z.object({
  id: z.string(),
  conversationId: z.string(),
  /** The first message the rewind archived: the conversation returned to just before it. */
  messageId: z.string(),
  /** The turn checkpoint the checkout returned to; null when no turn since took one (none changed the checkout, or there is no checkout): only the history moved. */
  checkpointCommit: z.string().nullable(),
  /** The ref in the conversation's checkout that keeps the checkout as it was before the rewind. */
  archiveRef: z.string().nullable(),
  archivedMessages: z.number().int(),
  operatorId: z.string(),
  createdAt: IsoTime,
  restoredAt: IsoTime.nullable(),
  restoreArchiveRef: z.string().nullable(),
});
export type ConversationRewind = z.infer<typeof ConversationRewind>;

export const RewindBody = z.strictObject({
  /** A message of the conversation still in its history: the rewind returns to just before it. */
  messageId: z.string().min(1),
});
