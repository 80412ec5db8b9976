import type { WireProtocol } from './model-catalog.js';
import type { MeteredWire } from './wire-usage-meter.js';

/** Stands for one path segment naming a model (`GET /v1/models/<id>`). */
const MODEL_ID = Symbol('model id');

/** What a model id segment may be: a name, never a dot segment or anything the upstream would split. */
const MODEL_ID_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._:@+-]*$/;

/**
 * One (method, exact path) the model proxy forwards (SEC-8). Nothing else reaches a provider with
 * the real key: no files, batches, organization or admin endpoint, whatever the encoding.
 */
export interface ModelProxyEndpoint {
  method: 'GET' | 'POST';
  path: ReadonlyArray<string | typeof MODEL_ID>;
  /** Set for model calls whose responses carry usage (metered against the run). */
  wire: MeteredWire | null;
  /**
   * Query parameters forwarded, as exact `name=value` pairs; every other parameter is dropped, never
   * forwarded (a query is the client's option, not a way to reach another endpoint or behaviour).
   */
  query: ReadonlySet<string>;
}

/** Claude Code (and the Anthropic SDKs in beta mode) send `?beta=true` on their model calls. */
const ANTHROPIC_BETA = new Set(['beta=true']);
const NO_QUERY = new Set<string>();

const ANTHROPIC_ENDPOINTS: readonly ModelProxyEndpoint[] = [
  { method: 'POST', path: ['v1', 'messages'], wire: 'anthropic-messages', query: ANTHROPIC_BETA },
  { method: 'POST', path: ['v1', 'messages', 'count_tokens'], wire: null, query: ANTHROPIC_BETA },
  { method: 'GET', path: ['v1', 'models'], wire: null, query: NO_QUERY },
  { method: 'GET', path: ['v1', 'models', MODEL_ID], wire: null, query: NO_QUERY },
];

/** Paths relative to an OpenAI-style base URL (which already ends in `/v1` where the vendor has one). */
const OPENAI_ENDPOINTS: readonly ModelProxyEndpoint[] = [
  { method: 'POST', path: ['chat', 'completions'], wire: 'openai-chat-completions', query: NO_QUERY },
  { method: 'POST', path: ['responses'], wire: 'openai-responses', query: NO_QUERY },
  { method: 'GET', path: ['models'], wire: null, query: NO_QUERY },
  { method: 'GET', path: ['models', MODEL_ID], wire: null, query: NO_QUERY },
];

/** An allowlisted call: the endpoint, and the path and query to send upstream (below the base URL). */
export interface MatchedModelEndpoint {
  endpoint: ModelProxyEndpoint;
  upstreamPath: string;
  upstreamQuery: string;
}

/**
 * The endpoint `method` + `segments` (decoded, checked by `plainRequestPath`) names for a provider
 * speaking `protocol`, or null when it is not on the allowlist. OpenAI-style clients may repeat the
 * `/v1` their base URL already has; it is dropped before matching.
 */
export function matchModelEndpoint(protocol: WireProtocol, method: string, segments: readonly string[], rawQuery: string): MatchedModelEndpoint | null {
  const anthropic = protocol === 'anthropic-messages';
  const relative = !anthropic && segments[0] === 'v1' ? segments.slice(1) : segments;
  const endpoints = anthropic ? ANTHROPIC_ENDPOINTS : OPENAI_ENDPOINTS;
  const endpoint = endpoints.find((candidate) => candidate.method === method && pathMatches(candidate.path, relative));
  if (!endpoint) return null;
  const upstreamQuery = rawQuery
    .split('&')
    .filter((pair) => endpoint.query.has(pair))
    .join('&');
  return { endpoint, upstreamPath: `/${relative.join('/')}`, upstreamQuery };
}

function pathMatches(pattern: ModelProxyEndpoint['path'], segments: readonly string[]): boolean {
  return pattern.length === segments.length && pattern.every((part, index) => (part === MODEL_ID ? MODEL_ID_SEGMENT.test(segments[index]!) : part === segments[index]));
}
