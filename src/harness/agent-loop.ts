import type { ModelMessage, ModelTool, ModelUsage, StreamFn, ToolCallBlock } from '../llm/model-types.js';
import { ModelResponseCollector } from '../llm/collect-model-response.js';
import type { ToolResult } from '../tools/define-tool.js';
import type { AgentEvent, AgentLoopResult } from './agent-events.js';
import { compactConversation } from './compact-conversation.js';
import type { CountTokens } from '../llm/anthropic-token-count.js';
import type { ContextWindow } from './context-window.js';
import { isPromptTooLong, refusalCounts } from './prompt-too-long.js';

/** The completion contract the loop enforces (HAR-4): which verb delivers, and how to remind. */
export interface LoopCompletionContract {
  outputVerb: string;
  reminder: string;
  /** Reminders before the run is declared to have failed its deliverable. */
  maxReminders: number;
}

export interface AgentLoopConfig {
  streamFn: StreamFn;
  model: string;
  system: string;
  maxTokens: number;
  effort?: string;
  /** The conversation so far, ending with the new user message. Mutated: the loop appends to it. */
  messages: ModelMessage[];
  /** The surfaced tools (HAR-3); anything else the model calls is invisible and never executed. */
  tools: ModelTool[];
  /** Runs one surfaced call through the gate, the policy and the tool (the caller enforces). */
  executeTool(call: ToolCallBlock, signal: AbortSignal): Promise<ToolResult>;
  completion: LoopCompletionContract | null;
  /** Messages an operator injected into the running turn (HAR-5 steering). */
  drainSteering(): string[];
  /** The turn is ending: the steering still waiting, and no more accepted (RLY-9). */
  closeSteering?(): string[];
  /** Resolves when the run is not paused (HAR-5 pause/resume). */
  waitWhilePaused(signal: AbortSignal): Promise<void>;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  /** Safety cap on model round trips in one run. */
  maxModelCalls?: number;
  /** Identical consecutive calls that count as looping (AG-5). */
  loopThreshold?: number;
  /** CTX-1: the run's context window (budget, elided results); absent, every request sends everything. */
  contextWindow?: ContextWindow;
  /** `/compact [focus]`: compact the conversation, then end the turn without a model call. */
  compactOnly?: { focus: string | null };
  /** CTX-1: the provider's own token count (Anthropic `count_tokens`), asked once when a request nears the budget. */
  countTokens?: CountTokens;
  /** What a call's usage costs in US dollars (shown with a compaction). */
  costOf?(usage: ModelUsage): number;
  /** BUD-1: resolves when the run may call the model (a run at a spend limit waits here, paused). */
  beforeModelCall?(signal: AbortSignal): Promise<void>;
}

const DEFAULT_MAX_MODEL_CALLS = 200;
const DEFAULT_LOOP_THRESHOLD = 4;
/** A request estimated above this share of the budget is counted by the provider, where it can count. */
const NEAR_BUDGET_SHARE = 0.85;

function addUsage(total: ModelUsage, usage: ModelUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.cacheReadTokens = (total.cacheReadTokens ?? 0) + (usage.cacheReadTokens ?? 0);
  total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** Stable key of a call for loop detection: same tool, same arguments (key order ignored). */
function callKey(call: ToolCallBlock): string {
  const sortKeys = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sortKeys)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sortKeys(v)]))
        : value;
  return `${call.name}:${JSON.stringify(sortKeys(call.input))}`;
}

/**
 * The built-in agent loop (HAR-1): call the model, run the tool calls it makes, feed results back,
 * repeat until it stops calling tools. Then the completion contract (HAR-4): without its output
 * verb the run is reminded, and if it still ends without one it has failed its deliverable.
 * Provider failures arrive as data and end the run `failed`; an abort ends it `cancelled`.
 */
