/**
 * The script language of the scripted model server: `reply().text('…').tool('read', {path})`.
 * A reply is protocol-neutral; the server renders it as Anthropic Messages, OpenAI Chat
 * Completions or OpenAI Responses depending on which endpoint the request hit.
 */

export type ScriptedProtocol = 'anthropic' | 'openai' | 'openai-responses';

/** Stop reasons in Anthropic's words; the OpenAI renderer maps them to `finish_reason`. */
export type ScriptedStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';

export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool'; name: string; input: Record<string, unknown>; id?: string };

export interface ScriptedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** How a reply ends, when not normally. */
export type ScriptedEnding =
  | { kind: 'normal' }
  /** Send what was scripted (nothing at all when no content was scripted), then never finish. */
  | { kind: 'hang' }
  /** Send what was scripted, then destroy the socket (a connection reset). */
  | { kind: 'disconnect' }
  /** Send what was scripted, then a truncated JSON event, then end the response. */
  | { kind: 'malformed' }
  /** Send what was scripted, then an in-stream error event (Anthropic `event: error`, OpenAI `data: {"error": …}`). */
  | { kind: 'stream_error'; message: string; errorType: string };

export interface ScriptedHttpError {
  status: number;
  message: string;
  errorType?: string;
  retryAfterMs?: number;
}

/** A fully static reply, ready to render. */
export interface ReplySpec {
  blocks: ScriptedBlock[];
  usage: ScriptedUsage;
  stopReason?: ScriptedStopReason;
  error?: ScriptedHttpError;
  ending: ScriptedEnding;
  /** Delay before each streamed chunk (and before a non-streaming body). 0 = everything in one write. */
  slowMs: number;
  /** Characters per streamed text/JSON delta. */
  chunkSize: number;
  /** OpenAI only: interleave the argument chunks of parallel tool calls. */
  interleaveToolCalls: boolean;
}

/** A tool result the model is being shown, normalized across protocols. */
export interface ScriptedToolResult {
  toolCallId: string;
  content: string;
  isError: boolean;
}

/** One request as the server received it, with protocol-neutral views for dynamic replies and assertions. */
export interface ScriptedRequest {
  /** Position in `server.requests`. */
  index: number;
  protocol: ScriptedProtocol;
  method: string;
  /** Path including any query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body (null when it did not parse). */
  body: Record<string, unknown> | null;
  model: string;
  stream: boolean;
  /** The system prompt as plain text (Anthropic `system`, OpenAI system/developer messages). */
  system: string;
  /** Text of the newest user message that has text. */
  lastUserText: string | undefined;
  /** Tool results sent after the newest assistant turn (what the model is reacting to now). */
  toolResults: ScriptedToolResult[];
  /** The last of `toolResults`. */
  lastToolResult: ScriptedToolResult | undefined;
  /** Names of the tools offered to the model. */
  toolNames: string[];
  /** System prompt plus all message text: what string matchers of `scriptFor` look in. */
  allText: string;
  /** False when no reply was scripted for it (it got the "no reply scripted" text). */
  scripted: boolean;
  /** The conversation (`scriptFor`) that answered it, if any. */
  conversation: string | undefined;
  receivedAt: number;
  /** With the server's `promptCache`: the tokens this request repeated of a recent one (reported as cache reads). */
  cacheReadTokens?: number;
}

export type DynamicReply = (request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>;

/** Builder for one model reply. Every method returns the builder. */
export class ScriptedReply {
  /** @internal */
  readonly spec: ReplySpec = {
    blocks: [],
    usage: {},
    ending: { kind: 'normal' },
    slowMs: 0,
    chunkSize: 16,
    interleaveToolCalls: false,
  };

  constructor(readonly dynamic?: DynamicReply) {}

  /** Adds a text block (consecutive calls make separate blocks). */
  text(text: string): this {
    this.spec.blocks.push({ type: 'text', text });
    return this;
  }

  /** Adds a reasoning block (Anthropic `thinking` with a signature; OpenAI `reasoning_content`). */
  thinking(text: string): this {
    this.spec.blocks.push({ type: 'thinking', text });
    return this;
  }

  /** Adds a tool call; several make parallel calls. The id defaults to a fresh `toolu_…`/`call_…`. */
  tool(name: string, input: Record<string, unknown> = {}, options: { id?: string } = {}): this {
    this.spec.blocks.push({ type: 'tool', name, input, ...(options.id ? { id: options.id } : {}) });
    return this;
  }

  /** Reported token usage; unspecified counts are estimated from the request and reply (chars / 4). */
  usage(usage: ScriptedUsage): this {
    Object.assign(this.spec.usage, usage);
    return this;
  }

  /** Overrides the stop reason (default: `tool_use` when the reply has tool calls, else `end_turn`). */
  stopReason(stopReason: ScriptedStopReason): this {
    this.spec.stopReason = stopReason;
    return this;
  }

  /** Answers with an HTTP error in the protocol's own error format instead of a message. */
  error(status: number, message: string, options: { type?: string; retryAfterMs?: number } = {}): this {
    this.spec.error = {
      status,
      message,
      ...(options.type ? { errorType: options.type } : {}),
      ...(options.retryAfterMs !== undefined ? { retryAfterMs: options.retryAfterMs } : {}),
    };
    return this;
  }

  /** Never finishes: with no content scripted, not even headers are sent. Released when the server closes. */
  hang(): this {
    this.spec.ending = { kind: 'hang' };
    return this;
  }

  /** Streams what was scripted, then resets the connection. */
  disconnect(): this {
    this.spec.ending = { kind: 'disconnect' };
    return this;
  }

  /** Streams what was scripted, then an event whose JSON is cut off, then ends the response. */
  malformed(): this {
    this.spec.ending = { kind: 'malformed' };
    return this;
  }

  /** Streams what was scripted, then an in-stream error event (as Anthropic does when overloaded mid-stream). */
  streamError(message: string, type = 'overloaded_error'): this {
    this.spec.ending = { kind: 'stream_error', message, errorType: type };
    return this;
  }

  /** Waits this long before each streamed chunk. */
  slow(msPerChunk: number): this {
    this.spec.slowMs = msPerChunk;
    return this;
  }

  /** Characters per text or JSON delta (default 16). */
  chunkSize(characters: number): this {
    this.spec.chunkSize = Math.max(1, characters);
    return this;
  }

  /** OpenAI only: interleaves the argument deltas of parallel tool calls (tests accumulation by index). */
  interleaved(): this {
    this.spec.interleaveToolCalls = true;
    return this;
  }
}

/**
 * Starts a reply. With a function, the reply is decided when the request arrives:
 * `reply((request) => request.lastToolResult?.isError ? reply().text('retrying') : reply().text('done'))`.
 */
export function reply(dynamic?: DynamicReply): ScriptedReply {
  return new ScriptedReply(dynamic);
}
