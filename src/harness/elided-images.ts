import type { UserMessage } from '../llm/model-types.js';

/**
 * CTX-1 stage 1 for images (TOOL-3): an earlier message's images, when the window is tight, stand in
 * the request as one line each, like an old tool result's stub — the model keeps knowing an image
 * was there and which, without its cost (up to about 1,600 tokens each). The message's text stays.
 */
export function elidedImages(message: UserMessage): UserMessage {
  const lines = (message.images ?? []).map((image) => `[image ${image.name ?? '(unnamed)'} elided to keep the context window]`);
  return { role: 'user', content: message.content.length > 0 ? `${lines.join('\n')}\n\n${message.content}` : lines.join('\n') };
}
