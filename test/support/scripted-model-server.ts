import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicErrorBody, anthropicRequestViews, renderAnthropicReply } from './scripted-anthropic-wire.js';
import { openAIErrorBody, openAIRequestViews, renderOpenAIReply } from './scripted-openai-wire.js';
import { renderResponsesReply, responsesRequestViews } from './scripted-openai-responses-wire.js';
import { ScriptedPromptCache } from './scripted-prompt-cache.js';
import { reply, type ReplySpec, type ScriptedProtocol, type ScriptedReply, type ScriptedRequest } from './scripted-reply.js';
import { estimateTokens, type RenderedReply, scriptedIds } from './scripted-wire-helpers.js';

export { reply, ScriptedReply } from './scripted-reply.js';
export type { ScriptedRequest, ScriptedToolResult, ScriptedUsage, ScriptedStopReason, ScriptedProtocol } from './scripted-reply.js';

/** The text answered when a request arrives and no reply is left for it. */
export const UNSCRIPTED_REPLY_TEXT = '[scripted model server: no reply scripted]';

/**
 * Chooses which requests a `scriptFor` conversation answers: a function over the request, or a
 * marker string looked for in the system prompt and message text.
 */
export type ConversationMatcher = string | ((request: ScriptedRequest) => boolean);

/** A scripted conversation: its own reply queue and the requests it answered. */
export interface ScriptedConversation {
  readonly name: string;
  readonly requests: ScriptedRequest[];
  /** Replies not yet consumed. */
  readonly remaining: number;
  /** Appends more replies to this conversation. */
  script(...replies: ScriptedReply[]): ScriptedConversation;
}

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>` — no `/v1`. */
  readonly url: string;
  /** For the Anthropic SDK and `ANTHROPIC_BASE_URL` (the SDK appends `/v1/messages`). */
  readonly anthropicBaseUrl: string;
  /** For the OpenAI SDK and `OPENAI_BASE_URL` (ends in `/v1`). */
  readonly openaiBaseUrl: string;
  readonly port: number;
  /**
   * Environment variables that point every provider of `resolveModel` (and the `claude` CLI) at this
   * server, with dummy keys: `resolveModel({ modelId, env: server.providerEnv })`.
   */
  readonly providerEnv: Readonly<Record<string, string>>;
  /** Every model request, in arrival order (count_tokens and unknown paths are not model requests). */
  readonly requests: ScriptedRequest[];
  /** Model requests that found no scripted reply. */
  readonly unscriptedRequests: ScriptedRequest[];
  /**
   * What a test's own code running inside the server threw — a dynamic reply, a matcher — with a
   * failed `expect` among them. The client only sees an HTTP 500, which a runtime may retry or
   * swallow, so `close()` and `waitForRequests` rethrow the first of these: the test fails with
   * the assertion's own message instead of passing or failing elsewhere.
   */
  readonly callbackErrors: readonly unknown[];
  /** Requests to paths the server does not serve (answered 404). */
  readonly unknownRequests: Array<{ method: string; path: string }>;
  /** Every request that arrived, whatever its path, as sent (path with query): what a proxy in front forwarded. */
  readonly received: Array<{ method: string; path: string }>;
  /** Replies still queued, shared queue and conversations together. */
  readonly pendingReplies: number;
  /** Appends replies to the shared queue: each model request takes the next one. */
  script(...replies: ScriptedReply[]): void;
  /** A separate queue for requests the matcher selects (checked before the shared queue, in creation order). */
  scriptFor(matcher: ConversationMatcher, ...replies: ScriptedReply[]): ScriptedConversation;
  /** Resolves once at least `count` model requests have arrived; rejects with a callback's error (see `callbackErrors`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ScriptedRequest[]>;
  /** Forgets queued replies, conversations and recorded requests. */
  reset(): void;
  /** Changes the window `maxInputTokens` set (null: no limit). */
  setMaxInputTokens(tokens: number | null): void;
  /** Requests refused as too long, with the count each had. */
  readonly refusedAsTooLong: Array<{ index: number; tokens: number }>;
  /** Releases hanging replies, drops open connections and stops listening; then rethrows a callback's error (see `callbackErrors`). */
  close(): Promise<void>;
}

export interface ScriptedModelServerOptions {
  /** Text of the reply given to unscripted requests. */
  unscriptedText?: string;
  /**
   * The model's window in tokens (as {@link countPromptTokens} counts them): a longer request is
   * refused with the provider's own "prompt is too long" error (HTTP 400) and consumes no reply.
   */
  maxInputTokens?: number;
  /**
   * Simulates the provider's prompt cache (scripted-prompt-cache.ts): each reply reports the prefix
   * it shares with recent requests as cache-read tokens and the rest as input, unless the reply
   * scripts its own cache reads. Off by default: other tests' usage figures stay as they were.
   */
  promptCache?: boolean;
}

/**
 * The server's token count of a request: its system prompt, messages (or input) and tools as JSON,
 * four characters a token. `count_tokens` reports it, `maxInputTokens` is checked against it, and
 * the harness's own estimate is calibrated against it.
 */
export function countPromptTokens(body: Record<string, unknown>): number {
  return estimateTokens(JSON.stringify([body.system ?? '', body.messages ?? body.input ?? [], body.tools ?? []]));
}

/** The provider's real refusal of a request over the window (Anthropic, OpenAI Chat Completions and Responses). */
function promptTooLongBody(protocol: ScriptedProtocol, tokens: number, maximum: number): unknown {
  if (protocol === 'anthropic') {
    return { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${maximum} maximum` }, request_id: scriptedIds.request() };
  }
  return {
    error: {
      message: `This model's maximum context length is ${maximum} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
}

interface ConversationState {
  name: string;
  matcher: ConversationMatcher;
  queue: ScriptedReply[];
  requests: ScriptedRequest[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function matches(matcher: ConversationMatcher, request: ScriptedRequest): boolean {
  return typeof matcher === 'string' ? request.allText.includes(matcher) : matcher(request);
}

/**
 * Starts a real HTTP server on 127.0.0.1 (random port) that speaks the Anthropic Messages API and
 * OpenAI Chat Completions, streaming and not, answering each model request with the next scripted
 * reply. The only stand-in in our tests is the model itself (convention 10). No artificial latency
 * unless a reply asks for it (`slow`), so benchmarks can measure harness overhead against it.
 */
export async function startScriptedModelServer(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const unscriptedText = options.unscriptedText ?? UNSCRIPTED_REPLY_TEXT;
  let maxInputTokens = options.maxInputTokens ?? null;
  const promptCache = options.promptCache ? new ScriptedPromptCache() : null;
  const refusedAsTooLong: Array<{ index: number; tokens: number }> = [];
  let sharedQueue: ScriptedReply[] = [];
  let conversations: ConversationState[] = [];
  const requests: ScriptedRequest[] = [];
  const unscriptedRequests: ScriptedRequest[] = [];
  const unknownRequests: Array<{ method: string; path: string }> = [];
  const received: Array<{ method: string; path: string }> = [];
  const hangReleases = new Set<() => void>();
  const requestWaiters = new Set<() => void>();
  const callbackErrors: unknown[] = [];
  /** Keeps what a test's callback threw, and wakes the waiters so they can rethrow it. */
  const recordCallbackError = (error: unknown) => {
    callbackErrors.push(error);
    notifyWaiters();
  };
  /** The error a test sees: the callback's own (an assertion keeps its diff), or all of them. */
  const callbackFailure = (): unknown =>
    callbackErrors.length === 1 ? callbackErrors[0] : new AggregateError(callbackErrors, `scripted model server: ${callbackErrors.length} callbacks threw`);
  let closed = false;

  const notifyWaiters = () => {
    for (const waiter of [...requestWaiters]) waiter();
  };

  /** Waits until the server closes or the client goes away. */
  const hangUntilReleased = (response: ServerResponse) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const release = () => {
        hangReleases.delete(release);
        response.off('close', release);
        resolve();
      };
      hangReleases.add(release);
      response.on('close', release);
    });

  const nextReply = (request: ScriptedRequest): ScriptedReply | undefined => {
    for (const conversation of conversations) {
      let matched: boolean;
      try {
        matched = matches(conversation.matcher, request);
      } catch (error) {
        // The test's matcher threw (an `expect` in it, say): the request is answered 500 below, the test fails at close.
        recordCallbackError(error);
        throw error;
      }
      if (!matched) continue;
      request.conversation = conversation.name;
      conversation.requests.push(request);
      // A matched conversation never borrows from the shared queue.
      return conversation.queue.shift();
    }
    return sharedQueue.shift();
  };

  const resolveSpec = async (scripted: ScriptedReply, request: ScriptedRequest): Promise<ReplySpec> => {
    let current = scripted;
    for (let depth = 0; current.dynamic && depth < 8; depth += 1) current = await current.dynamic(request);
    return current.spec;
  };

  const sendJsonError = (response: ServerResponse, protocol: ScriptedProtocol, status: number, message: string) => {
    const requestId = scriptedIds.request();
    const body = protocol === 'anthropic' ? anthropicErrorBody({ status, message }, requestId) : openAIErrorBody({ status, message });
    response.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId });
    response.end(JSON.stringify(body));
  };

  const writeReply = async (response: ServerResponse, rendered: RenderedReply, spec: ReplySpec, stream: boolean) => {
    const ending = spec.ending;
    const gone = () => response.destroyed || response.writableEnded;
    if (ending.kind === 'hang' && (spec.blocks.length === 0 || !stream) && !spec.error) {
      await hangUntilReleased(response);
      response.destroy();
      return;
    }
    if (ending.kind === 'disconnect' && !stream && !spec.error) {
      response.destroy();
      return;
    }
    const body = [...rendered.frames];
    if (stream && !spec.error) {
      if (ending.kind === 'normal') body.push(...rendered.tail);
      if (ending.kind === 'stream_error' && rendered.streamErrorFrame) body.push(rendered.streamErrorFrame);
      if (ending.kind === 'malformed' && rendered.malformedFrame) body.push(rendered.malformedFrame);
    }
    const finishes = ending.kind !== 'hang' && ending.kind !== 'disconnect';
    if (spec.slowMs <= 0) {
      response.writeHead(rendered.status, rendered.headers);
      if (finishes || spec.error || !stream) response.end(body.join(''));
      else response.write(body.join(''));
    } else {
      response.writeHead(rendered.status, rendered.headers);
      response.flushHeaders();
      for (const frame of body) {
        await sleep(spec.slowMs);
        if (gone()) return;
        response.write(frame);
      }
      if (finishes || spec.error || !stream) response.end();
    }
    if (spec.error || !stream || finishes) return;
    if (ending.kind === 'hang') {
      await hangUntilReleased(response);
      response.destroy();
    } else if (ending.kind === 'disconnect') {
      // Let the written frames reach the client before the reset.
      await new Promise<void>((resolve) => response.socket?.write('', () => resolve()) ?? resolve());
      response.socket?.destroy();
    }
  };

  const handleModelRequest = async (protocol: ScriptedProtocol, request: IncomingMessage, response: ServerResponse, path: string) => {
    const raw = await readBody(request);
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(raw);
      body = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
    } catch {
      body = null;
    }
    const views = protocol === 'anthropic' ? anthropicRequestViews(body) : protocol === 'openai-responses' ? responsesRequestViews(body) : openAIRequestViews(body);
    const recorded: ScriptedRequest = {
      index: requests.length,
      protocol,
      method: request.method ?? 'POST',
      path,
      headers: flattenHeaders(request),
      body,
      ...views,
      scripted: true,
      conversation: undefined,
      receivedAt: Date.now(),
    };
    if (!body) {
      recorded.scripted = false;
      requests.push(recorded);
      notifyWaiters();
      sendJsonError(response, protocol, 400, 'scripted model server: the request body is not valid JSON');
      return;
    }
    const tokens = maxInputTokens === null ? 0 : countPromptTokens(body);
    if (maxInputTokens !== null && tokens > maxInputTokens) {
      recorded.scripted = false;
      requests.push(recorded);
      refusedAsTooLong.push({ index: recorded.index, tokens });
      notifyWaiters();
      response.writeHead(400, { 'content-type': 'application/json', 'request-id': scriptedIds.request() });
      response.end(JSON.stringify(promptTooLongBody(protocol, tokens, maxInputTokens)));
      return;
    }
    const scripted = nextReply(recorded);
    requests.push(recorded);
    if (!scripted) {
      recorded.scripted = false;
      unscriptedRequests.push(recorded);
    }
    notifyWaiters();
    let spec: ReplySpec;
    try {
      spec = await resolveSpec(scripted ?? reply().text(unscriptedText), recorded);
    } catch (error) {
      recordCallbackError(error);
      sendJsonError(response, protocol, 500, `scripted model server: the dynamic reply threw: ${(error as Error).message}`);
      return;
    }
    if (promptCache) {
      recorded.cacheReadTokens = promptCache.read(body);
      if (spec.usage.cacheRead === undefined) {
        const input = spec.usage.input ?? Math.max(0, countPromptTokens(body) - recorded.cacheReadTokens);
        spec = { ...spec, usage: { ...spec.usage, cacheRead: recorded.cacheReadTokens, input } };
      }
    }
    const render = protocol === 'anthropic' ? renderAnthropicReply : protocol === 'openai-responses' ? renderResponsesReply : renderOpenAIReply;
    const rendered = render(spec, recorded, `${recorded.allText}${JSON.stringify(body.tools ?? '')}`);
    await writeReply(response, rendered, spec, recorded.stream);
  };

  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    const pathname = path.split('?')[0] ?? '/';
    const method = request.method ?? 'GET';
    received.push({ method, path });
    const handle = async () => {
      if (method === 'POST' && pathname === '/v1/messages') return handleModelRequest('anthropic', request, response, path);
      if (method === 'POST' && (pathname === '/v1/chat/completions' || pathname === '/chat/completions')) {
        return handleModelRequest('openai', request, response, path);
      }
      if (method === 'POST' && (pathname === '/v1/responses' || pathname === '/responses')) return handleModelRequest('openai-responses', request, response, path);
      if (method === 'POST' && pathname === '/v1/messages/count_tokens') {
        const raw = await readBody(request);
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          return sendJsonError(response, 'anthropic', 400, 'scripted model server: the request body is not valid JSON');
        }
        response.writeHead(200, { 'content-type': 'application/json', 'request-id': scriptedIds.request() });
        response.end(JSON.stringify({ input_tokens: countPromptTokens(body) }));
        return;
      }
      request.resume();
      unknownRequests.push({ method, path });
      const protocol: ScriptedProtocol = /^\/(v1\/)?(chat|responses)/.test(pathname) ? 'openai' : 'anthropic';
      sendJsonError(response, protocol, 404, `scripted model server: no route for ${method} ${pathname}`);
    };
    handle().catch((error: unknown) => {
      if (!response.headersSent) sendJsonError(response, 'anthropic', 500, `scripted model server: ${(error as Error).message}`);
      else response.destroy();
    });
  });
  // SDK clients keep connections alive between requests; do not race them with a short server timeout.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
  server.requestTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const makeConversation = (state: ConversationState): ScriptedConversation => ({
    name: state.name,
    requests: state.requests,
    get remaining() {
      return state.queue.length;
    },
    script(...replies: ScriptedReply[]) {
      state.queue.push(...replies);
      return this;
    },
  });

  return {
    url,
    anthropicBaseUrl: url,
    openaiBaseUrl: `${url}/v1`,
    port,
    providerEnv: {
      ANTHROPIC_API_KEY: 'scripted-anthropic-key',
      ANTHROPIC_BASE_URL: url,
      OPENAI_API_KEY: 'scripted-openai-key',
      OPENAI_BASE_URL: `${url}/v1`,
      DEEPSEEK_API_KEY: 'scripted-deepseek-key',
      DEEPSEEK_BASE_URL: url,
      XAI_API_KEY: 'scripted-xai-key',
      XAI_BASE_URL: `${url}/v1`,
      OLLAMA_BASE_URL: `${url}/v1`,
      OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`,
    },
    requests,
    refusedAsTooLong,
    setMaxInputTokens(tokens: number | null) {
      maxInputTokens = tokens;
    },
    received,
    callbackErrors,
    unscriptedRequests,
    unknownRequests,
    get pendingReplies() {
      return sharedQueue.length + conversations.reduce((sum, conversation) => sum + conversation.queue.length, 0);
    },
    script(...replies: ScriptedReply[]) {
      sharedQueue.push(...replies);
    },
    scriptFor(matcher: ConversationMatcher, ...replies: ScriptedReply[]) {
      const state: ConversationState = {
        name: typeof matcher === 'string' ? matcher : `conversation-${conversations.length + 1}`,
        matcher,
        queue: [...replies],
        requests: [],
      };
      conversations.push(state);
      return makeConversation(state);
    },
    waitForRequests(count: number, timeoutMs = 10_000) {
      return new Promise<ScriptedRequest[]>((resolve, reject) => {
        if (callbackErrors.length > 0) return reject(callbackFailure());
        if (requests.length >= count) return resolve(requests.slice());
        const timer = setTimeout(() => {
          requestWaiters.delete(check);
          reject(new Error(`scripted model server: ${requests.length} of ${count} requests arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (callbackErrors.length > 0) {
            clearTimeout(timer);
            requestWaiters.delete(check);
            return reject(callbackFailure());
          }
          if (requests.length < count) return;
          clearTimeout(timer);
          requestWaiters.delete(check);
          resolve(requests.slice());
        };
        requestWaiters.add(check);
      });
    },
    reset() {
      sharedQueue = [];
      conversations = [];
      requests.length = 0;
      refusedAsTooLong.length = 0;
      promptCache?.clear();
      unscriptedRequests.length = 0;
      unknownRequests.length = 0;
      received.length = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const release of [...hangReleases]) release();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (callbackErrors.length > 0) throw callbackFailure();
    },
  };
}
