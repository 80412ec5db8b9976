import { z } from 'zod';
import { IsoTime } from './common.js';

/** A read-only share link of a conversation (RLY-3), as the operator sees it: never its token. */
export const ConversationShare = z.object({
  id: z.string(),
  conversationId: z.string(),
  createdBy: z.string(),
  createdAt: IsoTime,
  revokedAt: IsoTime.nullable(),
});
export type ConversationShare = z.infer<typeof ConversationShare>;

/** The answer to creating a link: the token is shown this once and stored only as a hash. */
export const CreatedConversationShare = z.object({
  share: ConversationShare,
  token: z.string(),
  /** The web page that shows the conversation read-only. */
  path: z.string(),
});
export type CreatedConversationShare = z.infer<typeof CreatedConversationShare>;

/**
 * What a share link shows (RLY-3): the title and the messages' text, nothing else — no run ids, no
 * tool calls, no approvals, no modes, no agent configuration, no tokens.
 */
export const SharedConversation = z.object({
  title: z.string(),
  messages: z.array(
    z.object({
      role: z.enum(['user', 'assistant', 'system']),
      author: z.enum(['operator', 'agent', 'system']),
      content: z.string(),
      createdAt: IsoTime,
    }),
  ),
});
export type SharedConversation = z.infer<typeof SharedConversation>;
