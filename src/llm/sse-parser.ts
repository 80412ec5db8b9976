/** One server-sent event: its `event:` name (null when the server named none) and its joined `data:` lines. */
export interface SseMessage {
  event: string | null;
  data: string;
}

/**
 * Above this many characters, one line or one event's data is refused. Model events are small deltas
 * (a whole `message_start` is a few KiB); only a broken or hostile server sends more without a line end.
 */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/** A stream that breaks the SSE framing rules we rely on (an endless line, an oversized event). */
export class SseFramingError extends Error {
  override readonly name = 'SseFramingError';
}

/**
 * A minimal server-sent events parser (the subset model APIs use: `event:`, `data:`, comments, blank
 * line = dispatch). Text goes in as it arrives, whole events come out through `onMessage`. Lines end in
 * `\n` or `\r\n`; `id:` and `retry:` mean nothing to a one-shot model stream and are ignored.
 */
export class SseParser {
  private pending = '';
  private event: string | null = null;
  private data: string | null = null;

  constructor(
    private readonly onMessage: (message: SseMessage) => void,
    private readonly maxEventChars: number = MAX_SSE_EVENT_CHARS,
  ) {}

  push(text: string): void {
    // Only the new text is searched for a line end, so a long line costs linear time, not quadratic.
    const first = text.indexOf('\n');
    if (first === -1) {
      this.pending += text;
      this.refuseLongLine();
      return;
    }
    const buffer = this.pending.length > 0 ? this.pending + text : text;
    let start = 0;
    let newline = first + buffer.length - text.length;
    while (newline !== -1) {
      const end = newline > start && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.line(buffer.slice(start, end));
      start = newline + 1;
      newline = buffer.indexOf('\n', start);
    }
    this.pending = buffer.slice(start);
    this.refuseLongLine();
  }

  private refuseLongLine(): void {
    if (this.pending.length <= this.maxEventChars) return;
    this.pending = '';
    throw new SseFramingError(`a server-sent event line is longer than ${this.maxEventChars} characters`);
  }

  /** The stream ended: an event the server never closed with a blank line is dropped, as the SDKs do (it may be cut short). */
  end(): void {
    this.pending = '';
    this.event = null;
    this.data = null;
  }

  private line(line: string): void {
    if (line.length === 0) {
      if (this.data !== null) {
        const message: SseMessage = { event: this.event, data: this.data };
        this.event = null;
        this.data = null;
        this.onMessage(message);
      } else {
        this.event = null;
      }
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' starts a comment (keep-alive pings on some servers)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.data = this.data === null ? value : `${this.data}\n${value}`;
      if (this.data.length > this.maxEventChars) {
        this.data = null;
        throw new SseFramingError(`a server-sent event is larger than ${this.maxEventChars} characters`);
      }
    } else if (field === 'event') {
      this.event = value;
    }
  }
}
