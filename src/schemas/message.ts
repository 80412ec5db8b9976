import { z } from 'zod';
import { PickerValue } from './space.js';
import { IsoTime } from './common.js';
import { Run } from './run.js';
import { Space } from './space.js';
import { Attachment, AttachmentUploads } from './attachment.js';

export const Message = z.object({
  id: z.string(),
  conversationId: z.string(),
  runId: z.string().nullable(),
  role: z.enum(['user', 'assistant', 'system']),
  authorKind: z.enum(['operator', 'agent', 'system']),
  authorId: z.string().nullable(),
  /** RLY-1: the mode in force when the message was sent. */
  mode: z.string().nullable(),
  picker: z.string().nullable(),
  content: z.string(),
  /** TOOL-3: the files sent with the message, in order; absent when there are none. */
  attachments: z.array(Attachment).optional(),
  createdAt: IsoTime,
});
export type Message = z.infer<typeof Message>;

export const PostMessageBody = z.strictObject({
  text: z.string().max(200_000),
  agentId: z.string().min(1).optional(),
  /** Applies a picker value to the space before the message is sent (RLY-1). */
  picker: PickerValue.optional(),
  /** TOOL-3: images (PNG, JPEG, WebP, GIF) and UTF-8 text files, checked by content and size. */
  attachments: AttachmentUploads.optional(),
});
export type PostMessageBody = z.infer<typeof PostMessageBody>;

export const PostMessageResponse = z.object({
  message: Message.nullable(),
  run: Run.nullable(),
  space: Space,
  /**
   * True when a turn of the conversation was going (running, or waiting for an operator's approval):
   * the message went to that turn as steering (read before its next step, or once the approval is
   * decided) and `run` is that turn; no turn started.
   */
  steeredTurn: z.boolean().optional(),
  /**
   * Set when the going turn's runtime cannot be steered: the message is held and starts the next turn
   * once that turn (this run) has ended; it is recorded then, so `message` and `run` are null now.
   */
  startsAfterRunId: z.string().optional(),
});
export type PostMessageResponse = z.infer<typeof PostMessageResponse>;
