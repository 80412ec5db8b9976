import type { ReplySpec, ScriptedHttpError, ScriptedRequest, ScriptedStopReason, ScriptedToolResult } from './scripted-reply.js';
import { asArray, chunkJson, chunkText, type Json, type RenderedReply, scriptedIds, stopReasonOf, usageOf } from './scripted-wire-helpers.js';

/** The OpenAI Chat Completions wire format: request views, `data:` chunk streams, JSON bodies and errors. */


function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => {
      const record = part as Json;
      return record?.type === 'text' && typeof record.text === 'string' ? record.text : '';
    })
    .join('');
}

/** Protocol-neutral views of a Chat Completions request body. */
export function openAIRequestViews(body: Json | null): Pick<
  ScriptedRequest,
  'model' | 'stream' | 'system' | 'lastUserText' | 'toolResults' | 'lastToolResult' | 'toolNames' | 'allText'
> {
  const messages = asArray(body?.messages) as Json[];
  const system = messages
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map((message) => contentText(message.content))
    .join('\n');
  let lastUserText: string | undefined;
  for (const message of messages) {
    if (message.role === 'user') {
      const text = contentText(message.content);
      if (text) lastUserText = text;
    }
  }
  const lastAssistant = messages.map((message) => message.role).lastIndexOf('assistant');
  const toolResults: ScriptedToolResult[] = messages
    .slice(lastAssistant + 1)
    .filter((message) => message.role === 'tool')
    .map((message) => {
      const content = contentText(message.content);
      return { toolCallId: String(message.tool_call_id ?? ''), content, isError: /^error\b/i.test(content) };
    });
  const allText = messages.map((message) => contentText(message.content)).join('\n');
  return {
    model: typeof body?.model === 'string' ? body.model : '',
    stream: body?.stream === true,
    system,
    lastUserText,
    toolResults,
    lastToolResult: toolResults.at(-1),
    toolNames: (asArray(body?.tools) as Json[]).map((tool) => String((tool?.function as Json | undefined)?.name ?? '')),
    allText,
  };
}

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

export function openAIErrorBody(error: ScriptedHttpError): Json {
  const known = ERROR_TYPES[error.status] ?? { type: error.status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return { error: { message: error.message, type: error.errorType ?? known.type, param: null, code: known.code } };
}

/** An HTTP error reply as OpenAI's APIs (Chat Completions and Responses) send it. */
export function openAIErrorReply(error: ScriptedHttpError, requestId: string): RenderedReply {
  return {
    status: error.status,
    headers: {
      'content-type': 'application/json',
      'x-request-id': requestId,
      ...(error.retryAfterMs !== undefined ? { 'retry-after-ms': String(error.retryAfterMs) } : {}),
    },
    frames: [JSON.stringify(openAIErrorBody(error))],
    tail: [],
  };
}

function finishReason(stopReason: ScriptedStopReason): string {
  switch (stopReason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

function data(payload: Json | string): string {
  return `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
}

/** Renders a reply for `POST /v1/chat/completions`, streaming or not. */
export function renderOpenAIReply(spec: ReplySpec, request: ScriptedRequest, requestText: string): RenderedReply {
  const requestId = `req_${scriptedIds.toolCall().slice(5)}`;
  if (spec.error) return openAIErrorReply(spec.error, requestId);
  const id = scriptedIds.completion();
  const created = Math.floor(Date.now() / 1000);
  const model = request.model;
  const usage = usageOf(spec, requestText);
  const finish = finishReason(stopReasonOf(spec));
  const usageBody = {
    prompt_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.cacheRead + usage.cacheWrite + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const tools = spec.blocks.flatMap((block) => (block.type === 'tool' ? [{ ...block, id: block.id ?? scriptedIds.toolCall() }] : []));
  const text = spec.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const reasoning = spec.blocks.flatMap((block) => (block.type === 'thinking' ? [block.text] : [])).join('\n');

  if (!request.stream) {
    const body = {
      id,
      object: 'chat.completion',
      created,
      model,
      system_fingerprint: 'fp_scripted',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text || null,
            refusal: null,
            ...(reasoning ? { reasoning_content: reasoning } : {}),
            ...(tools.length > 0
              ? { tool_calls: tools.map((tool) => ({ id: tool.id, type: 'function', function: { name: tool.name, arguments: JSON.stringify(tool.input) } })) }
              : {}),
          },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      usage: usageBody,
    };
    return { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': requestId }, frames: [JSON.stringify(body)], tail: [] };
  }

  const includeUsage = (request.body?.stream_options as Json | undefined)?.include_usage === true;
  const chunk = (delta: Json, finishReasonValue: string | null = null): string =>
    data({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_scripted',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReasonValue }],
      ...(includeUsage ? { usage: null } : {}),
    });

  const frames: string[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const block of spec.blocks) {
    if (block.type === 'thinking') {
      for (const piece of chunkText(block.text, spec.chunkSize)) frames.push(chunk({ reasoning_content: piece }));
    } else if (block.type === 'text') {
      for (const piece of chunkText(block.text, spec.chunkSize)) frames.push(chunk({ content: piece }));
    }
  }
  const toolFrames = tools.map((tool, index) => [
    chunk({ tool_calls: [{ index, id: tool.id, type: 'function', function: { name: tool.name, arguments: '' } }] }),
    ...chunkJson(JSON.stringify(tool.input), spec.chunkSize).map((piece) => chunk({ tool_calls: [{ index, function: { arguments: piece } }] })),
  ]);
  if (spec.interleaveToolCalls) {
    const longest = Math.max(0, ...toolFrames.map((list) => list.length));
    for (let step = 0; step < longest; step += 1) {
      for (const list of toolFrames) {
        const frame = list[step];
        if (frame) frames.push(frame);
      }
    }
  } else {
    for (const list of toolFrames) frames.push(...list);
  }
  const tail = [chunk({}, finish)];
  if (includeUsage) {
    tail.push(data({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_scripted', choices: [], usage: usageBody }));
  }
  tail.push(data('[DONE]'));
  const ending = spec.ending;
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': requestId },
    frames,
    tail,
    ...(ending.kind === 'stream_error'
      ? { streamErrorFrame: data({ error: { message: ending.message, type: ending.errorType, param: null, code: null } }) }
      : {}),
    malformedFrame: `data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"cut\n\n`,
  };
}
