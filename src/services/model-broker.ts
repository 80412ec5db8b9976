import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors/index.js';
import { computeCost, findModel, modelPricing, PROVIDER_IDS, PROVIDERS, resolveProviderEndpoint, type ModelSettings, type ProviderId, type ProviderInfo } from '../llm/model-catalog.js';
import { ModelNotConfiguredError } from '../llm/model-not-configured-error.js';
import type { ModelUsage } from '../llm/model-types.js';
import { matchModelEndpoint, type MatchedModelEndpoint } from '../llm/model-proxy-endpoints.js';
import { plainRequestPath } from '../llm/plain-request-path.js';
import { readCappedResponse } from '../llm/read-capped-body.js';
import { WireUsageMeter } from '../llm/wire-usage-meter.js';
import { formatBytes } from '../sandbox/process-limits.js';
import { BaseUrlProbe } from './base-url-probe.js';
import { providerSetupProblem, unreachableBaseUrlCause } from './model-provider-readiness.js';
import { authenticationErrorAnswer, providerToolRefusalAnswer, unreachableCode, unreachableUpstreamAnswer } from './model-proxy-error-answers.js';
import { findProviderSideTools, type ProviderSideTool } from '../llm/provider-side-tools.js';
import { readModelRequestToolFields, setModelRequestFields } from './model-request-tool-fields.js';
import { clientSideBetas } from '../llm/anthropic-beta-allowlist.js';
import { unknownProviderRefusal } from './unknown-model-provider.js';
import type { AgentPrincipal } from './runs/run-tokens.js';
import type { RecordedModelCall } from '../adapters/agent-transport.js';
import { processLatencies, secondsSince } from './operations/process-latencies.js';

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
  /** The path after `/api/model-proxy/<provider>` exactly as the runner sent it (still encoded), starting with `/` (or empty). */
  rawPath: string;
  /** The raw query string without `?`, or ''. */
  rawQuery: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
}

/**
 * A request the broker has admitted (SEC-8): its token's run, workspace and provider check out and it
 * names an allowlisted endpoint. `local` is answered by the broker itself and never forwarded.
 */
export type AdmittedModelCall =
  | { kind: 'local'; response: BrokerResponse }
  | { kind: 'upstream'; runId: string; run: OpenRun; provider: ProviderInfo; method: 'GET' | 'POST'; matched: MatchedModelEndpoint; headers: IncomingHttpHeaders; body: Buffer | undefined };

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
  /** Largest answer that is not streamed the proxy reads from upstream (default {@link MODEL_ANSWER_BYTES}). */
  maxAnswerBytes?: number;
  /** How long an upstream may take to start its answer (default {@link UPSTREAM_ANSWER_START_MS}). */
  answerStartMs?: number;
  /** BUD-1: told of every metered model response (a call's usage by kind and cost), for the spend ledger. */
  onModelCall?(runId: string, workspaceId: string, call: RecordedModelCall): void;
}

/**
 * Longest the proxy waits for an upstream to start its answer (SEC-10), the providers' SDKs' own
 * default request timeout: a non-streamed answer comes whole at the end of a long generation, so it
 * may take minutes, but a base URL that accepts the connection and never answers must not hold the
 * runner's request (and a socket) for as long as the run lives. Once the answer started, a streamed
 * one lasts as long as the runner reads it.
 */
export const UPSTREAM_ANSWER_START_MS = 10 * 60_000;

/**
 * The most of a non-streamed upstream answer the proxy holds (SEC-10): it is read whole to scrub the
 * key from it and meter it. A model's JSON answer (a long completion, a few generated images in
 * base64) is far smaller; past it, the upstream is cut off and the runner gets a 502 naming the cap.
 */
export const MODEL_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * Request headers passed upstream; everything else (the run token, cookies, forwarding headers) stays
 * behind. `anthropic-beta` is passed with its client-side betas only (`anthropic-beta-allowlist.ts`).
 */
const FORWARDED_REQUEST_HEADERS = new Set(['content-type', 'accept', 'user-agent', 'anthropic-version', 'anthropic-beta', 'openai-beta']);
const FORWARDED_REQUEST_PREFIXES = ['x-stainless-'];

