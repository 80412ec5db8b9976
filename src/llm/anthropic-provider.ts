import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages.js';
import type { DoneEvent, ModelEvent, ModelMessage, ModelRequest, ModelTraits, StreamFn } from './model-types.js';
import { anthropicMessagesJson, toAnthropicMessages } from './anthropic-message-turns.js';
import { modelEndpoint, ModelStreamError, parseEventData } from './model-http-stream.js';
import { failureDone, watchdogDone } from './provider-failure.js';
import { cachedSdkClient } from './sdk-client-cache.js';
import type { SseMessage } from './sse-parser.js';
import { DEFAULT_IDLE_TIMEOUT_MS, StreamWatchdog, watchedFetch } from './stream-watchdog.js';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Without `/v1` (the SDK appends `/v1/messages`), e.g. `https://api.anthropic.com`. */
  baseUrl?: string;
  /** No response bytes for this long ends the stream with an error. Default 120 s. */
  idleTimeoutMs?: number;
  /** SDK retries before the stream starts (429, 5xx, 529, connection errors). Default 2. */
  maxRetries?: number;
  /** Mark the system prompt and the newest message as prompt-cache breakpoints. Default true. */
  promptCaching?: boolean;
  /** Model traits (effort style, temperature support); unknown models get {@link DEFAULT_ANTHROPIC_TRAITS}. */
  traitsFor?: (modelId: string) => ModelTraits | undefined;
  /** A fetch to send requests with instead of the built-in HTTP client: the call then goes through the Anthropic SDK. */
  fetch?: typeof fetch;
  defaultHeaders?: Record<string, string>;
}

/** The Messages API version this client speaks (the one the SDK in package.json sends). */
export const ANTHROPIC_API_VERSION = '2026-10-21';

/** What an Anthropic model id the catalog does not know is assumed to be: a current adaptive-thinking Claude. */
export const DEFAULT_ANTHROPIC_TRAITS: ModelTraits = {
  efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
  effortStyle: 'anthropic-adaptive',
  supportsTemperature: false,
};

/**
 * Thinking budgets for models that take `thinking: {type: 'enabled', budget_tokens}` (Claude 4.5
 * and earlier). The budget is added on top of the request's `maxTokens`, so the visible answer
 * keeps the room the caller asked for; the sum is clamped to the model's output limit.
 */
export const ANTHROPIC_THINKING_BUDGETS: Readonly<Record<string, number>> = { low: 2_048, medium: 8_192, high: 24_576 };

const PROVIDER_LABEL = 'Anthropic';

type ThinkingParams = Pick<MessageCreateParamsStreaming, 'thinking' | 'output_config' | 'max_tokens'>;

function thinkingParams(request: ModelRequest, traits: ModelTraits): ThinkingParams | string {
  const { effort } = request;
  if (effort !== undefined && !traits.efforts.includes(effort)) {
    return traits.efforts.length === 0
      ? `model ${request.model} has no effort setting (got effort '${effort}')`
      : `effort '${effort}' is not valid for model ${request.model}; use one of ${traits.efforts.join(', ')}`;
  }
  const clamp = (tokens: number) => (traits.maxOutputTokens ? Math.min(tokens, traits.maxOutputTokens) : tokens);
  switch (traits.effortStyle) {
    case 'anthropic-adaptive':
      // `display: summarized` keeps the progress notes newer models write between tool calls visible.
      return {
        max_tokens: clamp(request.maxTokens),
        thinking: { type: 'adaptive', display: 'summarized' },
        ...(effort ? { output_config: { effort: effort as 'low' | 'medium' | 'high' | 'xhigh' | 'max' } } : {}),
      };
    case 'anthropic-budget': {
      const requested = effort ? ANTHROPIC_THINKING_BUDGETS[effort] : undefined;
      if (!requested) return { max_tokens: clamp(request.maxTokens) };
      const maxTokens = clamp(request.maxTokens + requested);
      const budget = Math.min(requested, maxTokens - 1);
      if (budget < 1_024) return { max_tokens: maxTokens };
      return { max_tokens: maxTokens, thinking: { type: 'enabled', budget_tokens: budget } };
    }
    default:
      return { max_tokens: clamp(request.maxTokens) };
  }
}

/** A request's parameters but for `messages`, which each path builds its own way (objects for the SDK, cached JSON for the wire). */
type ParamsWithoutMessages = Omit<MessageCreateParamsStreaming, 'messages'>;

