import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ForbiddenError, NotFoundError } from '../errors/index.js';
import { computeCost, findModel, modelPricing, PROVIDER_IDS, PROVIDERS, resolveProviderEndpoint, type ModelSettings, type ProviderId, type ProviderInfo } from '../llm/model-catalog.js';
import type { ModelUsage } from '../llm/model-types.js';
import { WireUsageMeter, type MeteredWire } from '../llm/wire-usage-meter.js';
import type { AgentPrincipal } from './runs/run-tokens.js';

/** Token counts and cost the broker measured for one run (SEC-6: exact per-run cost for external runners). */
export interface MeteredRunUsage {
  usage: Required<ModelUsage>;
  costUsd: number;
  /** Model responses that reported usage. */
  responses: number;
  /** False when a response's model has no known price (its cost counted as 0). */
  priced: boolean;
}

/** One request a runner sent to the broker, as the route hands it over. */
export interface BrokerRequest {
  principal: AgentPrincipal;
  provider: string;
  method: string;
  /** The path after `/api/model-proxy/<provider>`, starting with `/` (or empty). */
  path: string;
  /** The raw query string without `?`, or ''. */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  /** Aborted when the runner hangs up. */
  signal: AbortSignal;
}

export interface BrokerResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | Readable;
}

export interface ModelBrokerOptions {
  /** The workspace's provider settings (keys and base URLs win over `env`, as for the built-in harness). */
  settings: { get(workspaceId: string): Promise<ModelSettings> };
  /** Where provider keys and base URLs are read when settings do not set them. */
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
}

/** An endpoint of a provider's API the broker forwards; nothing else can be reached with the real key. */
interface Endpoint {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** Set for model calls whose responses carry usage. */
  wire: MeteredWire | null;
}

const ANTHROPIC_ENDPOINTS: readonly Endpoint[] = [
  { method: 'POST', pattern: /^\/v1\/messages$/, wire: 'anthropic-messages' },
  { method: 'POST', pattern: /^\/v1\/messages\/count_tokens$/, wire: null },
  { method: 'GET', pattern: /^\/v1\/models(\/[A-Za-z0-9._:-]+)?$/, wire: null },
];

/** Paths relative to an OpenAI-style base URL (which already ends in `/v1` where the vendor has one). */
const OPENAI_ENDPOINTS: readonly Endpoint[] = [
  { method: 'POST', pattern: /^\/chat\/completions$/, wire: 'openai-chat-completions' },
  { method: 'POST', pattern: /^\/responses$/, wire: 'openai-responses' },
  { method: 'POST', pattern: /^\/completions$/, wire: 'openai-chat-completions' },
  { method: 'POST', pattern: /^\/embeddings$/, wire: 'openai-chat-completions' },
  { method: 'GET', pattern: /^\/models(\/[A-Za-z0-9._:/-]+)?$/, wire: null },
];

/** Request headers passed upstream; everything else (the run token, cookies, forwarding headers) stays behind. */
const FORWARDED_REQUEST_HEADERS = new Set(['content-type', 'accept', 'user-agent', 'anthropic-version', 'anthropic-beta', 'openai-beta']);
const FORWARDED_REQUEST_PREFIXES = ['x-stainless-'];

/** Response headers passed back to the runner. */
const FORWARDED_RESPONSE_HEADERS = new Set(['content-type', 'request-id', 'x-request-id', 'retry-after', 'x-should-retry', 'cache-control']);
const FORWARDED_RESPONSE_PREFIXES = ['anthropic-ratelimit-', 'x-ratelimit-', 'openai-'];

function forwarded(name: string, names: ReadonlySet<string>, prefixes: readonly string[]): boolean {
  return names.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}

function providerOf(raw: string): ProviderInfo {
  if (!(PROVIDER_IDS as readonly string[]).includes(raw)) {
    throw new NotFoundError('model provider', raw, 'provider');
  }
  return PROVIDERS[raw as ProviderId];
}

function requestedModel(body: Buffer | undefined): string | null {
  if (!body || body.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const model = typeof parsed === 'object' && parsed !== null ? (parsed as { model?: unknown }).model : undefined;
    return typeof model === 'string' && model ? model : null;
  } catch {
    return null;
  }
}

interface OpenRun {
  workspaceId: string;
  metered: MeteredRunUsage;
  /** Ends the run's requests still in flight when the run ends. */
  ended: AbortController;
}

/**
 * The loopback model endpoint (SEC-6). An external runner gets `<server>/api/model-proxy/<provider>`
 * as its base URL and its run token as its API key; the broker checks that the token belongs to a run
 * that is in progress on a transport, finds the real key and base URL the way the built-in harness
 * does (workspace settings, then the server's environment), forwards the request with the real key,
 * streams the answer back byte for byte, and meters the usage each response reports against the run.
 *
 * Only a provider's model endpoints are reachable (messages, chat completions, responses, token
 * counting, model listing): the run token cannot be turned into any other use of the real key.
 * The real key is never put in a response: upstream error bodies are scrubbed of it.
 */
