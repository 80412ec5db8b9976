import OpenAI from 'openai';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionFunctionTool,
} from 'openai/resources/chat/completions/completions.js';
import type { DoneEvent, ModelEvent, ModelMessage, ModelRequest, ModelTraits, StreamFn } from './model-types.js';
import { modelEndpoint, ModelStreamError, parseEventData } from './model-http-stream.js';
import { failureDone, watchdogDone } from './provider-failure.js';
import { cachedSdkClient } from './sdk-client-cache.js';
import type { SseMessage } from './sse-parser.js';
import { DEFAULT_IDLE_TIMEOUT_MS, StreamWatchdog, watchedFetch } from './stream-watchdog.js';

export interface OpenAIProviderOptions {
  /** Bearer key; local servers (Ollama, vLLM, llama.cpp) usually need none. */
  apiKey?: string;
  /** Including `/v1`, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Names the provider in error messages ("DeepSeek API error: HTTP 402 …"). Default `OpenAI`. */
  providerLabel?: string;
  /** No response bytes for this long ends the stream with an error. Default 120 s. */
  idleTimeoutMs?: number;
  /** SDK retries before the stream starts (429, 5xx, connection errors). Default 2. */
  maxRetries?: number;
  /** OpenAI itself wants `max_completion_tokens` (reasoning models reject `max_tokens`); most compatible servers want `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Send `stream_options: {include_usage: true}`. Default true. */
  includeUsage?: boolean;
  /** Send reasoning back as `reasoning_content` on assistant turns (DeepSeek requires it during tool use). */
  replayReasoningContent?: boolean;
  /** Model traits; unknown models get their effort passed through as `reasoning_effort` unchecked. */
  traitsFor?: (modelId: string) => ModelTraits | undefined;
  /** A fetch to send requests with instead of the built-in HTTP client: the call then goes through the OpenAI SDK. */
  fetch?: typeof fetch;
  defaultHeaders?: Record<string, string>;
}