function buildParams(request: ModelRequest, traits: ModelTraits, promptCaching: boolean): ParamsWithoutMessages | string {
  const thinking = thinkingParams(request, traits);
  if (typeof thinking === 'string') return thinking;
  const tools = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as { type: 'object'; [key: string]: unknown },
  }));
  const system: TextBlockParam[] | undefined = request.system
    ? [{ type: 'text', text: request.system, ...(promptCaching ? { cache_control: { type: 'ephemeral' as const } } : {}) }]
    : undefined;
  if (!system && promptCaching && tools.length > 0) {
    const lastTool = tools.at(-1) as (typeof tools)[number] & { cache_control?: { type: 'ephemeral' } };
    lastTool.cache_control = { type: 'ephemeral' };
  }
  return {
    model: request.model,
    stream: true,
    ...thinking,
    ...(system ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    // Sampling parameters are rejected alongside thinking.
    ...(request.temperature !== undefined && !thinking.thinking && traits.supportsTemperature ? { temperature: request.temperature } : {}),
  };
}

function mapStopReason(reason: string | null | undefined, sawToolCall: boolean): Pick<DoneEvent, 'stopReason' | 'errorMessage'> {
  switch (reason) {
    case 'tool_use':
      return { stopReason: sawToolCall ? 'tool_use' : 'end_turn' };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { stopReason: 'max_tokens' };
    case 'refusal':
      return { stopReason: 'error', errorMessage: 'Anthropic: the model declined to answer (stop_reason refusal)' };
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return { stopReason: 'end_turn' };
    default:
      return { stopReason: sawToolCall ? 'tool_use' : 'end_turn' };
  }
}

interface OpenBlock {
  kind: 'text' | 'thinking' | 'redacted_thinking' | 'tool_use' | 'other';
  text: string;
  signature?: string;
  id?: string;
  name?: string;
}

/**
 * The Messages stream's events from raw server-sent events, as the SDK reads them: pings and unnamed
 * events skipped, an `error` event thrown (retryable by its type), every other event's data parsed.
 */
async function* messageStreamEvents(messages: AsyncIterable<SseMessage>): AsyncGenerator<RawMessageStreamEvent> {
  for await (const message of messages) {
    if (message.event === 'ping' || message.event === null) continue;
    if (message.event === 'error') {
      let body: unknown = message.data;
      try {
        body = JSON.parse(message.data);
      } catch {
        // Not JSON: the text itself is the message.
      }
      throw new ModelStreamError(body, 'error event in the stream');
    }
    if (!message.data) continue;
    yield parseEventData(message) as RawMessageStreamEvent;
  }
}

/**
 * A {@link StreamFn} over the Anthropic Messages API (streaming). Never throws: HTTP errors,
 * malformed events, dropped connections, idle timeouts and aborts end in a `done` event.
 */
