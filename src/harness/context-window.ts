import type { ModelMessage, ModelTool, ToolCallBlock, ToolResultMessage, UserMessage } from '../llm/model-types.js';
import { elidedImages } from './elided-images.js';
import { elidedToolResult } from './elided-tool-result.js';
import { estimateMessageTokens, estimateTextTokens, estimateToolsTokens } from './token-estimate.js';

/**
 * Once over the budget, old results are elided until the request is down to this share of it: the
 * elided prefix then stays the same for many calls, so the provider's prompt cache keeps hitting,
 * instead of moving by one result on every call. Each elision round breaks the cache once (from the
 * first result it stubs on), so the rounds are large: 60 % of the budget freed at a time, where 40 %
 * broke the cache in 35 of 142 calls of the context bench and this in 24 (bench/context.bench.ts).
 */
const ELIDE_DOWN_TO_SHARE = 0.4;

/** A result this short costs about what its stub does: never elided. */
const MIN_ELIDED_CHARS = 400;

/** What fills a request, in tokens (the `/context` view and the compaction event's figures). */
export interface ContextUsage {
  budget: number;
  /** The system prompt without its skills section. */
  system: number;
  /** The system prompt's `# Skills` section. */
  skills: number;
  tools: number;
  /** User and assistant messages (tool calls included). */
  history: number;
  /** Tool results as sent (stubs where elided). */
  toolResults: number;
  total: number;
  elidedResults: number;
}

export interface FittedContext {
  /** The messages to send: the conversation with stubs in place of elided results. */
  view: ModelMessage[];
  tokens: number;
  fits: boolean;
}

/**
 * One run's context window (CTX-1): the budget, the fixed part of every request (system prompt and
 * tools) and which old tool results are elided. Stage 1 lives here: near the limit, tool results are
 * replaced by one-line stubs, oldest first, never those the model has not yet answered. The loop's
 * own message list stays whole (it is what the run log and later turns get); a request sends the view.
 */
export class ContextWindow {
  /** Stubs by tool call id, kept as the same objects so their cached JSON and estimates hold. */
  private readonly stubs = new Map<string, ToolResultMessage>();
  /** TOOL-3: user messages whose images were elided, by the message, with what stands in for each. */
  private readonly imageStubs = new Map<ModelMessage, UserMessage>();
  private readonly fixedTokens: number;
  /** The budget as set, in the provider's tokens: what {@link calibrate} rescales. */
  private initialBudget: number;
  /**
   * The running estimate of the loop's message list as sent (stubs in place of what was elided): the
   * loop only appends to its list, and a compaction replaces it whole (a new first message), so each
   * call adds the new messages' estimates instead of summing a long conversation again.
   */
  private summed: { first: ModelMessage | undefined; count: number; tokens: number } = { first: undefined, count: 0, tokens: 0 };

  constructor(
    private currentBudget: number,
    private readonly system: string,
    private readonly tools: readonly ModelTool[],
  ) {
    this.fixedTokens = estimateTextTokens(system) + estimateToolsTokens(tools);
    this.initialBudget = currentBudget;
  }

  get budget(): number {
    return this.currentBudget;
  }

  /**
   * The provider counted a request the estimate put at `estimatedTokens`: the budget, which is in
   * estimated tokens, is rescaled so it means the same number of the provider's tokens (the estimate
   * overcounts on purpose; near the limit the provider's own count decides).
   */
  calibrate(estimatedTokens: number, countedTokens: number): void {
    if (estimatedTokens <= 0 || countedTokens <= 0) return;
    this.currentBudget = Math.floor(this.initialBudget * (estimatedTokens / countedTokens));
  }

  /**
   * The provider refused a request the estimate let through: from now on the budget is what the
   * provider's own counts say fits (its maximum scaled by how far the estimate was off, less a tenth),
   * or, when the refusal states no counts, three quarters of what it was.
   */
  shrinkAfterRefusal(estimatedTokens: number, refusal: { tokens: number; maximum: number } | null): void {
    const fitting = refusal && refusal.tokens > 0 ? Math.floor(estimatedTokens * (refusal.maximum / refusal.tokens) * 0.9) : Math.floor(this.currentBudget * 0.75);
    this.currentBudget = Math.min(this.currentBudget, fitting);
    this.initialBudget = Math.min(this.initialBudget, refusal ? Math.floor(refusal.maximum * 0.9) : this.currentBudget);
  }

  /** The messages with the stubs elided so far in place of their results. */
  view(messages: readonly ModelMessage[]): ModelMessage[] {
    if (this.stubs.size === 0 && this.imageStubs.size === 0) return [...messages];
    return messages.map((message) => this.shown(message));
  }

