/** Default idle timeout: a model stream that sends no bytes for this long is declared hung. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export type WatchdogVerdict = 'aborted' | 'idle_timeout' | null;

/** Where {@link StreamWatchdog.fetchOptions} puts the watchdog on a request's init; never sent. */
const WATCHDOG_KEY = Symbol('streamWatchdog');

/**
 * Guards one model call against hangs and carries the caller's abort (convention 3).
 *
 * The idle clock runs only while the provider waits for the network: it is reset by every chunk
 * of response bytes (the SDK's fetch is wrapped so pings and partial lines count too) and paused
 * while the consumer holds an event, so a slow consumer is never mistaken for a hung server.
 *
 * Touching, pausing and resuming only set fields: one timer per call checks, when it fires, how long
 * the stream has really been idle and re-arms itself for the rest (a clear and a new timer
 * per chunk and per event was a visible share of a tool turn's CPU).
 */
export class StreamWatchdog {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly idleTimeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private verdictValue: WatchdogVerdict = null;
  private readonly onCallerAbort: () => void;
  private disposed = false;
  private paused = false;
  /** `performance.now()` of the last sign of life, or of the moment the clock was resumed. */
  private lastActivity = 0;
  private readonly onTimer = () => this.check();

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    idleTimeoutMs: number = DEFAULT_IDLE_TIMEOUT_MS,
  ) {
    this.idleTimeoutMs = idleTimeoutMs;
    this.signal = this.controller.signal;
    this.onCallerAbort = () => this.trip('aborted');
    if (callerSignal?.aborted) this.trip('aborted');
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.resume();
  }

  /** Why the call was cut short, if it was. */
  get verdict(): WatchdogVerdict {
    return this.verdictValue;
  }

  get idleTimeout(): number {
    return this.idleTimeoutMs;
  }

  /** Bytes arrived: restart the idle clock. */
  touch(): void {
    this.lastActivity = performance.now();
  }

  /** Stop the idle clock while the consumer processes an event. */
  pause(): void {
    this.paused = true;
  }

  /** Restart the idle clock: we are waiting on the network again. */
  resume(): void {
    if (this.disposed || this.verdictValue) return;
    this.paused = false;
    this.lastActivity = performance.now();
    if (!this.timer) this.arm(this.idleTimeoutMs);
  }

  /**
   * Per-request fetch options binding this call to {@link watchedFetch}: the SDK client is shared
   * across calls, so the watchdog rides on the request instead of on the client.
   */
  fetchOptions(): Record<symbol, StreamWatchdog> {
    return { [WATCHDOG_KEY]: this };
  }

  /** The response with every body chunk counted as a sign of life. */
  observe(response: Response): Response {
    this.touch();
    if (!response.body) return response;
    const touch = () => this.touch();
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          touch();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimer();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(this.onTimer, Math.max(1, ms));
    this.timer.unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The timer fired: trip if the clock really ran for the whole timeout, else wait for the rest of it. */
  private check(): void {
    this.timer = undefined;
    if (this.disposed || this.verdictValue) return;
    if (this.paused) {
      this.arm(this.idleTimeoutMs);
      return;
    }
    const idle = performance.now() - this.lastActivity;
    if (idle >= this.idleTimeoutMs) this.trip('idle_timeout');
    else this.arm(this.idleTimeoutMs - idle);
  }

  private trip(verdict: Exclude<WatchdogVerdict, null>): void {
    if (this.verdictValue) return;
    this.verdictValue = verdict;
    this.clearTimer();
    this.controller.abort(new Error(verdict === 'aborted' ? 'aborted by caller' : `no data for ${this.idleTimeoutMs} ms`));
  }
}

/**
 * The one fetch a shared SDK client uses: a request carrying a watchdog (see
 * {@link StreamWatchdog.fetchOptions}) has the marker stripped and each response chunk reported to
 * that watchdog; any other request passes through untouched. `baseFetch` unset means the global
 * fetch as it is at call time.
 */
export function watchedFetch(baseFetch?: typeof fetch): typeof fetch {
  return async (input, init) => {
    const watchdog = (init as Record<symbol, unknown> | undefined)?.[WATCHDOG_KEY];
    if (!(watchdog instanceof StreamWatchdog)) return (baseFetch ?? globalThis.fetch)(input, init);
    const forwarded = { ...init } as Record<symbol, unknown>;
    delete forwarded[WATCHDOG_KEY];
    return watchdog.observe(await (baseFetch ?? globalThis.fetch)(input, forwarded as RequestInit));
  };
}
