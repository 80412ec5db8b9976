import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { boundedText } from './provider-failure.js';
import { readCappedBody, type CappedBody } from './read-capped-body.js';
import { SseParser, type SseMessage } from './sse-parser.js';
import type { StreamWatchdog } from './stream-watchdog.js';

/**
 * The model-call path without an SDK: one POST on a keep-alive `node:http(s)` agent, the
 * response read as server-sent events straight off the socket. The SDKs' fetch, web streams and request
 * building cost about 10 ms of CPU per tool turn (two calls); this path keeps what the providers rely
 * on — retries with the SDKs' policy, HTTP errors with the provider's body, the stream watchdog's idle
 * clock and the caller's abort — and nothing else. Errors are thrown in the shapes `failureDone`
 * reads: {@link ModelHttpStatusError} (`status` + parsed body), {@link ModelStreamError} (an error event
 * in a healthy stream), {@link ModelConnectionError} (no response), SyntaxError (a malformed event).
 */

/** Keep-alive agents shared by every model call: a tool turn's second call reuses the first one's connection. */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** An error body longer than this is cut (a provider's error is a short JSON object; an HTML page is not worth more). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Parsed events not yet taken by the consumer before the socket is paused. */
const HIGH_WATER_EVENTS = 256;

export interface ModelHttpRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Retries before the stream starts (408, 409, 429, 5xx, connection errors), as the SDKs do. */
  maxRetries: number;
  watchdog: StreamWatchdog;
}

/** A non-2xx answer: `error` is the parsed JSON body (or undefined), `message` the raw text when it was not JSON. */
export class ModelHttpStatusError extends Error {
  override readonly name = 'ModelHttpStatusError';
  constructor(
    readonly status: number,
    readonly error: unknown,
    message: string,
    readonly headers: IncomingHttpHeaders,
  ) {
    super(message);
  }
}

/** An `error` event inside an otherwise healthy stream; `status` is present and undefined, as the SDKs' errors. */
export class ModelStreamError extends Error {
  override readonly name = 'ModelStreamError';
  readonly status: undefined = undefined;
  constructor(
    readonly error: unknown,
    message: string,
  ) {
    super(message);
  }
}

/** The request never got a complete answer: refused, reset, TLS or DNS failure (the cause carries the code). */
export class ModelConnectionError extends Error {
  override readonly name = 'ModelConnectionError';
}

