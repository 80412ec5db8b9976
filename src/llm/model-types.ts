/**
 * The provider-neutral vocabulary every model provider speaks (HAR-2). The harness builds a
 * {@link ModelRequest}, calls a {@link StreamFn}, and folds the {@link ModelEvent}s it gets back;
 * it never learns which wire protocol was on the other end.
 */

/** A tool the model may call. `inputSchema` is a JSON schema object (for example from zod's `toJSONSchema`). */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** An image sent with a user message (TOOL-3): checked by its magic bytes before it got here. */
export interface PromptImage {
  /** `image/png`, `image/jpeg`, `image/webp` or `image/gif`. */
  mediaType: string;
  /** The bytes in base64. */
  data: string;
  /** The file's name as attached: what the placeholder of an elided image names (never sent as content). */
  name?: string;
}

/** Plain text the user (or the harness on the user's behalf) wrote, with the images they attached. */
export interface UserMessage {
  role: 'user';
  content: string;
  /** Sent before the text, as providers advise for images; absent or empty for a text-only message. */
  images?: PromptImage[];
}

/** A piece of text the model wrote. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** A tool call the model made; `input` is the parsed JSON object of arguments. */
export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/**
 * The model's reasoning. Anthropic requires thinking blocks to be sent back verbatim (with their
 * `signature`) while a tool-use cycle is in progress; `redactedData` carries an encrypted
 * `redacted_thinking` block. OpenAI-compatible reasoning (`reasoning_content`) has no signature.
 */
export interface ThinkingBlock {
  type: 'thinking';
  text: string;
  signature?: string;
  redactedData?: string;
}

export type AssistantContentBlock = TextBlock | ToolCallBlock | ThinkingBlock;

/** What the model said in one turn, blocks in the order it produced them. */
export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentBlock[];
}

/** The outcome of one tool call, fed back to the model. Tool failures are data (`isError`), not exceptions. */
export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  content: string;
  isError: boolean;
}

export type ModelMessage = UserMessage | AssistantMessage | ToolResultMessage;

/** One model call, independent of provider. */
export interface ModelRequest {
  /** The provider's model id, for example `claude-sonnet-5-5` or `gpt-5.4`. */
  model: string;
  system: string;
  messages: ModelMessage[];
  tools: ModelTool[];
  /** Upper bound on output tokens for the visible answer (see docs/model-providers.md for thinking budgets). */
  maxTokens: number;
  /** A word from the model's own effort vocabulary (`effortVocabulary()`); omitted = the provider's default. */
  effort?: string;
  temperature?: number;
}

/** Token counts for one model call. `inputTokens` excludes cache reads and cache writes on every provider. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * Why a stream ended. `error` and `aborted` are failures reported as data (convention 3):
 * a provider never throws once a stream has started.
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'error' | 'aborted';

export interface TextDeltaEvent {
  type: 'text_delta';
  text: string;
}

/** Streaming reasoning text, for display. The replayable block arrives as `thinking_complete`. */
export interface ThinkingDeltaEvent {
  type: 'thinking_delta';
  text: string;
}

/** A finished reasoning block, to be kept in the assistant message (Anthropic needs it back verbatim). */
export interface ThinkingCompleteEvent {
  type: 'thinking_complete';
  text: string;
  signature?: string;
  redactedData?: string;
}

/** A tool call, emitted once its JSON arguments are complete and parsed. */
export interface ToolCallEvent {
  type: 'tool_call';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** Cumulative usage for the call; emitted at most once, just before `done` (also after failures, when known). */
export interface UsageEvent extends ModelUsage {
  type: 'usage';
}

/** Always the last event of every stream. */
export interface DoneEvent {
  type: 'done';
  stopReason: StopReason;
  /** Set when `stopReason` is `error` or `aborted`: what happened, with HTTP status and the provider's own message. */
  errorMessage?: string;
  /** The HTTP status of a failed request, when there was one. */
  httpStatus?: number;
  /** True when trying the same request again may succeed (429, 5xx, 529, idle timeout, dropped connection). */
  retryable?: boolean;
}

export type ModelEvent =
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ThinkingCompleteEvent
  | ToolCallEvent
  | UsageEvent
  | DoneEvent;

/**
 * The one seam between the harness and a model: stream events for a request until `done`.
 * Implementations never throw after being called and always end with exactly one `done` event;
 * aborting `signal` ends the stream with `done { stopReason: 'aborted' }`.
 */
export type StreamFn = (request: ModelRequest, signal: AbortSignal) => AsyncIterable<ModelEvent>;

/**
 * How a model turns an effort word into request parameters:
 * - `anthropic-adaptive`: `thinking: {type: 'adaptive'}` + `output_config.effort` (Claude 4.6 and later);
 * - `anthropic-budget`: `thinking: {type: 'enabled', budget_tokens}` (Claude 4.5 and earlier);
 * - `openai-reasoning`: `reasoning_effort` on Chat Completions;
 * - `none`: the model has no effort setting.
 */
export type EffortStyle = 'anthropic-adaptive' | 'anthropic-budget' | 'openai-reasoning' | 'none';

/** What a provider needs to know about a model to shape a request. */
export interface ModelTraits {
  /** The model's effort vocabulary; empty = no effort setting. */
  efforts: readonly string[];
  effortStyle: EffortStyle;
  /** False where the API rejects sampling parameters (Claude Sonnet 5+, OpenAI reasoning models). */
  supportsTemperature: boolean;
  maxOutputTokens?: number;
}
