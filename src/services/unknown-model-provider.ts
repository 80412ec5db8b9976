import { NotFoundError, ValidationError } from '../errors/index.js';
import { PROVIDER_IDS, type ProviderInfo, type WireProtocol } from '../llm/model-catalog.js';
import { matchModelEndpoint } from '../llm/model-proxy-endpoints.js';
import { MODEL_PROXY_PATH } from '../llm/model-proxy-url.js';
import { plainRequestPath } from '../llm/plain-request-path.js';
import { authenticationErrorAnswer, type ProxyErrorAnswer } from './model-proxy-error-answers.js';

/** The protocols a runner may speak to the proxy, in the order a path is tried against them. */
const PROTOCOLS: readonly WireProtocol[] = ['anthropic-messages', 'openai-chat-completions'];

/** Long enough to recognise a mistyped provider, short enough that a hostile URL cannot flood the run's error. */
const SHOWN_PROVIDER_CHARS = 64;

export interface UnknownProviderCall {
  /** The provider segment exactly as the runner sent it (never decoded). */
  provider: string;
  /** The provider the run's token is bound to (SEC-8), or null when its runner reaches no model through the proxy. */
  bound: ProviderInfo | null;
  method: string;
  rawPath: string;
  rawQuery: string;
}

/**
 * TRUTH-4: a runner calling `/api/model-proxy/<provider>` for a provider the server does not know is
 * misconfigured, and retrying cannot fix it. It is answered like a missing key: a final 401 in the
 * protocol's own error shape (Anthropic `authentication_error`, OpenAI `invalid_api_key`), so the
 * runtime stops at once and shows the message, which names the provider and the one the run spends.
 *
 * SEC-8 still decides first: a path that is not plain is 400 and one no protocol's allowlist names is
 * 404, exactly as for a known provider, so an unknown provider opens no other way in. The answer is
 * in the shape of the run's own provider when the path is one of its endpoints, else of the protocol
 * whose endpoint it is.
 */
export function unknownProviderRefusal(call: UnknownProviderCall): { cause: string; answer: ProxyErrorAnswer } {
  const path = plainRequestPath(call.rawPath);
  if (!path.ok) throw new ValidationError('path', `the model proxy path ${path.problem}; nothing was forwarded`);
  const method = call.method.toUpperCase();
  const protocol = answeringProtocol(call.bound, method, path.segments, call.rawQuery);
  if (!protocol) throw new NotFoundError('model proxy endpoint', `${method} ${call.rawPath || '/'}`, 'path');
  const shown = JSON.stringify(call.provider.slice(0, SHOWN_PROVIDER_CHARS));
  const expected = call.bound
    ? `this run's runner should call ${MODEL_PROXY_PATH}/${call.bound.id} (${call.bound.label})`
    : "this run's runner reaches no model through the proxy";
  const cause = `the model proxy knows no provider ${shown} (it serves ${PROVIDER_IDS.join(', ')}); ${expected}`;
  return { cause, answer: authenticationErrorAnswer(protocol, cause) };
}

/** Whose error shape answers: the bound provider's when the call is one of its endpoints, else the first protocol that has it; null when none does. */
function answeringProtocol(bound: ProviderInfo | null, method: string, segments: readonly string[], rawQuery: string): WireProtocol | null {
  // The CLIs' start-up probe of their base URL (GET/HEAD of the root) belongs to every protocol.
  const isRootProbe = (method === 'GET' || method === 'HEAD') && segments.length === 0;
  const candidates = bound ? [bound.protocol, ...PROTOCOLS.filter((protocol) => protocol !== bound.protocol)] : PROTOCOLS;
  return candidates.find((protocol) => isRootProbe || ((method === 'GET' || method === 'POST') && matchModelEndpoint(protocol, method, segments, rawQuery))) ?? null;
}
