import type { WorkspaceEvent } from '../schemas/events.js';
import type { ApiClient } from './api-client.js';

/** How often, and how many times, a dropped stream is reopened before the CLI gives up. */
const RECONNECT_DELAY_MS = 1_000;
const RECONNECT_ATTEMPTS = 5;

/**
 * A workspace's live events for the terminal: reads the server-sent events stream with
 * the Bearer header, calls `onEvent` for each event in order, and on a dropped connection reopens it
 * with Last-Event-ID so no event of the turn is lost (the server replays its recent buffer).
 */
export class EventStreamReader {
  private readonly abort = new AbortController();
  private lastEventId: number | undefined;
  private closed = false;
  /** Received text not yet parsed into whole events. */
  private pending = '';

  constructor(
    private readonly api: ApiClient,
    private readonly path: string,
    private readonly onEvent: (event: WorkspaceEvent) => void,
    private readonly onLost: (error: Error) => void,
  ) {}

  /**
   * Resolves once the server has subscribed this stream (its first bytes arrived), so an event
   * published after that — the turn's — is delivered; the stream then keeps reading in the background.
   */
  async open(): Promise<void> {
    const reader = await this.connect();
    void this.pump(reader);
  }

  close(): void {
    this.closed = true;
    this.abort.abort();
  }

  private async connect(): Promise<ReadableStreamDefaultReader<Uint8Array>> {
    const response = await this.api.openStream(this.path, this.abort.signal, this.lastEventId);
    if (!response.body) throw new Error('the events stream has no body');
    const reader = response.body.getReader();
    // The server writes `: connected` after it subscribed: wait for it, keep what came with it.
    const first = await reader.read();
    if (first.done) throw new Error('the events stream closed at once');
    this.pending = new TextDecoder().decode(first.value);
    return reader;
  }

  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for (;;) {
      this.drain();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        // A reset connection reads as its end: reconnect below, unless this side closed it.
        chunk = { done: true, value: undefined };
      }
      if (this.closed) return;
      if (chunk.done) {
        const next = await this.reconnect();
        if (!next) return;
        reader = next;
        continue;
      }
      this.pending += decoder.decode(chunk.value, { stream: true });
    }
  }

  private async reconnect(): Promise<ReadableStreamDefaultReader<Uint8Array> | null> {
    let lastError: Error = new Error('the events stream ended');
    for (let attempt = 0; attempt < RECONNECT_ATTEMPTS && !this.closed; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
      try {
        return await this.connect();
      } catch (error) {
        lastError = error instanceof Error ? error : new Error(String(error));
      }
    }
    if (!this.closed) this.onLost(lastError);
    return null;
  }

  /** Parses every complete `id:`/`event:`/`data:` block in the buffer (comments are heartbeats). */
  private drain(): void {
    for (;;) {
      const end = this.pending.indexOf('\n\n');
      if (end < 0) return;
      const block = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      const event = JSON.parse(data) as WorkspaceEvent;
      this.lastEventId = event.sequence;
      this.onEvent(event);
    }
  }
}