  /** What eliding `message` to `stub` saves, taken off the running sum too (it holds every message fit() sees: fit summed them first). */
  private elided(stub: ModelMessage, message: ModelMessage): number {
    const saved = estimateMessageTokens(stub) - estimateMessageTokens(message);
    this.summed.tokens += saved;
    return saved;
  }

  /** A message as a request sends it: its stub once elided. */
  private shown(message: ModelMessage): ModelMessage {
    return message.role === 'tool' ? (this.stubs.get(message.toolCallId) ?? message) : (this.imageStubs.get(message) ?? message);
  }

  /** Estimated tokens of a request built from the loop's list `messages` now (see {@link summed}). */
  viewTokens(messages: readonly ModelMessage[]): number {
    if (messages.length < this.summed.count || messages[0] !== this.summed.first) this.summed = { first: messages[0], count: 0, tokens: 0 };
    const summed = this.summed;
    for (let index = summed.count; index < messages.length; index += 1) summed.tokens += estimateMessageTokens(this.shown(messages[index]!));
    summed.count = messages.length;
    return this.fixedTokens + summed.tokens;
  }

  tokensOf(view: readonly ModelMessage[]): number {
    let total = this.fixedTokens;
    for (const message of view) total += estimateMessageTokens(message);
    return total;
  }

  /**
   * Stage 1: the view to send. Within the budget it is the conversation with the stubs elided before;
   * over it, more results are elided, oldest first, down to a share of the budget. `fits` is false
   * when eliding every result the model has seen is still not enough (stage 2's turn).
   */
  fit(messages: readonly ModelMessage[]): FittedContext {
    // A fresh array (view() copies): stubs replace results in it below.
    const view = this.view(messages);
    let tokens = this.viewTokens(messages);
    if (tokens <= this.budget) return { view, tokens, fits: true };
    const target = Math.floor(this.budget * ELIDE_DOWN_TO_SHARE);
    const calls = callsById(messages);
    // Results after the last assistant message are the ones the model is about to read: kept.
    const lastAssistant = view.findLastIndex((message) => message.role === 'assistant');
    for (let index = 0; index < lastAssistant && tokens > target; index += 1) {
      const message = view[index]!;
      if (hasImages(message)) {
        // TOOL-3: an earlier message's images go the way of old results, in the same oldest-first pass.
        const stub = elidedImages(message);
        this.imageStubs.set(message, stub);
        tokens += this.elided(stub, message);
        view[index] = stub;
        continue;
      }
      if (message.role !== 'tool' || this.stubs.has(message.toolCallId) || message.content.length < MIN_ELIDED_CHARS) continue;
      const stub = elidedToolResult(message, calls.get(message.toolCallId));
      this.stubs.set(message.toolCallId, stub);
      tokens += this.elided(stub, message);
      view[index] = stub;
    }
    return { view, tokens, fits: tokens <= this.budget };
  }

  /** Stubs every result the model has seen (what a compaction request sends of the part it summarizes). */
  elideAll(messages: readonly ModelMessage[]): ModelMessage[] {
    const calls = callsById(messages);
    return messages.map((message) => {
      if (hasImages(message)) return this.imageStubs.get(message) ?? elidedImages(message);
      if (message.role !== 'tool' || message.content.length < MIN_ELIDED_CHARS) return message;
      return this.stubs.get(message.toolCallId) ?? elidedToolResult(message, calls.get(message.toolCallId));
    });
  }

  /** What fills a request built from `messages` now. */
  usage(messages: readonly ModelMessage[]): ContextUsage {
    const view = this.view(messages);
    let history = 0;
    let toolResults = 0;
    for (const message of view) {
      if (message.role === 'tool') toolResults += estimateMessageTokens(message);
      else history += estimateMessageTokens(message);
    }
    const skillsSection = /^# Skills\n[\s\S]*?(?=^# |(?![\s\S]))/m.exec(this.system)?.[0] ?? '';
    const skills = estimateTextTokens(skillsSection);
    const system = estimateTextTokens(this.system) - skills;
    const tools = estimateToolsTokens(this.tools);
    return { budget: this.budget, system, skills, tools, history, toolResults, total: system + skills + tools + history + toolResults, elidedResults: this.stubs.size };
  }
}

function hasImages(message: ModelMessage): message is UserMessage {
  return message.role === 'user' && (message.images?.length ?? 0) > 0;
}

export function callsById(messages: readonly ModelMessage[]): Map<string, ToolCallBlock> {
  const calls = new Map<string, ToolCallBlock>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) if (block.type === 'tool_call') calls.set(block.id, block);
  }
  return calls;
}