export class ModelBroker {
  private readonly runs = new Map<string, OpenRun>();
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: ModelBrokerOptions) {
    this.fetchFn = options.fetch ?? fetch;
  }

  /** Lets the run's token use the broker until {@link close}. */
  open(runId: string, workspaceId: string): void {
    this.runs.set(runId, {
      workspaceId,
      metered: { usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0, responses: 0, priced: true },
      ended: new AbortController(),
    });
  }

  /** Ends the run's access (requests in flight are cut) and returns what it used, or null if it never called. */
  close(runId: string): MeteredRunUsage | null {
    const run = this.runs.get(runId);
    if (!run) return null;
    this.runs.delete(runId);
    run.ended.abort();
    return run.metered.responses > 0 ? run.metered : null;
  }

  /** What the run has used so far. */
  usage(runId: string): MeteredRunUsage | null {
    return this.runs.get(runId)?.metered ?? null;
  }

  async forward(request: BrokerRequest): Promise<BrokerResponse> {
    const run = this.runs.get(request.principal.runId);
    if (!run || run.workspaceId !== request.principal.workspaceId) {
      throw new ForbiddenError('this run token does not belong to a run that may call models through the broker', 'authorization');
    }
    const provider = providerOf(request.provider);
    const method = request.method.toUpperCase();
    // The CLI probes its base URL at start-up; answer it here, the upstream is none of its business.
    if ((method === 'HEAD' || method === 'GET') && (request.path === '' || request.path === '/')) {
      return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ ok: true, provider: provider.id })) };
    }
    const path = provider.protocol === 'anthropic-messages' ? request.path : request.path.replace(/^\/v1(?=\/)/, '');
    const endpoints = provider.protocol === 'anthropic-messages' ? ANTHROPIC_ENDPOINTS : OPENAI_ENDPOINTS;
    const endpoint = endpoints.find((candidate) => candidate.method === method && candidate.pattern.test(path));
    if (!endpoint) throw new NotFoundError(`${provider.label} endpoint`, `${method} ${request.path || '/'}`, 'path');

    const settings = await this.options.settings.get(run.workspaceId);
    const { baseUrl, apiKey } = resolveProviderEndpoint(provider, settings, this.options.env);
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || !forwarded(name, FORWARDED_REQUEST_HEADERS, FORWARDED_REQUEST_PREFIXES)) continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (apiKey) {
      if (provider.protocol === 'anthropic-messages') headers['x-api-key'] = apiKey;
      else headers.authorization = `Bearer ${apiKey}`;
    }
    const url = `${baseUrl.replace(/\/+$/, '')}${path}${request.query ? `?${request.query}` : ''}`;
    let upstream: Response;
    try {
      upstream = await this.fetchFn(url, {
        method,
        headers,
        ...(method === 'POST' && request.body ? { body: request.body } : {}),
        signal: AbortSignal.any([request.signal, run.ended.signal]),
      });
    } catch (error) {
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      return jsonError(502, 'upstream_unreachable', `${provider.label} at ${baseUrl} could not be reached: ${scrub(reason, apiKey)}`);
    }
    const responseHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (forwarded(name, FORWARDED_RESPONSE_HEADERS, FORWARDED_RESPONSE_PREFIXES)) responseHeaders[name] = value;
    });
    const meter = endpoint.wire && upstream.ok ? new WireUsageMeter(endpoint.wire, upstream.headers.get('content-type')) : null;
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const measured = meter?.end();
      if (measured) this.record(run, provider, settings, measured.model ?? requestedModel(request.body), measured.usage);
    };
    const streaming = (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
    if (!upstream.body) {
      record();
      return { status: upstream.status, headers: responseHeaders, body: Buffer.alloc(0) };
    }
    if (!streaming) {
      // Whole bodies (JSON answers, errors) are small: scrub the key from them before they leave.
      const body = Buffer.from(await upstream.arrayBuffer());
      meter?.push(body);
      record();
      return { status: upstream.status, headers: responseHeaders, body: Buffer.from(scrub(body.toString('utf8'), apiKey)) };
    }
    // Server-sent events go through as they arrive; the meter reads a copy of each chunk.
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        meter?.push(chunk);
        callback(null, chunk);
      },
      flush(callback) {
        record();
        callback();
      },
    });
    const source = Readable.fromWeb(upstream.body as WebReadableStream<Uint8Array>);
    source.on('error', (error) => tap.destroy(error));
    // A stream cut short (the runner hung up, the run ended) still counts what it reported so far.
    tap.on('close', record);
    return { status: upstream.status, headers: responseHeaders, body: source.pipe(tap) };
  }

  private record(run: OpenRun, provider: ProviderInfo, settings: ModelSettings, modelId: string | null, usage: Required<ModelUsage>): void {
    const metered = run.metered;
    metered.responses += 1;
    metered.usage.inputTokens += usage.inputTokens;
    metered.usage.outputTokens += usage.outputTokens;
    metered.usage.cacheReadTokens += usage.cacheReadTokens;
    metered.usage.cacheWriteTokens += usage.cacheWriteTokens;
    const pricing = modelId ? modelPricing(provider, findModel(provider.id, modelId), settings) : null;
    if (!pricing) metered.priced = false;
    metered.costUsd += computeCost(usage, pricing);
  }
}

function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

function jsonError(status: number, code: string, message: string): BrokerResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ error: { code, message } })) };
}