/** Neutral messages → Chat Completions messages (system first, tool results as `role: tool`). */
export function toOpenAIMessages(system: string, messages: ModelMessage[], replayReasoningContent: boolean): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'user') {
      // TOOL-3: attached images as data-URL image parts before the text.
      const images = message.images ?? [];
      if (images.length === 0) out.push({ role: 'user', content: message.content });
      else
        out.push({
          role: 'user',
          content: [...images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mediaType};base64,${image.data}` } })), ...(message.content ? [{ type: 'text' as const, text: message.content }] : [])],
        });
    } else if (message.role === 'tool') {
      // Chat Completions has no error flag on tool results; say it in the content.
      const content = message.isError && !/^error\b/i.test(message.content) ? `Error: ${message.content}` : message.content;
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content });
    } else {
      const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      const reasoning = message.content.flatMap((block) => (block.type === 'thinking' && block.text ? [block.text] : [])).join('\n');
      const toolCalls = message.content.flatMap((block) =>
        block.type === 'tool_call' ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }] : [],
      );
      if (!text && toolCalls.length === 0) continue;
      const assistant: ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
        role: 'assistant',
        content: text || null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        ...(replayReasoningContent && reasoning ? { reasoning_content: reasoning } : {}),
      };
      out.push(assistant);
    }
  }
  return out;
}

function effortParams(request: ModelRequest, traits: ModelTraits | undefined): { reasoning_effort?: string; useTemperature: boolean } | string {
  const { effort } = request;
  if (!traits) {
    return { ...(effort ? { reasoning_effort: effort } : {}), useTemperature: effort === undefined };
  }
  if (effort !== undefined && !traits.efforts.includes(effort)) {
    return traits.efforts.length === 0
      ? `model ${request.model} has no effort setting (got effort '${effort}')`
      : `effort '${effort}' is not valid for model ${request.model}; use one of ${traits.efforts.join(', ')}`;
  }
  const reasoning = effort !== undefined && traits.effortStyle === 'openai-reasoning';
  return { ...(reasoning ? { reasoning_effort: effort } : {}), useTemperature: traits.supportsTemperature && !reasoning };
}

interface PendingToolCall {
  id: string;
  name: string;
  args: string;
}

function mapFinishReason(reason: string, sawToolCalls: boolean, label: string): Pick<DoneEvent, 'stopReason' | 'errorMessage'> {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return { stopReason: 'tool_use' };
    case 'length':
      return { stopReason: 'max_tokens' };
    case 'content_filter':
      return { stopReason: 'error', errorMessage: `${label}: the response was stopped by the content filter (finish_reason content_filter)` };
    default:
      // Some servers (older Ollama) report `stop` even when the turn ends in tool calls.
      return { stopReason: sawToolCalls ? 'tool_use' : 'end_turn' };
  }
}

/**
 * Chat Completions chunks from raw server-sent events, as the SDK reads them: everything after
 * `[DONE]` ignored (the rest is still read, so the connection can be kept), a chunk carrying `error`
 * thrown, `thread.*` events (Assistants) skipped but for their `error`.
 */
async function* chatCompletionChunks(messages: AsyncIterable<SseMessage>): AsyncGenerator<ChatCompletionChunk> {
  let done = false;
  for await (const message of messages) {
    if (done) continue;
    if (message.data.startsWith('[DONE]')) {
      done = true;
      continue;
    }
    const data = parseEventData(message) as { error?: unknown; message?: unknown } | null;
    const thread = message.event?.startsWith('thread.') ?? false;
    if (!thread && data?.error) throw new ModelStreamError(data.error, 'error in the stream');
    if (thread) {
      if (message.event === 'error') throw new ModelStreamError(data?.error, typeof data?.message === 'string' ? data.message : 'error in the stream');
      continue;
    }
    yield data as ChatCompletionChunk;
  }
}

/**
 * A {@link StreamFn} over OpenAI-compatible Chat Completions (OpenAI, DeepSeek, xAI, Ollama,
 * vLLM, llama.cpp). Tool calls are accumulated by index and emitted once the turn finishes.
 * Never throws once called: every failure is a final `done` event.
 */
export function createOpenAIStreamFn(options: OpenAIProviderOptions): StreamFn {
  const label = options.providerLabel ?? 'OpenAI';
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const includeUsage = options.includeUsage ?? true;
  const maxTokensField = options.maxTokensField ?? 'max_tokens';
  const clientConfig = {
    apiKey: options.apiKey || 'not-needed',
    baseURL: options.baseUrl,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: options.maxRetries ?? 2,
    ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
  };
  // Built on first use, then shared by every call with this configuration.
  const client = () => cachedSdkClient('openai', clientConfig, options.fetch, () => new OpenAI({ ...clientConfig, fetch: watchedFetch(options.fetch), logLevel: 'off' }));
  // Without a custom fetch the SDK is skipped: one POST on a kept-alive connection, its events parsed here.
  const endpoint = modelEndpoint(
    clientConfig.baseURL,
    '/chat/completions',
    // The SDK's headers: JSON and the key as a bearer token (a placeholder one for keyless local servers, as the SDK sends).
    { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${clientConfig.apiKey}` },
    options.defaultHeaders,
    clientConfig.maxRetries,
  );
  const openStream = async (params: ChatCompletionCreateParamsStreaming, watchdog: StreamWatchdog): Promise<AsyncIterable<ChatCompletionChunk>> =>
    options.fetch
      ? ((await client().chat.completions.create(params, { signal: watchdog.signal, fetchOptions: watchdog.fetchOptions() })) as AsyncIterable<ChatCompletionChunk>)
      : chatCompletionChunks(await endpoint(params, watchdog));

  return async function* openAIStream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const watchdog = new StreamWatchdog(signal, idleTimeoutMs);
    let usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number } | undefined;
    const usageEvent = (): ModelEvent[] => (usage ? [{ type: 'usage', ...usage }] : []);
    try {
      const effort = effortParams(request, options.traitsFor?.(request.model));
      if (typeof effort === 'string') {
        yield { type: 'done', stopReason: 'error', errorMessage: `${label} request rejected before sending: ${effort}` };
        return;
      }
      const early = watchdogDone(label, watchdog);
      if (early) {
        yield early;
        return;
      }
      const tools: ChatCompletionFunctionTool[] = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }));
      const params = {
        model: request.model,
        messages: toOpenAIMessages(request.system, request.messages, options.replayReasoningContent ?? false),
        stream: true,
        [maxTokensField]: request.maxTokens,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
        ...(tools.length > 0 ? { tools } : {}),
        ...(effort.reasoning_effort ? { reasoning_effort: effort.reasoning_effort } : {}),
        ...(request.temperature !== undefined && effort.useTemperature ? { temperature: request.temperature } : {}),
      } as ChatCompletionCreateParamsStreaming;

      const stream = await openStream(params, watchdog);

      const calls = new Map<number, PendingToolCall>();
      let reasoningText = '';
      let reasoningOpen = false;
      let finishReason: string | undefined;
      for await (const chunk of stream) {
        const out: ModelEvent[] = [];
        const closeReasoning = () => {
          if (!reasoningOpen) return;
          reasoningOpen = false;
          out.push({ type: 'thinking_complete', text: reasoningText });
          reasoningText = '';
        };
        if (chunk.usage) {
          const raw = chunk.usage as ChatCompletionChunk['usage'] & { prompt_cache_hit_tokens?: number };
          const cached = raw?.prompt_tokens_details?.cached_tokens ?? raw?.prompt_cache_hit_tokens ?? 0;
          usage = {
            inputTokens: Math.max(0, (raw?.prompt_tokens ?? 0) - cached),
            outputTokens: raw?.completion_tokens ?? 0,
            cacheReadTokens: cached,
          };
        }
        const choice = chunk.choices?.[0];
        if (choice) {
          const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown };
          const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : typeof delta.reasoning === 'string' ? delta.reasoning : '';
          if (reasoning) {
            reasoningOpen = true;
            reasoningText += reasoning;
            out.push({ type: 'thinking_delta', text: reasoning });
          }
          if (typeof delta.content === 'string' && delta.content) {
            closeReasoning();
            out.push({ type: 'text_delta', text: delta.content });
          }
          for (const call of delta.tool_calls ?? []) {
            closeReasoning();
            const index = call.index ?? calls.size;
            const pending = calls.get(index) ?? { id: '', name: '', args: '' };
            calls.set(index, pending);
            if (call.id && !pending.id) pending.id = call.id;
            if (call.function?.name && !pending.name) pending.name = call.function.name;
            const args: unknown = call.function?.arguments;
            if (typeof args === 'string') pending.args += args;
            else if (args && typeof args === 'object') pending.args += JSON.stringify(args);
          }
          if (choice.finish_reason) {
            closeReasoning();
            finishReason = choice.finish_reason;
          }
        }
        for (const modelEvent of out) {
          watchdog.pause();
          yield modelEvent;
          watchdog.resume();
        }
      }
      const cutShort = watchdogDone(label, watchdog);
      if (cutShort) {
        yield* usageEvent();
        yield cutShort;
        return;
      }
      if (!finishReason) {
        yield* usageEvent();
        yield { type: 'done', stopReason: 'error', errorMessage: `${label} stream ended without a finish_reason (the connection closed early)`, retryable: true };
        return;
      }
      const ordered = [...calls.entries()].sort(([left], [right]) => left - right);
      for (const [index, call] of ordered) {
        let input: unknown;
        try {
          input = call.args.trim() === '' ? {} : JSON.parse(call.args);
        } catch (error) {
          yield* usageEvent();
          yield {
            type: 'done',
            stopReason: 'error',
            errorMessage: `${label} sent malformed JSON arguments for tool call ${call.name || `#${index}`}: ${(error as Error).message}`,
            retryable: true,
          };
          return;
        }
        if (!call.name) {
          yield* usageEvent();
          yield { type: 'done', stopReason: 'error', errorMessage: `${label} sent tool call #${index} without a function name`, retryable: true };
          return;
        }
        const parsed = input === null ? {} : typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : { value: input };
        const id = call.id || `call_${index}_${Math.random().toString(36).slice(2, 12)}`;
        yield { type: 'tool_call', id, name: call.name, input: parsed };
      }
      yield* usageEvent();
      yield { type: 'done', ...mapFinishReason(finishReason, calls.size > 0, label) };
    } catch (error) {
      yield* usageEvent();
      yield failureDone(label, error, watchdog);
    } finally {
      watchdog.dispose();
    }
  };
}
