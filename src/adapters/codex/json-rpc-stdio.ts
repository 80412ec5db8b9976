import type { Readable, Writable } from 'node:stream';
import { NdjsonFramer } from '../claude-code/ndjson-framer.js';

/** A JSON-RPC error a request handler throws; sent back to the peer as the response's `error`. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** JSON-RPC's "method not found". */
export const METHOD_NOT_FOUND = -32601;

export interface JsonRpcHandlers {
  /** A notification from the peer (no id). */
  notification(method: string, params: Record<string, unknown>): void;
  /**
   * A request from the peer. Whatever it resolves to is the result; a thrown `JsonRpcError` (or any
   * error) is sent as the error. Every request is answered, so the peer never waits forever on one.
   */
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** A line that was not JSON, or a message of no known shape. */
  malformed(line: string, error: string): void;
}

/**
 * A JSON-RPC 2.0 connection over newline-delimited JSON on a child's stdio (what `codex app-server`
 * speaks): requests out with ids, responses matched back; the peer's own requests go to `handlers`.
 */
export class JsonRpcStdio {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; method: string }>();
  private closedWith: Error | null = null;

  constructor(
    private readonly output: Writable,
    input: Readable,
    private readonly handlers: JsonRpcHandlers,
  ) {
    const framer = new NdjsonFramer(
      (message) => this.receive(message),
      (malformed) => handlers.malformed(malformed.line, malformed.error),
    );
    input.on('data', (chunk: Buffer) => framer.push(chunk));
    input.on('end', () => framer.end());
    output.on('error', () => undefined);
  }

  /** Sends a request; resolves with its result, rejects with its error or when the connection closes. */
  request<T = Record<string, unknown>>(method: string, params: unknown): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (value) => resolve(value as T), reject, method });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** Fails every pending request (the process ended). */
  close(reason: Error): void {
    this.closedWith = reason;
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      entry.reject(reason);
    }
  }

  private write(message: Record<string, unknown>): void {
    if (this.output.writable) this.output.write(`${JSON.stringify(message)}\n`);
  }

  private receive(message: Record<string, unknown>): void {
    const method = typeof message.method === 'string' ? message.method : null;
    const params = typeof message.params === 'object' && message.params !== null ? (message.params as Record<string, unknown>) : {};
    const hasId = typeof message.id === 'number' || typeof message.id === 'string';
    if (method && hasId) {
      void this.answer(message.id as number | string, method, params);
      return;
    }
    if (method) {
      this.handlers.notification(method, params);
      return;
    }
    if (typeof message.id === 'number' && this.pending.has(message.id)) {
      const entry = this.pending.get(message.id)!;
      this.pending.delete(message.id);
      if (message.error !== undefined) {
        const error = message.error as { message?: unknown };
        entry.reject(new Error(`${entry.method}: ${typeof error?.message === 'string' ? error.message : JSON.stringify(message.error)}`));
      } else entry.resolve(message.result);
      return;
    }
    this.handlers.malformed(JSON.stringify(message).slice(0, 500), 'a JSON-RPC message of no known shape (no method, no pending id)');
  }

  private async answer(id: number | string, method: string, params: Record<string, unknown>): Promise<void> {
    try {
      const result = await this.handlers.request(method, params);
      this.write({ jsonrpc: '2.0', id, result: result ?? null });
    } catch (error) {
      const code = error instanceof JsonRpcError ? error.code : -32603;
      this.write({ jsonrpc: '2.0', id, error: { code, message: error instanceof Error ? error.message : String(error) } });
    }
  }
}
