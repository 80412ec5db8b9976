import { StringDecoder } from 'node:string_decoder';

/** A line that was not a JSON object: reported, never thrown. */
export interface MalformedLine {
  line: string;
  error: string;
}

/**
 * Strict newline-delimited JSON framing for Claude Code's stream-json output: bytes are buffered
 * until a `\n` (a chunk may end mid-line, or mid-character: UTF-8 is decoded across chunks), each
 * complete line must parse as one JSON object, and anything else is a protocol error reported
 * through `onMalformed` — the stream goes on with the next line.
 */
export class NdjsonFramer {
  private buffer = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly onMessage: (message: Record<string, unknown>) => void,
    private readonly onMalformed: (malformed: MalformedLine) => void,
    /** A line longer than this (without a newline yet) is dropped as malformed. */
    private readonly maxLineLength = 64 * 1024 * 1024,
  ) {}

  push(chunk: Buffer | string): void {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      this.handle(line);
      newline = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > this.maxLineLength) {
      this.onMalformed({ line: `${this.buffer.slice(0, 200)}…`, error: `line longer than ${this.maxLineLength} characters` });
      this.buffer = '';
    }
  }

  /** The stream ended: a final line without its newline is still a line; a truncated one is malformed. */
  end(): void {
    this.buffer += this.decoder.end();
    if (this.buffer.trim() !== '') this.handle(this.buffer);
    this.buffer = '';
  }

  private handle(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.onMalformed({ line: line.slice(0, 2_000), error: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.onMalformed({ line: line.slice(0, 2_000), error: 'not a JSON object' });
      return;
    }
    this.onMessage(value as Record<string, unknown>);
  }
}
