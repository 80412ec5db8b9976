import type { GrokMessage } from './grok-transcript.js';

/**
 * How much of a Grok conversation the host carries into the next turn (RLY-7). The host keeps the
 * whole transcript; only the copy handed to the CLI is bounded, so a long conversation does not
 * grow every turn's model request without limit.
 */
export interface GrokTranscriptBounds {
  /** The last this-many exchanges (a user message and what followed it) are carried whole. */
  recentExchanges: number;
  /** In older exchanges, a tool output longer than this is cut to its head and a marker. */
  oldToolOutputChars: number;
  /** Above this many characters, older exchanges are left out, oldest first. */
  maxChars: number;
}

export const DEFAULT_GROK_TRANSCRIPT_BOUNDS: GrokTranscriptBounds = {
  recentExchanges: 4,
  oldToolOutputChars: 400,
  // ≈ 75k tokens: well inside the Grok models' context, leaving room for the turn itself.
  maxChars: 300_000,
};

/** The head of an old tool output that is kept in front of the marker. */
const KEPT_HEAD_CHARS = 200;
/** How the RLY-8 line starts (relay-mode-line.ts): the user message carrying the mode in force is never left out. */
const MODE_LINE_PREFIX = '[Relay mode: ';

/** One user message and the assistant and tool messages that followed it. */
type Exchange = GrokMessage[];

function exchangesOf(messages: readonly GrokMessage[]): Exchange[] {
  const exchanges: Exchange[] = [];
  for (const message of messages) {
    // A user message opens an exchange; anything before the first one (never written by the host) opens one too.
    if (message.role === 'user' || exchanges.length === 0) exchanges.push([message]);
    else exchanges.at(-1)!.push(message);
  }
  return exchanges;
}

const sizeOf = (message: GrokMessage) => message.content.length + (message.tool_calls ?? []).reduce((sum, call) => sum + call.function.arguments.length + call.function.name.length, 0);

function trimmedToolOutput(message: GrokMessage, limit: number): GrokMessage {
  if (message.role !== 'tool' || message.content.length <= limit) return message;
  const left = message.content.length - KEPT_HEAD_CHARS;
  return { ...message, content: `${message.content.slice(0, KEPT_HEAD_CHARS)}\n[… ${left} more characters of this earlier tool output are left out of the carried conversation; run the tool again if you need them.]` };
}

/**
 * The transcript to carry into the next turn, bounded and deterministic (the same input gives the same
 * output): the last `recentExchanges` exchanges whole; older tool outputs cut to a head and a marker;
 * then, while the whole is above `maxChars`, older exchanges are left out oldest first — except the
 * conversation's first user message and the user message carrying the RLY-8 mode line in force, which
 * stay as they are, and one note says how many messages were left out where the first one was.
 * Whole exchanges go, so every tool result still follows the assistant message that called it.
 */
export function compactGrokTranscript(messages: readonly GrokMessage[], bounds: GrokTranscriptBounds = DEFAULT_GROK_TRANSCRIPT_BOUNDS): GrokMessage[] {
  const exchanges = exchangesOf(messages);
  const recentFrom = Math.max(0, exchanges.length - bounds.recentExchanges);
  const trimmed = exchanges.map((exchange, index) => (index >= recentFrom ? exchange : exchange.map((message) => trimmedToolOutput(message, bounds.oldToolOutputChars))));
  let total = trimmed.flat().reduce((sum, message) => sum + sizeOf(message), 0);
  if (total <= bounds.maxChars) return trimmed.flat();

  const firstUser = messages.find((message) => message.role === 'user');
  const modeLine = messages.findLast((message) => message.role === 'user' && message.content.startsWith(MODE_LINE_PREFIX));
  const kept: Exchange[] = trimmed.map((exchange) => [...exchange]);
  let left = 0;
  let noteAt = -1;
  for (let index = 0; index < recentFrom && total > bounds.maxChars; index += 1) {
    const exchange = kept[index]!;
    const stays = exchange.filter((message) => message === firstUser || message === modeLine);
    const dropped = exchange.filter((message) => !stays.includes(message));
    if (dropped.length === 0) continue;
    total -= dropped.reduce((sum, message) => sum + sizeOf(message), 0);
    left += dropped.length;
    if (noteAt < 0) noteAt = index;
    kept[index] = stays;
  }
  if (left === 0) return kept.flat();
  const note: GrokMessage = { role: 'user', content: `[${left} earlier messages of this conversation are left out here to bound its length.]` };
  return kept.flatMap((exchange, index) => (index === noteAt ? [...exchange, note] : exchange));
}
