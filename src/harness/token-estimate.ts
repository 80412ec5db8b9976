import type { ModelMessage, ModelTool } from '../llm/model-types.js';
import { estimateImagesTokens } from './image-tokens.js';

/**
 * Characters per token the estimate assumes (CTX-1). Real tokenizers give about 3.5–4 characters of
 * English per token and fewer for code and JSON; erring low on characters overestimates tokens, so a
 * request the estimate lets through is rarely refused as too long (a refusal still ends in
 * compaction and one retry, never a failed run). Calibrated against the scripted model server's
 * counts on recorded requests (test/harness/token-estimate.test.ts): never under, at most 1.7× over (many tiny messages on the OpenAI wire, whose per-message overhead is smallest).
 */
export const CHARS_PER_TOKEN = 3.1;

/** What each block costs besides its text: its role, type, ids and the wire's punctuation. */
const BLOCK_OVERHEAD_CHARS = 43;

/** Messages are never changed once in a request's history (the loop only appends), so their estimate is kept. */
const estimates = new WeakMap<ModelMessage, number>();

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function messageChars(message: ModelMessage): number {
  if (message.role === 'user') return message.content.length + BLOCK_OVERHEAD_CHARS;
  if (message.role === 'tool') return message.content.length + message.toolCallId.length + BLOCK_OVERHEAD_CHARS;
  let chars = 0;
  for (const block of message.content) {
    chars += BLOCK_OVERHEAD_CHARS;
    if (block.type === 'text') chars += block.text.length;
    else if (block.type === 'tool_call') chars += block.id.length + block.name.length + JSON.stringify(block.input).length;
    else chars += block.text.length + (block.signature?.length ?? 0) + (block.redactedData?.length ?? 0);
  }
  return chars;
}

/** The estimated tokens of one message as a provider counts it in a request. */
export function estimateMessageTokens(message: ModelMessage): number {
  let tokens = estimates.get(message);
  if (tokens === undefined) {
    // TOOL-3: an image is counted by its size in pixels, not by its base64 characters.
    tokens = Math.ceil(messageChars(message) / CHARS_PER_TOKEN) + (message.role === 'user' ? estimateImagesTokens(message.images) : 0);
    estimates.set(message, tokens);
  }
  return tokens;
}

export function estimateMessagesTokens(messages: readonly ModelMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** Tool definitions go in every request: their names, descriptions and JSON schemas. */
export function estimateToolsTokens(tools: readonly ModelTool[]): number {
  return tools.length === 0 ? 0 : Math.ceil(JSON.stringify(tools).length / CHARS_PER_TOKEN);
}

/** The estimated input tokens of a whole request: system prompt, tools and messages. */
export function estimateRequestTokens(request: { system: string; tools: readonly ModelTool[]; messages: readonly ModelMessage[] }): number {
  return estimateTextTokens(request.system) + estimateToolsTokens(request.tools) + estimateMessagesTokens(request.messages);
}
