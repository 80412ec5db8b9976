import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages.js';
import type { ModelMessage, PromptImage } from './model-types.js';

/** Block types a prompt-cache breakpoint may sit on (thinking blocks take none). */
const CACHEABLE = new Set(['text', 'tool_result', 'tool_use']);

/** TOOL-3: an attached image as a Messages API `image` block (base64 source); Claude Code's stream-json input takes the same block. */
export function anthropicImageBlock(image: PromptImage): ContentBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: image.mediaType as 'image/png', data: image.data } };
}

/**
 * TOOL-3: a user message's content for a runner that takes Anthropic messages as input (Claude Code's
 * stream-json, the Claude Agent SDK): with images, content blocks — the images first, as Anthropic
 * advises, then the text; without, the plain string.
 */
export function anthropicUserContent(text: string, images: readonly PromptImage[] = []): string | ContentBlockParam[] {
  return images.length === 0 ? text : [...images.map(anthropicImageBlock), { type: 'text', text }];
}

/** One neutral message's Messages API blocks: an assistant's in order, or a user's images then its text (none for empty text). */
function blocksOf(message: ModelMessage): ContentBlockParam[] {
  if (message.role === 'user') {
    // TOOL-3: images before the text, as Anthropic advises; the text stays last, so it can take the cache breakpoint.
    const images = (message.images ?? []).map(anthropicImageBlock);
    return message.content.length > 0 ? [...images, { type: 'text', text: message.content }] : images;
  }
  if (message.role === 'tool') {
    return [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) }];
  }
  const content: ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === 'text') {
      if (block.text.length > 0) content.push({ type: 'text', text: block.text });
    } else if (block.type === 'tool_call') {
      content.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    } else if (block.redactedData !== undefined) {
      content.push({ type: 'redacted_thinking', data: block.redactedData });
    } else if (block.signature !== undefined) {
      // Unsigned reasoning (from another provider) cannot be replayed to Claude.
      content.push({ type: 'thinking', thinking: block.text, signature: block.signature });
    }
  }
  return content;
}

/**
 * Groups per-message blocks into Messages API turns: each assistant message is a turn, consecutive
 * user-side messages merge into one, tool results placed before any text (the API wants them first).
 */
function groupTurns<B extends { type: string }>(
  messages: ModelMessage[],
  blocks: (message: ModelMessage) => B[],
  /** Filled with the index of the message each turn starts at. */
  starts: number[] = [],
): Array<{ role: 'user' | 'assistant'; content: B[] }> {
  const turns: Array<{ role: 'user' | 'assistant'; content: B[] }> = [];
  for (const [index, message] of messages.entries()) {
    const content = blocks(message);
    if (message.role === 'assistant') {
      if (content.length > 0) {
        turns.push({ role: 'assistant', content: [...content] });
        starts.push(index);
      }
      continue;
    }
    if (content.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === 'user') {
      for (const block of content) {
        const firstText = last.content.findIndex((existing) => existing.type !== 'tool_result');
        if (block.type === 'tool_result' && firstText >= 0) last.content.splice(firstText, 0, block);
        else last.content.push(block);
      }
    } else {
      turns.push({ role: 'user', content: [...content] });
      starts.push(index);
    }
  }
  return turns;
}

/**
 * Neutral messages → Messages API turns; with `promptCaching`, the newest turn's last block is a
 * cache breakpoint (so each call of an agent loop reads the previous call's prefix from cache).
 */
export function toAnthropicMessages(messages: ModelMessage[], promptCaching = false): MessageParam[] {
  const turns: MessageParam[] = groupTurns(messages, blocksOf);
  const lastBlock = turns.at(-1)?.content.at(-1) as ContentBlockParam | undefined;
  if (promptCaching && lastBlock && CACHEABLE.has(lastBlock.type)) (lastBlock as ContentBlockParam & { cache_control?: object }).cache_control = { type: 'ephemeral' };
  return turns;
}

interface SerializedBlock {
  type: string;
  json: string;
}

/**
 * Each message's blocks as JSON, kept for the message's lifetime: an agent loop sends the
 * whole history again on every call, and serializing it was the part of a call that grows with the
 * run (1.5 ms for 250 KB of tool output). Messages are not changed once they are in a request's
 * history — the loop only appends — so the JSON of a message object stays its JSON.
 */
const serialized = new WeakMap<ModelMessage, SerializedBlock[]>();

function serializedBlocksOf(message: ModelMessage): SerializedBlock[] {
  let blocks = serialized.get(message);
  if (!blocks) {
    blocks = blocksOf(message).map((block) => ({ type: block.type, json: JSON.stringify(block) }));
    serialized.set(message, blocks);
  }
  return blocks;
}

/**
 * The JSON of a loop's previous request, by its first message: the next call of the loop sends the
 * same messages and a few more, so the turns before the previous request's last one are reused as one
 * string — building every turn's JSON again was the part of a call that grew with the conversation.
 * Reused only while the messages they came from are the same objects, checked one by one (an elided
 * result is a new object). The last turn is built again: it takes the cache breakpoint and grows.
 */
const sentTurns = new Map<ModelMessage, { messages: ModelMessage[]; covered: number; json: string }>();
/** Loops whose previous request is kept (the least recently sent are dropped first). */
const KEPT_REQUESTS = 64;

function reusableTurns(messages: ModelMessage[]): { covered: number; json: string } {
  const previous = messages.length > 0 ? sentTurns.get(messages[0]!) : undefined;
  if (!previous || previous.covered >= messages.length) return { covered: 0, json: '' };
  // The same messages up to the previous last turn's start make the same turns, and a turn starts there again.
  for (let index = previous.covered - 1; index >= 0; index -= 1) if (messages[index] !== previous.messages[index]) return { covered: 0, json: '' };
  return previous;
}

/** The JSON of {@link toAnthropicMessages}'s result, built from each message's cached JSON. */
export function anthropicMessagesJson(messages: ModelMessage[], promptCaching: boolean): string {
  const reused = reusableTurns(messages);
  const starts: number[] = [];
  const turns = groupTurns(messages.slice(reused.covered), serializedBlocksOf, starts);
  const parts: string[] = [];
  turns.forEach((turn, turnIndex) => {
    const blocks = turn.content.map((block) => block.json);
    const last = turn.content.at(-1)!;
    if (promptCaching && turnIndex === turns.length - 1 && CACHEABLE.has(last.type)) {
      // Every block's JSON is an object: the breakpoint goes in before its closing brace.
      blocks[blocks.length - 1] = `${last.json.slice(0, -1)},"cache_control":{"type":"ephemeral"}}`;
    }
    parts.push(`{"role":"${turn.role}","content":[${blocks.join(',')}]}`);
  });
  const before = parts.slice(0, -1).join(',');
  const settled = reused.json && before ? `${reused.json},${before}` : reused.json || before;
  if (messages.length > 0 && turns.length > 0) {
    sentTurns.delete(messages[0]!);
    const covered = reused.covered + starts.at(-1)!;
    // A copy: the caller's array may change after the call (a loop without a budget sends its own list).
    sentTurns.set(messages[0]!, { messages: messages.slice(0, covered), covered, json: settled });
    if (sentTurns.size > KEPT_REQUESTS) sentTurns.delete(sentTurns.keys().next().value!);
  }
  const lastTurn = parts.at(-1);
  return `[${settled}${settled && lastTurn ? ',' : ''}${lastTurn ?? ''}]`;
}
