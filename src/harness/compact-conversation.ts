import { ModelResponseCollector } from '../llm/collect-model-response.js';
import type { ModelMessage, ModelTool, ModelUsage, StreamFn } from '../llm/model-types.js';
import { compactionInstruction, summaryMessageText } from './compaction-prompt.js';
import { callsById, type ContextWindow } from './context-window.js';
import { repairTranscript } from './repair-transcript.js';
import { estimateMessageTokens } from './token-estimate.js';

/** The newest messages a compaction keeps verbatim may fill this share of the budget (the smaller after a refusal). */
const KEPT_TAIL_SHARE = 0.25;
const SMALL_TAIL_SHARE = 0.1;
/** The summary's own answer budget. */
const SUMMARY_MAX_TOKENS = 8_000;
/** Tools whose latest call is kept whole through a compaction: the todo list and the plan. */
const PRESERVED_TOOL = /^(todo|.*plan.*)$/;

export interface CompactionRequest {
  streamFn: StreamFn;
  model: string;
  /** The run's system prompt: the summary request sends it and the run's tools, so their cached prefix is read again. */
  system: string;
  tools: ModelTool[];
  window: ContextWindow;
  /** The whole conversation as the loop holds it. */
  messages: readonly ModelMessage[];
  /** What the operator asked the summary to attend to (`/compact <focus>`). */
  focus: string | null;
  /** Keep a smaller tail: the provider refused a request the estimate let through. */
  smallTail?: boolean;
  signal: AbortSignal;
}

export type CompactionOutcome =
  | { ok: true; messages: ModelMessage[]; summary: string; replacedMessages: number; keptMessages: number; usage: ModelUsage | null }
  | { ok: false; reason: string; usage: ModelUsage | null };

/** Where the kept tail starts: the oldest message of the newest ones within the share, on a turn boundary (never a tool result). */
function tailStart(messages: readonly ModelMessage[], window: ContextWindow, share: number): number {
  const tailBudget = Math.floor(window.budget * share);
  const view = window.view(messages);
  let tokens = 0;
  let start = messages.length;
  for (let index = messages.length - 1; index > 0; index -= 1) {
    tokens += estimateMessageTokens(view[index]!);
    if (tokens > tailBudget) break;
    if (messages[index]!.role !== 'tool') start = index;
  }
  return start;
}

/** What a repaired suffix may add: the user message put first when it starts with another role. */
const CONVERSATION_START_TOKENS = estimateMessageTokens({ role: 'user', content: '(conversation start)' });

/**
 * The summary request's messages within the budget: when even with every result stubbed they are
 * over it, the oldest are dropped — as many as the running sum says, in one pass (then one repair: a
 * cut can only orphan results, which repair drops, and put a user message first). The instruction
 * and the message before it always stay.
 */
function withinBudget(window: ContextWindow, messages: ModelMessage[]): ModelMessage[] {
  let tokens = window.tokensOf(messages);
  if (tokens <= window.budget) return messages;
  let start = 0;
  while (start < messages.length - 2 && tokens + CONVERSATION_START_TOKENS > window.budget) {
    tokens -= estimateMessageTokens(messages[start]!);
    start += 1;
  }
  return repairTranscript(messages.slice(start));
}

/** The latest call of each preserved tool among the compacted messages, as text kept whole. */
function preservedCalls(messages: readonly ModelMessage[]): string[] {
  const latest = new Map<string, string>();
  for (const call of callsById(messages).values()) {
    if (PRESERVED_TOOL.test(call.name)) latest.set(call.name, `Kept whole — the latest ${call.name} call's input:\n${JSON.stringify(call.input, null, 2)}`);
  }
  return [...latest.values()];
}

/**
 * CTX-1 stage 2: older turns become a summary written by the same model with the compaction prompt;
 * the newest messages stay verbatim after it, and the latest todo list and plan are kept whole. The
 * summary request sends the compacted part with every tool result stubbed, dropping its oldest
 * messages if even that does not fit.
 */
export async function compactConversation(request: CompactionRequest): Promise<CompactionOutcome> {
  const { window, messages } = request;
  const start = tailStart(messages, window, request.smallTail ? SMALL_TAIL_SHARE : KEPT_TAIL_SHARE);
  const older = messages.slice(0, start);
  if (older.length === 0) return { ok: false, reason: 'there are no earlier messages left to compact', usage: null };
  const instruction: ModelMessage = { role: 'user', content: compactionInstruction(request.focus) };
  const sent = withinBudget(window, repairTranscript([...window.elideAll(older), instruction]));
  const collector = new ModelResponseCollector();
  for await (const event of request.streamFn(
    { model: request.model, system: request.system, messages: sent, tools: request.tools, maxTokens: SUMMARY_MAX_TOKENS },
    request.signal,
  )) {
    collector.push(event);
  }
  const response = collector.result();
  const usage = response.usage ?? null;
  if (response.stopReason === 'error' || response.stopReason === 'aborted') {
    return { ok: false, reason: `the summary request failed: ${response.errorMessage ?? response.stopReason}`, usage };
  }
  const summary = response.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('').trim();
  if (!summary) return { ok: false, reason: 'the model wrote no summary', usage };
  const summaryMessage: ModelMessage = { role: 'user', content: summaryMessageText(summary, preservedCalls(older)) };
  const kept = messages.slice(start);
  return { ok: true, messages: repairTranscript([summaryMessage, ...kept]), summary, replacedMessages: older.length, keptMessages: kept.length, usage };
}
