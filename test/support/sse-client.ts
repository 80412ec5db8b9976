import { z } from 'zod';
import { WorkspaceEvent } from '../../src/schemas/events.js';

/** A parsed server-sent event. */
export interface ReceivedEvent {
  id: string | null;
  event: string;
  data: any;
  /** Date.now() when the client parsed it (event-delay benchmarks). */
  receivedAt: number;
}

/** Reads a real SSE stream over HTTP and collects its events, with a wait helper for tests. */
export class SseClient {
  readonly events: ReceivedEvent[] = [];
  /** Events that broke the contract of src/schemas/events.ts; `waitFor` fails on the first one. */
  readonly contractViolations: string[] = [];
  /** Set when the server ended the stream (not when `close` aborted it). */
  ended = false;
  private readonly controller = new AbortController();
  private waiters: Array<() => void> = [];

  private constructor() {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const response = await fetch(url, { headers, signal: client.controller.signal });
    if (response.status !== 200 || !response.body) throw new Error(`SSE open failed: HTTP ${response.status}`);
    void client.pump(response.body);
    return client;
  }

  /** Resolves with the first event (already received or future) that matches, or rejects after `timeoutMs`. */
  async waitFor(predicate: (event: ReceivedEvent) => boolean, timeoutMs = 5_000): Promise<ReceivedEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.contractViolations.length > 0) throw new Error(this.contractViolations[0]);
      const found = this.events.find(predicate);
      if (found) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out waiting for an event; got: ${this.events.map((event) => event.event).join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.controller.abort();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary = buffer.indexOf('\n\n');
        while (boundary >= 0) {
          this.parse(buffer.slice(0, boundary));
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf('\n\n');
        }
      }
      this.ended = true;
    } catch {
      // aborted by close()
    }
  }

  private parse(block: string): void {
    let id: string | null = null;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const separator = line.indexOf(':');
      const field = separator < 0 ? line : line.slice(0, separator);
      const value = separator < 0 ? '' : line.slice(separator + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return;
    const text = data.join('\n');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain-text data stays a string
    }
    this.checkContract(event, parsed);
    this.events.push({ id, event, data: parsed, receivedAt: Date.now() });
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Workspace events (those with a `sequence` envelope) must parse with the schema of their type and
   * carry that type as the SSE event name, so a payload drifting from src/schemas/events.ts fails tests.
   */
  private checkContract(name: string, data: unknown): void {
    if (typeof data !== 'object' || data === null || !('sequence' in data)) return;
    const result = WorkspaceEvent.safeParse(data);
    if (!result.success) {
      this.contractViolations.push(`event contract: ${name} does not match src/schemas/events.ts\n${z.prettifyError(result.error)}\nevent: ${JSON.stringify(data).slice(0, 2_000)}`);
    } else if (result.data.type !== name) {
      this.contractViolations.push(`event contract: SSE event name ${name} differs from its data type ${result.data.type}`);
    }
  }
}