class ModelRequestAbortedError extends Error {
  override readonly name = 'AbortError';
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The SDKs' retry decision: the server's `x-should-retry` first, then timeouts, lock timeouts, rate limits, server errors. */
function shouldRetry(status: number, headers: IncomingHttpHeaders): boolean {
  const explicit = header(headers, 'x-should-retry');
  if (explicit === 'true') return true;
  if (explicit === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `retry-after-ms`, then `retry-after` (seconds or a date), else exponential back-off from 0.5 s to 8 s with jitter. */
function retryDelayMs(attempt: number, headers: IncomingHttpHeaders | undefined): number {
  let delay: number | undefined;
  const millis = headers && header(headers, 'retry-after-ms');
  if (millis && !Number.isNaN(parseFloat(millis))) delay = parseFloat(millis);
  const after = headers && header(headers, 'retry-after');
  if (after && delay === undefined) {
    const seconds = parseFloat(after);
    delay = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (delay !== undefined && delay > 0 && delay <= 2 ** 31 - 1) return delay;
  return Math.min(0.5 * 2 ** attempt, 8) * (1 - Math.random() * 0.25) * 1000;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ModelRequestAbortedError('aborted while waiting to retry'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelRequestAbortedError('aborted while waiting to retry'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** One attempt: resolves with the response once its headers arrive, or rejects with why there is none. */
function send(request: ModelHttpRequest): Promise<{ response: IncomingMessage; reusedSocket: boolean }> {
  const { url, watchdog } = request;
  return new Promise((resolve, reject) => {
    if (watchdog.signal.aborted) return reject(new ModelRequestAbortedError('aborted before sending'));
    const https = url.protocol === 'https:';
    const options = { method: 'POST', headers: request.headers, agent: https ? agents.https : agents.http };
    const req: ClientRequest = https ? httpsRequest(url, options) : httpRequest(url, options);
    const onAbort = () => req.destroy(new ModelRequestAbortedError('aborted by the stream watchdog'));
    watchdog.signal.addEventListener('abort', onAbort, { once: true });
    req.once('response', (response) => {
      watchdog.signal.removeEventListener('abort', onAbort);
      watchdog.touch();
      resolve({ response, reusedSocket: req.reusedSocket });
    });
    req.once('error', (error) => {
      watchdog.signal.removeEventListener('abort', onAbort);
      if (error instanceof ModelRequestAbortedError) reject(error);
      else reject(Object.assign(new ModelConnectionError(`connection failed: ${error.message}`, { cause: error }), { reusedSocket: req.reusedSocket }));
    });
    req.end(request.body);
  });
}

/**
 * Reads a failed response's body and turns it into the error the caller sees. Only the first
 * {@link MAX_ERROR_BODY_BYTES} are read: then the body is cancelled, so an error body that never ends
 * (SEC-10) cannot hold the call open. The watchdog still guards it: a body that stalls is cut by the
 * idle clock, and an abort ends the read at once.
 */
async function statusError(response: IncomingMessage, watchdog: StreamWatchdog): Promise<ModelHttpStatusError> {
  const onAbort = () => response.destroy(new ModelRequestAbortedError('aborted by the stream watchdog'));
  if (watchdog.signal.aborted) onAbort();
  else watchdog.signal.addEventListener('abort', onAbort, { once: true });
  async function* touching(): AsyncGenerator<Uint8Array> {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      watchdog.touch();
      yield chunk;
    }
  }
  let read: CappedBody;
  try {
    // A body cut short still says what arrived of it.
    read = await readCappedBody(touching(), MAX_ERROR_BODY_BYTES, { keepHead: true, keepWhatArrived: true });
  } finally {
    watchdog.signal.removeEventListener('abort', onAbort);
  }
  if (read.brokeOff instanceof ModelRequestAbortedError) throw read.brokeOff;
  const text = read.bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const status = response.statusCode ?? 0;
  const message = parsed === undefined ? boundedText(text, 2_000) || `status code ${status} (no body)` : `${status} ${boundedText(text, 2_000)}`;
  return new ModelHttpStatusError(status, parsed, message, response.headers);
}

/**
 * Sends the request (retrying before the stream starts, as allowed) and returns its server-sent
 * events. Throws the errors described at the top of this file; the watchdog's abort ends everything.
 */
export async function openModelEventStream(request: ModelHttpRequest): Promise<ModelEventStream> {
  let retriedStaleSocket = false;
  for (let attempt = 0; ; attempt += 1) {
    let response: IncomingMessage;
    try {
      ({ response } = await send(request));
    } catch (error) {
      if (!(error instanceof ModelConnectionError)) throw error;
      // A kept-alive socket the server closed while idle fails at once: one free retry on a fresh one.
      const stale = (error as ModelConnectionError & { reusedSocket?: boolean }).reusedSocket === true;
      if (stale && !retriedStaleSocket) {
        retriedStaleSocket = true;
        attempt -= 1;
        continue;
      }
      if (attempt >= request.maxRetries) throw error;
      await sleep(retryDelayMs(attempt, undefined), request.watchdog.signal);
      continue;
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return new ModelEventStream(response, request.watchdog);
    if (attempt < request.maxRetries && shouldRetry(status, response.headers)) {
      response.resume();
      await sleep(retryDelayMs(attempt, response.headers), request.watchdog.signal);
      continue;
    }
    throw await statusError(response, request.watchdog);
  }
}

/**
 * A response's server-sent events, parsed as bytes arrive (each chunk restarts the watchdog's idle
 * clock) and handed out in order. Iterate it once; the socket is paused while many events wait.
 */
export class ModelEventStream implements AsyncIterable<SseMessage> {
  private readonly queue: SseMessage[] = [];
  private head = 0;
  private ended = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  private readonly parser = new SseParser((message) => this.queue.push(message));
  private readonly onAbort = () => this.fail(new ModelRequestAbortedError('aborted by the stream watchdog'));

  constructor(
    private readonly response: IncomingMessage,
    private readonly watchdog: StreamWatchdog,
  ) {
    response.setEncoding('utf8');
    response.on('data', (text: string) => {
      watchdog.touch();
      try {
        this.parser.push(text);
      } catch (error) {
        this.fail(error);
        return;
      }
      if (this.queue.length - this.head >= HIGH_WATER_EVENTS) response.pause();
      this.notify();
    });
    response.once('end', () => {
      this.parser.end();
      this.ended = true;
      this.notify();
    });
    response.once('error', (error) => this.fail(new ModelConnectionError(`the response broke off: ${error.message}`, { cause: error })));
    response.once('close', () => {
      if (!this.ended) this.fail(new ModelConnectionError('the response broke off: socket closed before the end of the stream'));
    });
    if (watchdog.signal.aborted) this.onAbort();
    else watchdog.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SseMessage> {
    try {
      for (;;) {
        // An abort ends the stream at once; any other failure comes after the events that arrived before it.
        if (this.failure instanceof ModelRequestAbortedError) throw this.failure;
        if (this.head < this.queue.length) {
          const message = this.queue[this.head]!;
          this.head += 1;
          if (this.head === this.queue.length) {
            this.queue.length = 0;
            this.head = 0;
          }
          yield message;
          continue;
        }
        if (this.failure !== undefined) throw this.failure;
        if (this.ended) return;
        if (this.response.isPaused()) this.response.resume();
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.close();
    }
  }

  /** Stops reading: a consumer that leaves early (or fails) must not leave the socket streaming. */
  close(): void {
    this.watchdog.signal.removeEventListener('abort', this.onAbort);
    if (!this.ended) this.response.destroy();
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined || this.ended) return;
    this.failure = error;
    this.response.destroy();
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** A provider's endpoint: posts a request body (an object, or JSON already serialized) to `<baseUrl><path>` and opens its event stream. */
export type ModelEndpoint = (params: object | string, watchdog: StreamWatchdog) => Promise<ModelEventStream>;

/**
 * The endpoint for one provider configuration. The URL is parsed on first use, so a malformed base URL
 * fails that call (as a `done` error) instead of the provider's construction. `defaultHeaders` from the
 * configuration override the provider's own headers, whatever their case.
 */
export function modelEndpoint(baseUrl: string, path: string, headers: Record<string, string>, defaultHeaders: Record<string, string> | undefined, maxRetries: number): ModelEndpoint {
  const merged = { ...headers };
  for (const [name, value] of Object.entries(defaultHeaders ?? {})) merged[name.toLowerCase()] = value;
  let url: URL | undefined;
  return (params, watchdog) => {
    url ??= new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
    const body = typeof params === 'string' ? params : JSON.stringify(params);
    return openModelEventStream({ url, headers: { ...merged, 'content-length': String(Buffer.byteLength(body)) }, body, maxRetries, watchdog });
  };
}

/** An event's JSON data, or a SyntaxError that names the event without repeating what the server sent. */
export function parseEventData(message: SseMessage): unknown {
  try {
    return JSON.parse(message.data);
  } catch (error) {
    const name = message.event === null ? 'an unnamed event' : `event ${JSON.stringify(message.event.slice(0, 64))}`;
    throw new SyntaxError(`${name} is not valid JSON (${boundedText((error as Error).message)})`);
  }
}