/**
 * Response headers passed back to the runner (SEC-8): what runtimes read — the content type, the
 * request id they quote in errors, and what their back-off reads (retry-after, rate limits,
 * x-should-retry). The provider's account headers (`openai-organization`, `openai-project`,
 * `anthropic-organization-id`, …) say whose key it is and stay here.
 */
const FORWARDED_RESPONSE_HEADERS = new Set(['content-type', 'request-id', 'x-request-id', 'retry-after', 'retry-after-ms', 'x-should-retry']);
const FORWARDED_RESPONSE_PREFIXES = ['anthropic-ratelimit-', 'x-ratelimit-'];

/**
 * The run's own policy on a provider-side tool a model request names (SEC-8), as the run's gate
 * decides it (its rules, inherited ceilings, mode and dial), recorded in the run log by the gate.
 * `explanation` names the deciding rule.
 */
export type ProviderToolGate = (tool: ProviderSideTool) => Promise<{ decision: 'allow' | 'ask' | 'deny'; explanation: string }>;

function forwarded(name: string, names: ReadonlySet<string>, prefixes: readonly string[]): boolean {
  return names.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}

/** The provider a proxy URL names, or null when the server knows no such provider. */
function providerOf(raw: string): ProviderInfo | null {
  return (PROVIDER_IDS as readonly string[]).includes(raw) ? PROVIDERS[raw as ProviderId] : null;
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
  /** SEC-8: the one provider the run is configured for; null when its runner reaches no model through the broker. */
  provider: ProviderId | null;
  metered: MeteredRunUsage;
  /** Ends the run's requests still in flight when the run ends. */
  ended: AbortController;
  /** TRUTH-4: why the run's model cannot be reached (no key, an unreachable base URL), once the broker found out. */
  fatalCause: string | null;
  /** Told the fatal cause the moment it is found, so the run ends now rather than after the runner's retries. */
  onFatal: ((cause: string) => void) | undefined;
  /** Decides the provider-side tools its requests name; without one, every such tool is refused (fail closed). */
  providerTools: ProviderToolGate | undefined;
}

/**
 * The loopback model endpoint (SEC-6). An external runner gets `<server>/api/model-proxy/<provider>`
 * as its base URL and its run token as its API key; the broker checks that the token belongs to a run
 * that is in progress on a transport, finds the real key and base URL the way the built-in harness
 * does (workspace settings, then the server's environment), forwards the request with the real key,
 * streams the answer back byte for byte, and meters the usage each response reports against the run.
 *
 * Only a provider's model endpoints are reachable (messages, chat completions, responses, token
 * counting, model listing; `model-proxy-endpoints.ts`), matched on the decoded path after every
 * ambiguous form was refused, and only for the provider the token's run is bound to (SEC-8): the run
 * token cannot be turned into any other use of the real key, nor into another provider's key.
 * The real key is never put in a response: upstream error bodies are scrubbed of it.
 */
export class ModelBroker {
  private readonly runs = new Map<string, OpenRun>();
  private readonly fetchFn: typeof fetch;
  private readonly probe = new BaseUrlProbe();

  constructor(private readonly options: ModelBrokerOptions) {
    this.fetchFn = options.fetch ?? fetch;
  }

  /**
   * Lets the run's token spend `provider` (and only it, SEC-8) until {@link close}. `onFatal` hears
   * (once) when a call finds that the provider cannot be used at all (TRUTH-4).
   */
  open(runId: string, workspaceId: string, provider: ProviderId | null, onFatal?: (cause: string) => void, providerTools?: ProviderToolGate): void {
    this.runs.set(runId, {
      workspaceId,
      provider,
      metered: { usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0, responses: 0, priced: true },
      ended: new AbortController(),
      fatalCause: null,
      onFatal,
      providerTools,
    });
  }

  /** TRUTH-4: why the run's model could not be reached, if a call found out (read it before {@link close}). */
  fatalCause(runId: string): string | null {
    return this.runs.get(runId)?.fatalCause ?? null;
  }

