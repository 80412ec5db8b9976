import type { ModelUsage } from './model-types.js';

/** The response shapes the model broker meters (SEC-6). */
export type MeteredWire = 'anthropic-messages' | 'openai-chat-completions' | 'openai-responses';

/** What one metered response reported: the model that answered and its token counts. */
export interface MeteredResponse {
  model: string | null;
  usage: Required<ModelUsage>;
}

/** A JSON body bigger than this is not parsed for usage (model answers are far smaller). */
const MAX_JSON_BYTES = 16 * 1024 * 1024;
/**
 * A server-sent event line longer than this is not kept to be metered (SEC-10): the stream itself
 * passes on regardless, and a line that never ends must not grow the meter's copy of it.
 */
const MAX_METERED_LINE_CHARS = 16 * 1024 * 1024;

type Json = Record<string, unknown>;

function record(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Reads token usage out of a model response while it streams past, without holding it back
 * (SEC-6: the broker forwards every byte as it arrives and meters on the side). Server-sent events
 * are parsed line by line; a plain JSON body is collected and parsed at the end.
 *
 * - Anthropic Messages: `message_start.message.usage`, then `message_delta.usage` (cumulative; the
 *   newest value of each field wins), or the JSON body's `usage`.
 * - OpenAI Chat Completions: the chunk (or body) carrying `usage` (`prompt_tokens` includes cached
 *   tokens, which are counted as cache reads, as the built-in provider does).
 * - OpenAI Responses: `response.completed`'s `response.usage`, or the body's `usage`.
 */
export class WireUsageMeter {
  private readonly streaming: boolean;
  private readonly decoder = new TextDecoder();
  private pending = '';
  /** The line being read is past {@link MAX_METERED_LINE_CHARS}: it is skipped up to its end. */
  private overlong = false;
  private jsonChunks: Buffer[] = [];
  private jsonBytes = 0;
  private model: string | null = null;
  private seen = false;
  private readonly usage: Required<ModelUsage> = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

  constructor(
    private readonly wire: MeteredWire,
    contentType: string | null,
  ) {
    this.streaming = (contentType ?? '').toLowerCase().includes('text/event-stream');
  }

  push(chunk: Uint8Array): void {
    if (!this.streaming) {
      this.jsonBytes += chunk.byteLength;
      if (this.jsonBytes <= MAX_JSON_BYTES) this.jsonChunks.push(Buffer.from(chunk));
      return;
    }
    // Only the new text is searched for line ends: a long line costs its length once, not once per chunk.
    const text = this.decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const line = this.pending + text.slice(start, newline);
      this.pending = '';
      if (this.overlong) this.overlong = false;
      else this.line(line);
      start = newline + 1;
    }
    if (!this.overlong) this.pending += text.slice(start);
    if (this.pending.length > MAX_METERED_LINE_CHARS) {
      this.pending = '';
      this.overlong = true;
    }
  }

  /** The usage the response reported, or null when it reported none. */
  end(): MeteredResponse | null {
    if (this.streaming) {
      if (!this.overlong) this.pending += this.decoder.decode();
      if (this.pending) this.line(this.pending);
      this.pending = '';
    } else if (this.jsonBytes <= MAX_JSON_BYTES && this.jsonBytes > 0) {
      try {
        this.body(JSON.parse(Buffer.concat(this.jsonChunks).toString('utf8')));
      } catch {
        // Not JSON (an HTML error page, a truncated body): nothing to meter.
      }
      this.jsonChunks = [];
    }
    return this.seen ? { model: this.model, usage: { ...this.usage } } : null;
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (!data || data === '[DONE]') return;
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    this.event(record(event));
  }

  private event(event: Json | null): void {
    if (!event) return;
    if (this.wire === 'anthropic-messages') {
      if (event.type === 'message_start') this.body(event.message);
      else if (event.type === 'message_delta') this.anthropicUsage(record(event.usage));
    } else if (this.wire === 'openai-chat-completions') {
      this.body(event);
    } else if (typeof event.type === 'string' && event.type.startsWith('response.')) {
      this.body(event.response);
    }
  }

  /** A whole message / completion / response object (non-streaming, or embedded in an event). */
  private body(value: unknown): void {
    const body = record(value);
    if (!body) return;
    if (typeof body.model === 'string' && body.model) this.model = body.model;
    const usage = record(body.usage);
    if (!usage) return;
    if (this.wire === 'anthropic-messages') this.anthropicUsage(usage);
    else if (this.wire === 'openai-chat-completions') {
      const cached = count(record(usage.prompt_tokens_details)?.cached_tokens) ?? count(usage.prompt_cache_hit_tokens) ?? 0;
      this.set(Math.max(0, (count(usage.prompt_tokens) ?? 0) - cached), count(usage.completion_tokens), cached, undefined);
    } else {
      const cached = count(record(usage.input_tokens_details)?.cached_tokens) ?? 0;
      this.set(Math.max(0, (count(usage.input_tokens) ?? 0) - cached), count(usage.output_tokens), cached, undefined);
    }
  }

  private anthropicUsage(usage: Json | null): void {
    if (!usage) return;
    this.set(count(usage.input_tokens), count(usage.output_tokens), count(usage.cache_read_input_tokens), count(usage.cache_creation_input_tokens));
  }

  /** The newest report of each field wins (Anthropic's deltas are cumulative, OpenAI reports once). */
  private set(input: number | undefined, output: number | undefined, cacheRead: number | undefined, cacheWrite: number | undefined): void {
    if (input === undefined && output === undefined && cacheRead === undefined && cacheWrite === undefined) return;
    this.seen = true;
    if (input !== undefined) this.usage.inputTokens = input;
    if (output !== undefined) this.usage.outputTokens = output;
    if (cacheRead !== undefined) this.usage.cacheReadTokens = cacheRead;
    if (cacheWrite !== undefined) this.usage.cacheWriteTokens = cacheWrite;
  }
}
