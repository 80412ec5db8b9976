import { z } from 'zod';
import { MAX_ATTACHMENTS_PER_MESSAGE } from '../core/attachment-content.js';

/**
 * TOOL-3: a file sent with a message, its bytes in base64. What it is (image or text) is decided
 * from the bytes by the server; the name is a label only (a path is refused).
 */
export const AttachmentUpload = z.strictObject({
  name: z.string().min(1).max(200),
  /** Standard base64 (RFC 4648 §4), no line breaks. The JSON body cap (5 MiB) bounds the total. */
  data: z.string().min(1),
});
export type AttachmentUpload = z.infer<typeof AttachmentUpload>;

export const AttachmentUploads = z.array(AttachmentUpload).max(MAX_ATTACHMENTS_PER_MESSAGE);

/** A stored attachment as messages list it; its bytes are served by `GET …/attachments/:attachmentId`. */
export const Attachment = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['image', 'text']),
  mediaType: z.string(),
  sizeBytes: z.number().int(),
});
export type Attachment = z.infer<typeof Attachment>;