export function createAnthropicStreamFn(options: AnthropicProviderOptions): StreamFn {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const promptCaching = options.promptCaching ?? true;
  const clientConfig = {
    apiKey: options.apiKey,
    baseURL: options.baseUrl ?? 'https://api.anthropic.com',
    maxRetries: options.maxRetries ?? 2,
    ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
  };
  // Built on first use, then shared by every call with this configuration.
  const client = () => cachedSdkClient('anthropic', clientConfig, options.fetch, () => new Anthropic({ ...clientConfig, fetch: watchedFetch(options.fetch), logLevel: 'off' }));
  // Without a custom fetch the SDK is skipped: one POST on a kept-alive connection, its events parsed here.
  const endpoint = modelEndpoint(
    clientConfig.baseURL,
    '/v1/messages',
    // The SDK's headers: JSON, the API version and the key as a bearer token.
    { accept: 'application/json', 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_API_VERSION, ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
    options.defaultHeaders,
    clientConfig.maxRetries,
  );
  const openStream = async (params: ParamsWithoutMessages, messages: ModelMessage[], watchdog: StreamWatchdog): Promise<AsyncIterable<RawMessageStreamEvent>> => {
    if (options.fetch) {
      const sdkParams = { ...params, messages: toAnthropicMessages(messages, promptCaching) };
      return (await client().messages.create(sdkParams, { signal: watchdog.signal, fetchOptions: watchdog.fetchOptions() })) as AsyncIterable<RawMessageStreamEvent>;
    }
    const head = JSON.stringify(params);
    return messageStreamEvents(await endpoint(`${head.slice(0, -1)},"messages":${anthropicMessagesJson(messages, promptCaching)}}`, watchdog));
  };

  return async function* anthropicStream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const watchdog = new StreamWatchdog(signal, idleTimeoutMs);
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let sawUsage = false;
    const usageEvent = (): ModelEvent[] => (sawUsage ? [{ type: 'usage', ...usage }] : []);
    try {
      const params = buildParams(request, options.traitsFor?.(request.model) ?? DEFAULT_ANTHROPIC_TRAITS, promptCaching);
      if (typeof params === 'string') {
        yield { type: 'done', stopReason: 'error', errorMessage: `Anthropic request rejected before sending: ${params}` };
        return;
      }
      const early = watchdogDone(PROVIDER_LABEL, watchdog);
      if (early) {
        yield early;
        return;
      }
      const stream = await openStream(params, request.messages, watchdog);

      const blocks = new Map<number, OpenBlock>();
      let stopReasonRaw: string | null | undefined;
      let sawToolCall = false;
      let sawMessageStop = false;
      for await (const event of stream) {
        const out: ModelEvent[] = [];
        switch (event.type) {
          case 'message_start': {
            const start = event.message.usage;
            usage.inputTokens = start.input_tokens ?? 0;
            usage.outputTokens = start.output_tokens ?? 0;
            usage.cacheReadTokens = start.cache_read_input_tokens ?? 0;
            usage.cacheWriteTokens = start.cache_creation_input_tokens ?? 0;
            sawUsage = true;
            break;
          }
          case 'content_block_start': {
            const block = event.content_block;
            if (block.type === 'text') {
              blocks.set(event.index, { kind: 'text', text: block.text });
              if (block.text) out.push({ type: 'text_delta', text: block.text });
            } else if (block.type === 'thinking') {
              blocks.set(event.index, { kind: 'thinking', text: block.thinking, signature: block.signature || undefined });
              if (block.thinking) out.push({ type: 'thinking_delta', text: block.thinking });
            } else if (block.type === 'redacted_thinking') {
              blocks.set(event.index, { kind: 'redacted_thinking', text: block.data });
            } else if (block.type === 'tool_use') {
              blocks.set(event.index, { kind: 'tool_use', text: '', id: block.id, name: block.name });
            } else {
              blocks.set(event.index, { kind: 'other', text: '' });
            }
            break;
          }
          case 'content_block_delta': {
            const block = blocks.get(event.index);
            const delta = event.delta;
            if (delta.type === 'text_delta') {
              if (block) block.text += delta.text;
              out.push({ type: 'text_delta', text: delta.text });
            } else if (delta.type === 'thinking_delta') {
              if (block) block.text += delta.thinking;
              out.push({ type: 'thinking_delta', text: delta.thinking });
            } else if (delta.type === 'signature_delta') {
              if (block) block.signature = (block.signature ?? '') + delta.signature;
            } else if (delta.type === 'input_json_delta') {
              if (block) block.text += delta.partial_json;
            }
            break;
          }
          case 'content_block_stop': {
            const block = blocks.get(event.index);
            blocks.delete(event.index);
            if (block?.kind === 'tool_use') {
              let input: unknown;
              try {
                input = block.text.trim() === '' ? {} : JSON.parse(block.text);
              } catch (error) {
                yield* usageEvent();
                yield {
                  type: 'done',
                  stopReason: 'error',
                  errorMessage: `Anthropic sent malformed JSON input for tool call ${block.name} (${block.id}): ${(error as Error).message}`,
                  retryable: true,
                };
                return;
              }
              const parsed = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : { value: input };
              sawToolCall = true;
              out.push({ type: 'tool_call', id: block.id ?? '', name: block.name ?? '', input: parsed });
            } else if (block?.kind === 'thinking') {
              out.push({ type: 'thinking_complete', text: block.text, ...(block.signature ? { signature: block.signature } : {}) });
            } else if (block?.kind === 'redacted_thinking') {
              out.push({ type: 'thinking_complete', text: '', redactedData: block.text });
            }
            break;
          }
          case 'message_delta': {
            stopReasonRaw = event.delta.stop_reason;
            const delta = event.usage;
            if (delta.output_tokens != null) usage.outputTokens = delta.output_tokens;
            if (delta.input_tokens != null) usage.inputTokens = delta.input_tokens;
            if (delta.cache_read_input_tokens != null) usage.cacheReadTokens = delta.cache_read_input_tokens;
            if (delta.cache_creation_input_tokens != null) usage.cacheWriteTokens = delta.cache_creation_input_tokens;
            sawUsage = true;
            break;
          }
          case 'message_stop':
            sawMessageStop = true;
            break;
        }
        for (const modelEvent of out) {
          watchdog.pause();
          yield modelEvent;
          watchdog.resume();
        }
      }
      yield* usageEvent();
      const cutShort = watchdogDone(PROVIDER_LABEL, watchdog);
      if (cutShort) {
        yield cutShort;
      } else if (!sawMessageStop) {
        yield {
          type: 'done',
          stopReason: 'error',
          errorMessage: 'Anthropic stream ended before message_stop (the connection closed early)',
          retryable: true,
        };
      } else {
        yield { type: 'done', ...mapStopReason(stopReasonRaw, sawToolCall) };
      }
    } catch (error) {
      yield* usageEvent();
      yield failureDone(PROVIDER_LABEL, error, watchdog);
    } finally {
      watchdog.dispose();
    }
  };
}
