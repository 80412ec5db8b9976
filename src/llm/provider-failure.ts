import type { DoneEvent } from './model-types.js';
import type { StreamWatchdog } from './stream-watchdog.js';

/** At most `max` characters of text a server sent, marked when cut, for error messages. */
export function boundedText(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Statuses worth retrying: rate limits, timeouts, server errors, Anthropic's 529 "overloaded". */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/**
 * The provider's own error text from an SDK error body. Anthropic bodies are
 * `{type: 'error', error: {type, message}}`; OpenAI-compatible ones `{error: {message, type, code}}`;
 * some local servers send `{error: "text"}` or `{message}`.
 */
function providerMessage(body: unknown): { message?: string; type?: string } {
  const record = asRecord(body);
  if (!record) return typeof body === 'string' && body ? { message: body } : {};
  const inner = asRecord(record.error);
  if (inner) {
    const message = typeof inner.message === 'string' ? inner.message : undefined;
    const type = typeof inner.type === 'string' ? inner.type : typeof inner.code === 'string' ? inner.code : undefined;
    return { message, type };
  }
  if (typeof record.error === 'string') return { message: record.error };
  if (typeof record.message === 'string') return { message: record.message, type: typeof record.type === 'string' ? record.type : undefined };
  return {};
}

/** Walks `cause` chains for the first system error code (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET…). */
function causeDetail(error: unknown): string | undefined {
  let current: unknown = error;
  const messages: string[] = [];
  for (let depth = 0; depth < 6 && current; depth += 1) {
    const record = asRecord(current);
    if (!record) break;
    if (typeof record.code === 'string' && /^[A-Z_]+$/.test(record.code)) {
      return typeof record.message === 'string' && record.message ? `${record.code}: ${record.message}` : record.code;
    }
    if (typeof record.message === 'string' && record.message) messages.push(record.message);
    current = record.cause;
  }
  return messages.at(-1);
}

/** True for the aborts our own watchdog (or the caller) caused, however the SDK wrapped them. */
function isAbortLike(error: unknown): boolean {
  const record = asRecord(error);
  if (!record) return false;
  const name = typeof record.name === 'string' ? record.name : '';
  return name === 'AbortError' || name === 'APIUserAbortError' || name.endsWith('AbortError');
}

/** The `done` event for a stream the watchdog cut short, or undefined if it did not. */
export function watchdogDone(providerLabel: string, watchdog: StreamWatchdog): DoneEvent | undefined {
  if (watchdog.verdict === 'aborted') {
    return { type: 'done', stopReason: 'aborted', errorMessage: `${providerLabel} request aborted by the caller` };
  }
  if (watchdog.verdict === 'idle_timeout') {
    return {
      type: 'done',
      stopReason: 'error',
      errorMessage: `${providerLabel} sent no data for ${watchdog.idleTimeout} ms (idle timeout); the request was cancelled`,
      retryable: true,
    };
  }
  return undefined;
}

/**
 * Turns anything thrown by an SDK call or stream into the final `done` event (convention 3),
 * naming the provider, the HTTP status and the provider's own message.
 */
export function failureDone(providerLabel: string, error: unknown, watchdog: StreamWatchdog): DoneEvent {
  const cutShort = watchdogDone(providerLabel, watchdog);
  if (cutShort) return cutShort;
  const record = asRecord(error) ?? {};
  const status = typeof record.status === 'number' ? record.status : undefined;
  if (status !== undefined) {
    const { message, type } = providerMessage(record.error);
    const detail = boundedText(message ?? (typeof record.message === 'string' ? record.message : 'no error message'), 2_000);
    return {
      type: 'done',
      stopReason: 'error',
      errorMessage: `${providerLabel} API error: HTTP ${status}${type ? ` ${type}` : ''}: ${detail}`,
      httpStatus: status,
      retryable: isRetryableStatus(status),
    };
  }
  if (error instanceof SyntaxError) {
    return { type: 'done', stopReason: 'error', errorMessage: `${providerLabel} sent a malformed stream: ${error.message}`, retryable: true };
  }
  const name = typeof record.name === 'string' ? record.name : '';
  if ('status' in record && record.error !== undefined && record.error !== null) {
    // An `error` event inside an otherwise healthy stream: the SDKs raise an APIError without a status.
    const { message, type } = providerMessage(record.error);
    const detail = boundedText(message ?? (typeof record.message === 'string' ? record.message : 'unknown error'), 2_000);
    const overloaded = type === 'overloaded_error' || type === 'api_error' || type === 'rate_limit_error';
    return {
      type: 'done',
      stopReason: 'error',
      errorMessage: `${providerLabel} stream error${type ? ` (${type})` : ''}: ${detail}`,
      retryable: overloaded,
    };
  }
  if (isAbortLike(error)) {
    return { type: 'done', stopReason: 'aborted', errorMessage: `${providerLabel} request was aborted` };
  }
  const detail = causeDetail(error) ?? String(error);
  const connection = name.includes('Connection') || /ECONN|EPIPE|ENOTFOUND|EAI_AGAIN|UND_ERR|socket|terminated|fetch failed/i.test(detail);
  return {
    type: 'done',
    stopReason: 'error',
    errorMessage: connection ? `${providerLabel} connection error: ${detail}` : `${providerLabel} request failed: ${detail}`,
    retryable: connection,
  };
}
