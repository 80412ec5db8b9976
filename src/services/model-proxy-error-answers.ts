import type { WireProtocol } from '../llm/model-catalog.js';

/** What the model proxy answers instead of forwarding: status, headers and a JSON body. */
export interface ProxyErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * TRUTH-4: answers a runner's SDK reads as final. Runtimes retry 408/409/429/5xx (and connection
 * failures) for minutes; a missing key or an endpoint that refuses connections will not fix itself,
 * so the proxy answers with a 4xx in the provider's own error shape (which the runtime then shows as
 * its error) and says `x-should-retry: false` for the SDKs that read it.
 */
function answer(status: number, body: unknown): ProxyErrorAnswer {
  return { status, headers: { 'content-type': 'application/json', 'x-should-retry': 'false' }, body: Buffer.from(JSON.stringify(body)) };
}

/** 401 in the provider's shape: Anthropic's `authentication_error`, OpenAI's `invalid_api_key`. */
export function authenticationErrorAnswer(protocol: WireProtocol, message: string): ProxyErrorAnswer {
  if (protocol === 'anthropic-messages') return answer(401, { type: 'error', error: { type: 'authentication_error', message } });
  return answer(401, { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
}

/**
 * 403 in the provider's shape for a request naming a provider-side tool the run's policy does not
 * allow (SEC-8): Anthropic's `permission_error`, OpenAI's error with `param` naming the field. Final:
 * sending it again is refused again.
 */
export function providerToolRefusalAnswer(protocol: WireProtocol, field: string, message: string): ProxyErrorAnswer {
  if (protocol === 'anthropic-messages') return answer(403, { type: 'error', error: { type: 'permission_error', message } });
  return answer(403, { error: { message, type: 'invalid_request_error', param: field, code: 'provider_tool_refused' } });
}

/** 400 in the provider's shape for an upstream that cannot be reached at all (refused, no such host). */
export function unreachableUpstreamAnswer(protocol: WireProtocol, message: string): ProxyErrorAnswer {
  if (protocol === 'anthropic-messages') return answer(400, { type: 'error', error: { type: 'invalid_request_error', message } });
  return answer(400, { error: { message, type: 'invalid_request_error', param: null, code: 'upstream_unreachable' } });
}

/**
 * Connection failures that mean the base URL is wrong rather than the network busy: nothing listens
 * there, or the host name does not resolve. Resets and timeouts stay retryable.
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/** The connect error's code when it says the base URL cannot be reached, else null (fetch wraps it in `cause`, sometimes in an AggregateError). */
export function unreachableCode(error: unknown): string | null {
  const seen: unknown[] = [error];
  for (let index = 0; index < seen.length && index < 8; index += 1) {
    const current = seen[index] as { code?: unknown; cause?: unknown; errors?: unknown } | null;
    if (!current || typeof current !== 'object') continue;
    if (typeof current.code === 'string' && UNREACHABLE_CODES.has(current.code)) return current.code;
    if (current.cause) seen.push(current.cause);
    if (Array.isArray(current.errors)) seen.push(...(current.errors as unknown[]));
  }
  return null;
}