export async function runAgentLoop(config: AgentLoopConfig): Promise<AgentLoopResult> {
  const { emit, signal } = config;
  const usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const surfaced = new Set(config.tools.map((tool) => tool.name));
  const maxModelCalls = config.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS;
  const loopThreshold = config.loopThreshold ?? DEFAULT_LOOP_THRESHOLD;
  let modelCalls = 0;
  let verbDelivered = false;
  let reminders = 0;
  let lastKey: string | null = null;
  let repeats = 0;
  let looping = false;
  const window = config.contextWindow;
  /** CTX-1 stage 2: replaces older messages by a summary in place; false with the reason when it cannot. */
  const compact = async (trigger: 'budget' | 'prompt_too_long' | 'operator', focus: string | null): Promise<string | null> => {
    if (!window) return 'the run has no context budget';
    // BUD-1: the summary is a model call like any other, so the spend limits hold before it too.
    await config.beforeModelCall?.(signal);
    await config.waitWhilePaused(signal);
    if (signal.aborted) return 'the run was cancelled';
    const started = performance.now();
    const tokensBefore = window.tokensOf(window.view(config.messages));
    const outcome = await compactConversation({
      streamFn: config.streamFn,
      model: config.model,
      system: config.system,
      tools: config.tools,
      window,
      messages: config.messages,
      focus,
      smallTail: trigger === 'prompt_too_long',
      signal,
    });
    if (outcome.usage) {
      addUsage(usage, outcome.usage);
      emit({ type: 'usage', usage: outcome.usage });
    }
    if (!outcome.ok) return outcome.reason;
    config.messages.splice(0, config.messages.length, ...outcome.messages);
    emit({
      type: 'context_compacted',
      trigger,
      focus,
      summary: outcome.summary,
      summaryMessage: (outcome.messages[0] as { content: string }).content,
      replacedMessages: outcome.replacedMessages,
      keptMessages: outcome.keptMessages,
      tokensBefore,
      tokensAfter: window.tokensOf(window.view(config.messages)),
      usage: outcome.usage,
      costUsd: outcome.usage && config.costOf ? config.costOf(outcome.usage) : null,
      durationMs: performance.now() - started,
    });
    return null;
  };
  let refusedAsTooLong = false;
  let calibrated = false;
  const end = (outcome: AgentLoopResult['outcome'], error: string | null, deliverableFailed = false): AgentLoopResult => {
    if (window) emit({ type: 'context_usage', usage: window.usage(config.messages) });
    return { outcome, error, deliverableFailed, usage, modelCalls };
  };

  if (config.compactOnly) {
    const failure = await compact('operator', config.compactOnly.focus);
    if (signal.aborted) return end('cancelled', 'the run was cancelled');
    return failure ? end('failed', `could not compact the conversation: ${failure}`) : end('completed', null);
  }

  for (;;) {
    if (signal.aborted) return end('cancelled', 'the run was cancelled');
    await config.beforeModelCall?.(signal);
    await config.waitWhilePaused(signal);
    if (signal.aborted) return end('cancelled', 'the run was cancelled');
    for (const text of config.drainSteering()) {
      config.messages.push({ role: 'user', content: text });
      emit({ type: 'steering_injected', text });
    }
    if (modelCalls >= maxModelCalls) return end('failed', `stopped after ${maxModelCalls} model calls without finishing`);

    let requestMessages = config.messages;
    if (window) {
      if (config.countTokens && !calibrated) {
        // CTX-1: near the budget, the provider's own count replaces the estimate's scale, once per run.
        // The estimate is the window's running sum (fit below reuses it): the view is built only to be counted.
        const estimated = window.viewTokens(config.messages);
        if (estimated > window.budget * NEAR_BUDGET_SHARE) {
          calibrated = true;
          const view = window.view(config.messages);
          const counted = await config.countTokens({ model: config.model, system: config.system, messages: view, tools: config.tools, maxTokens: config.maxTokens }, signal);
          if (counted !== null) window.calibrate(estimated, counted);
        }
      }
      // CTX-1: stage 1 (elide old results) first; stage 2 (compact) when that is not enough.
      let fitted = window.fit(config.messages);
      if (!fitted.fits) {
        const failure = await compact('budget', null);
        if (signal.aborted) return end('cancelled', 'the run was cancelled');
        if (failure) return end('failed', `the conversation no longer fits the context window (${window.budget} tokens) and compaction could not make room: ${failure}`);
        fitted = window.fit(config.messages);
        if (!fitted.fits) return end('failed', `the conversation no longer fits the context window (${window.budget} tokens), even compacted (${fitted.tokens} tokens)`);
      }
      requestMessages = fitted.view;
    }

    emit({ type: 'model_call_start', index: modelCalls });
    modelCalls += 1;
    const collector = new ModelResponseCollector();
    const stream = config.streamFn(
      {
        model: config.model,
        system: config.system,
        messages: requestMessages,
        tools: config.tools,
        maxTokens: config.maxTokens,
        ...(config.effort ? { effort: config.effort } : {}),
      },
      signal,
    );
    for await (const event of stream) {
      collector.push(event);
      if (event.type === 'text_delta') emit({ type: 'text_delta', text: event.text });
      else if (event.type === 'thinking_delta') emit({ type: 'thinking_delta', text: event.text });
    }
    const response = collector.result();
    if (response.usage) {
      addUsage(usage, response.usage);
      emit({ type: 'usage', usage: response.usage });
    }
    if (response.stopReason === 'aborted' || signal.aborted) return end('cancelled', 'the run was cancelled');
    if (response.stopReason === 'error' && isPromptTooLong(response.errorMessage) && window && !refusedAsTooLong) {
      // CTX-1: the provider counted more than the estimate did. Compact and try the call once more.
      refusedAsTooLong = true;
      window.shrinkAfterRefusal(window.tokensOf(requestMessages), refusalCounts(response.errorMessage));
      const failure = await compact('prompt_too_long', null);
      if (signal.aborted) return end('cancelled', 'the run was cancelled');
      if (failure) return end('failed', `the model refused the request as too long (${response.errorMessage}) and compaction could not make room: ${failure}`);
      continue;
    }
    if (response.stopReason === 'error') return end('failed', `model call failed: ${response.errorMessage ?? 'unknown error'}`);
    refusedAsTooLong = false;

    config.messages.push(response.message);
    emit({ type: 'assistant_message', message: response.message });
    const calls = response.message.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');

    if (calls.length > 0) {
      for (const call of calls) {
        emit({ type: 'tool_call_start', call });
        const started = performance.now();
        let result: ToolResult;
        let executed = false;
        if (signal.aborted) {
          result = { content: 'The run was cancelled before this call ran.', isError: true };
        } else if (!surfaced.has(call.name)) {
          // HAR-3: a forbidden tool is invisible, not merely refused; nothing runs.
          result = {
            content: `There is no tool named "${call.name}" here. Available tools: ${[...surfaced].sort().join(', ') || '(none)'}.`,
            isError: true,
          };
        } else {
          result = await config.executeTool(call, signal);
          executed = true;
        }
        emit({ type: 'tool_call_end', call, result, executed, durationMs: performance.now() - started });
        config.messages.push({ role: 'tool', toolCallId: call.id, content: result.content, isError: result.isError });
        if (config.completion && call.name === config.completion.outputVerb && executed && !result.isError) {
          verbDelivered = true;
          emit({ type: 'output_verb_delivered', toolName: call.name });
        }
        const key = callKey(call);
        repeats = key === lastKey ? repeats + 1 : 1;
        lastKey = key;
        if (repeats >= loopThreshold && !looping) {
          looping = true;
          emit({ type: 'looping_detected', toolName: call.name, repeats });
        } else if (repeats === 1 && looping) {
          looping = false;
          emit({ type: 'looping_cleared' });
        }
      }
      continue;
    }

    // The model stopped calling tools: the turn would end here.
    const steering = config.drainSteering();
    if (steering.length > 0) {
      for (const text of steering) {
        config.messages.push({ role: 'user', content: text });
        emit({ type: 'steering_injected', text });
      }
      continue;
    }
    if (config.completion && !verbDelivered && reminders < config.completion.maxReminders) {
      reminders += 1;
      config.messages.push({ role: 'user', content: config.completion.reminder });
      emit({ type: 'reminder_injected', text: config.completion.reminder, attempt: reminders });
      continue;
    }
    // RLY-9: the turn ends now. Steering is closed (later text is refused, not dropped) and what came
    // since the drain above still goes into this turn.
    const late = config.closeSteering?.() ?? [];
    if (late.length > 0) {
      for (const text of late) {
        config.messages.push({ role: 'user', content: text });
        emit({ type: 'steering_injected', text });
      }
      continue;
    }
    return end('completed', null, Boolean(config.completion && !verbDelivered));
  }
}