  /**
   * TRUTH-4: why `provider` cannot be called for this workspace (a missing key or base URL, naming the
   * setting), or null; checked before a run starts, with the settings and environment calls use.
   */
  async setupProblem(workspaceId: string, provider: ProviderId): Promise<string | null> {
    return providerSetupProblem(PROVIDERS[provider], await this.options.settings.get(workspaceId), this.options.env);
  }

  /**
   * TRUTH-4: why `provider`'s base URL cannot be reached (nothing listens there, its host does not
   * resolve), found with one connect before a runner starts; null when it answered or the probe could
   * not tell. Call after {@link setupProblem} found nothing.
   */
  async reachProblem(workspaceId: string, provider: ProviderId): Promise<string | null> {
    const info = PROVIDERS[provider];
    const { baseUrl } = resolveProviderEndpoint(info, await this.options.settings.get(workspaceId), this.options.env);
    const code = await this.probe.unreachable(baseUrl);
    return code ? unreachableBaseUrlCause(info, baseUrl, code) : null;
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

  /**
   * Decides whether a request may be forwarded, before anything is (and before a paused run's wait):
   * the token's run must be open in the token's workspace (403), the provider known and the one the
   * run is bound to (403 naming it), the path plain (400: no dot segments, doubled or encoded
   * slashes, backslashes, NUL, however encoded) and the (method, path) on the allowlist (404). An
   * unknown provider, on a plain allowlisted path, gets a final 401 and ends the run (TRUTH-4).
   */
  admit(request: BrokerRequest): AdmittedModelCall {
    const runId = request.principal.runId;
    const run = this.runs.get(runId);
    if (!run || run.workspaceId !== request.principal.workspaceId) {
      throw new ForbiddenError('this run token does not belong to a run that may call models through the broker', 'authorization');
    }
    const provider = providerOf(request.provider);
    if (!provider) {
      // TRUTH-4: a runner pointed at a provider that does not exist cannot succeed by retrying.
      const refused = unknownProviderRefusal({ ...request, bound: run.provider ? PROVIDERS[run.provider] : null });
      this.fatal(run, refused.cause);
      return { kind: 'local', response: refused.answer };
    }
    if (run.provider !== provider.id) {
      const bound = run.provider ? `${PROVIDERS[run.provider].label} (${run.provider}), the provider its run is configured for` : 'no provider: its runner reaches no model through the broker';
      throw new ForbiddenError(`this run token may not spend ${provider.label} (${provider.id}); it spends only ${bound}`, 'provider');
    }
    const method = request.method.toUpperCase();
    const path = plainRequestPath(request.rawPath);
    if (!path.ok) throw new ValidationError('path', `the model proxy path ${path.problem}; nothing was forwarded`);
    // The CLI probes its base URL at start-up; answer it here, the upstream is none of its business.
    if ((method === 'HEAD' || method === 'GET') && path.segments.length === 0) {
      return { kind: 'local', response: { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ ok: true, provider: provider.id })) } };
    }
    const matched = method === 'GET' || method === 'POST' ? matchModelEndpoint(provider.protocol, method, path.segments, request.rawQuery) : null;
    if (!matched) throw new NotFoundError(`${provider.label} endpoint`, `${method} ${request.rawPath || '/'}`, 'path');
    return { kind: 'upstream', runId, run, provider, method: matched.endpoint.method, matched, headers: request.headers, body: request.body };
  }

  /**
   * Decides the provider-side tools an admitted call's body names (SEC-8), before it may wait or be
   * forwarded: web fetch and search, MCP servers, code execution — effects the provider would cause on
   * its side, out of reach of every sandbox and hook here. Each is put to the run's own policy as the
   * effect it is; one that is not allowed (deny, or ask: a model request is not held for an approval)
   * turns the call into a final 403 in the provider's error shape naming the field and the rule —
   * unless the tool can be switched off in the body (xAI Live Search), which is then forwarded with
   * it off. A body that is not JSON is refused (400): the proxy forwards only what it could read.
   */
  async screen(call: AdmittedModelCall): Promise<AdmittedModelCall> {
    if (call.kind === 'local' || call.method !== 'POST') return call;
    const read = await readModelRequestToolFields(call.body ?? Buffer.alloc(0));
    if (!read.ok) throw new ValidationError('body', `the model request body is not JSON the proxy can read (${read.problem}); nothing was forwarded`);
    const parsed = read.fields;
    const wire = call.matched.endpoint.wire ?? (call.provider.protocol === 'anthropic-messages' ? 'anthropic-messages' : 'openai-chat-completions');
    // Fields of tools refused but able to be switched off (xAI Live Search): set once every tool is decided.
    let switchedOff: Record<string, unknown> | null = null;
    for (const tool of findProviderSideTools(wire, parsed)) {
      let verdict: Awaited<ReturnType<ProviderToolGate>>;
      try {
        verdict = call.run.providerTools ? await call.run.providerTools(tool) : { decision: 'deny', explanation: 'this run has no policy gate to decide it (fail closed)' };
      } catch (error) {
        verdict = { decision: 'deny', explanation: `the gate failed: ${error instanceof Error ? error.message : String(error)} (fail closed)` };
      }
      if (verdict.decision === 'allow') continue;
      if (tool.switchOff) {
        switchedOff = { ...(switchedOff ?? {}), ...tool.switchOff.fields };
        continue;
      }
      const why = verdict.decision === 'ask' ? `needs an operator's approval, and the model proxy does not hold a model request for one: ${verdict.explanation}` : `is denied: ${verdict.explanation}`;
      const message = `${tool.field} (${tool.what}, run by ${call.provider.label} on its side as ${tool.effects.length === 1 ? tool.effects[0] : 'unseen code'}) ${why}. Nothing was sent to ${call.provider.label}.`;
      return { kind: 'local', response: providerToolRefusalAnswer(call.provider.protocol, tool.field, message) };
    }
    if (!switchedOff) return call;
    const rewritten = await setModelRequestFields(call.body ?? Buffer.alloc(0), switchedOff);
    if (!rewritten.ok) throw new ValidationError('body', `the model request body could not be rewritten to switch off a provider-side tool (${rewritten.problem}); nothing was forwarded`);
    return { ...call, body: rewritten.body };
  }

  /** Sends an admitted call upstream with the real key; `signal` is aborted when the runner hangs up. */
  async forward(call: AdmittedModelCall, signal: AbortSignal): Promise<BrokerResponse> {
    if (call.kind === 'local') return call.response;
    const { run, provider, method, matched } = call;
    // The run may have ended while the call waited (a pause): its token spends nothing any more.
    if (this.runs.get(call.runId) !== run) throw new ConflictError('runId', `run ${call.runId} has ended; the model request was not sent`);
    const endpoint = matched.endpoint;
    const settings = await this.options.settings.get(run.workspaceId);
    let resolved: ReturnType<typeof resolveProviderEndpoint>;
    try {
      resolved = resolveProviderEndpoint(provider, settings, this.options.env);
    } catch (error) {
      if (!(error instanceof ModelNotConfiguredError)) throw error;
      // TRUTH-4: a missing key is final: the runtime must not retry it, and the run must say so now.
      const cause = providerSetupProblem(provider, settings, this.options.env) ?? error.message;
      this.fatal(run, cause);
      return authenticationErrorAnswer(provider.protocol, cause);
    }
    const { baseUrl, apiKey } = resolved;
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const [name, value] of Object.entries(call.headers)) {
      if (value === undefined || !forwarded(name, FORWARDED_REQUEST_HEADERS, FORWARDED_REQUEST_PREFIXES)) continue;
      const joined = Array.isArray(value) ? value.join(', ') : value;
      if (name !== 'anthropic-beta') headers[name] = joined;
      else {
        // SEC-8: only betas that change how the model answers; one that enables a provider-side tool is dropped.
        const kept = clientSideBetas(joined);
        if (kept) headers[name] = kept;
      }
    }
    if (apiKey) {
      if (provider.protocol === 'anthropic-messages') headers['x-api-key'] = apiKey;
      else headers.authorization = `Bearer ${apiKey}`;
    }
    const url = `${baseUrl.replace(/\/+$/, '')}${matched.upstreamPath}${matched.upstreamQuery ? `?${matched.upstreamQuery}` : ''}`;
    let upstream: Response;
    const startedAt = performance.now();
    const answerStartMs = this.options.answerStartMs ?? UPSTREAM_ANSWER_START_MS;
    // Cleared once the answer's head arrives: a timeout signal would also cut the body that follows.
    const notAnswering = new AbortController();
    const answerStartTimer = setTimeout(() => notAnswering.abort(), answerStartMs);
    try {
      upstream = await this.fetchFn(url, {
        method,
        headers,
        ...(method === 'POST' && call.body ? { body: call.body } : {}),
        signal: AbortSignal.any([signal, run.ended.signal, notAnswering.signal]),
      });
    } catch (error) {
      if (notAnswering.signal.aborted && !signal.aborted && !run.ended.signal.aborted) {
        return jsonError(504, 'upstream_timeout', `${provider.label} at ${baseUrl} did not start its answer within ${answerStartMs / 1000} s; the request was dropped`);
      }
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      const code = unreachableCode(error);
      if (code && !signal.aborted && !run.ended.signal.aborted) {
        // TRUTH-4: nothing listens at the base URL (or its host does not resolve): retrying cannot help.
        const cause = unreachableBaseUrlCause(provider, baseUrl, code);
        this.fatal(run, cause);
        return unreachableUpstreamAnswer(provider.protocol, scrub(cause, apiKey));
      }
      return jsonError(502, 'upstream_unreachable', `${provider.label} at ${baseUrl} could not be reached: ${scrub(reason, apiKey)}`);
    } finally {
      clearTimeout(answerStartTimer);
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
      processLatencies.modelCall.observe(secondsSince(startedAt));
      const measured = meter?.end();
      if (measured) this.record(call.runId, run, provider, settings, measured.model ?? requestedModel(call.body), measured.usage);
    };
    const streaming = (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
    if (!upstream.body) {
      record();
      return { status: upstream.status, headers: responseHeaders, body: Buffer.alloc(0) };
    }
    if (!streaming) {
      // Whole bodies (JSON answers, errors) are small, and read within a cap: scrub the key from them before they leave.
      const maxBytes = this.options.maxAnswerBytes ?? MODEL_ANSWER_BYTES;
      const { bytes: body, overCap } = await readCappedResponse(upstream, maxBytes);
      if (overCap) {
        return jsonError(502, 'upstream_answer_too_large', `${provider.label} answered with more than ${formatBytes(maxBytes)}, the most the model proxy reads of an answer that is not streamed; the answer was dropped`);
      }
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

  /** Records the run's first fatal cause and tells the run, once. */
  private fatal(run: OpenRun, cause: string): void {
    if (run.fatalCause) return;
    run.fatalCause = cause;
    run.onFatal?.(cause);
  }

  private record(runId: string, run: OpenRun, provider: ProviderInfo, settings: ModelSettings, modelId: string | null, usage: Required<ModelUsage>): void {
    const metered = run.metered;
    metered.responses += 1;
    metered.usage.inputTokens += usage.inputTokens;
    metered.usage.outputTokens += usage.outputTokens;
    metered.usage.cacheReadTokens += usage.cacheReadTokens;
    metered.usage.cacheWriteTokens += usage.cacheWriteTokens;
    const pricing = modelId ? modelPricing(provider, findModel(provider.id, modelId), settings) : null;
    if (!pricing) metered.priced = false;
    const costUsd = computeCost(usage, pricing);
    metered.costUsd += costUsd;
    this.options.onModelCall?.(runId, run.workspaceId, { provider: provider.id, model: modelId ?? 'unknown', usage: { ...usage }, costUsd, priced: pricing !== null });
  }
}

function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

function jsonError(status: number, code: string, message: string): BrokerResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ error: { code, message } })) };
}
