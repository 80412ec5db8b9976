import type { ReplySpec, ScriptedHttpError, ScriptedRequest, ScriptedToolResult } from './scripted-reply.js';
import { asArray, chunkJson, chunkText, type Json, type RenderedReply, scriptedIds, stopReasonOf, usageOf } from './scripted-wire-helpers.js';

/** The Anthropic Messages API wire format: request views, SSE streams, JSON bodies and errors. */


function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((block) => {
      const record = block as Json;
      if (record?.type === 'text' && typeof record.text === 'string') return record.text;
      if (record?.type === 'tool_result') return blockText(record.content);
      return '';
    })
    .join('');
}

/** Protocol-neutral views of a Messages API request body. */
export function anthropicRequestViews(body: Json | null): Pick<
  ScriptedRequest,
  'model' | 'stream' | 'system' | 'lastUserText' | 'toolResults' | 'lastToolResult' | 'toolNames' | 'allText'
> {
  const messages = asArray(body?.messages) as Json[];
  const system = blockText(body?.system);
  let lastUserText: string | undefined;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const text =
      typeof message.content === 'string'
        ? message.content
        : asArray(message.content)
            .filter((block) => (block as Json)?.type === 'text')
            .map((block) => String((block as Json).text ?? ''))
            .join('');
    if (text) lastUserText = text;
  }
  const lastAssistant = messages.map((message) => message.role).lastIndexOf('assistant');
  const toolResults: ScriptedToolResult[] = [];
  for (const message of messages.slice(lastAssistant + 1)) {
    if (message.role !== 'user') continue;
    for (const block of asArray(message.content) as Json[]) {
      if (block?.type !== 'tool_result') continue;
      toolResults.push({ toolCallId: String(block.tool_use_id ?? ''), content: blockText(block.content), isError: block.is_error === true });
    }
  }
  const allText = [system, ...messages.map((message) => blockText(message.content))].join('\n');
  return {
    model: typeof body?.model === 'string' ? body.model : '',
    stream: body?.stream === true,
    system,
    lastUserText,
    toolResults,
    lastToolResult: toolResults.at(-1),
    toolNames: (asArray(body?.tools) as Json[]).map((tool) => String(tool?.name ?? '')),
    allText,
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function anthropicErrorBody(error: ScriptedHttpError, requestId: string): Json {
  const type = error.errorType ?? ERROR_TYPES[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: error.message }, request_id: requestId };
}

function sse(event: string, data: Json): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Renders a reply for `POST /v1/messages`, streaming (SSE) or not (JSON). */
export function renderAnthropicReply(spec: ReplySpec, request: ScriptedRequest, requestText: string): RenderedReply {
  const requestId = scriptedIds.request();
  if (spec.error) {
    return {
      status: spec.error.status,
      headers: {
        'content-type': 'application/json',
        'request-id': requestId,
        ...(spec.error.retryAfterMs !== undefined ? { 'retry-after-ms': String(spec.error.retryAfterMs) } : {}),
      },
      frames: [JSON.stringify(anthropicErrorBody(spec.error, requestId))],
      tail: [],
    };
  }
  const messageId = scriptedIds.message();
  const usage = usageOf(spec, requestText);
  const stopReason = stopReasonOf(spec);
  const blocks = spec.blocks.map((block) =>
    block.type === 'tool'
      ? { ...block, id: block.id ?? scriptedIds.toolUse() }
      : block.type === 'thinking'
        ? { ...block, signature: scriptedIds.signature() }
        : block,
  );

  if (!request.stream) {
    const content = blocks.map((block) => {
      if (block.type === 'text') return { type: 'text', text: block.text };
      if (block.type === 'thinking') return { type: 'thinking', thinking: block.text, signature: 'signature' in block ? block.signature : '' };
      return { type: 'tool_use', id: 'id' in block ? block.id : '', name: block.name, input: block.input };
    });
    const message = {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
        output_tokens: usage.output,
        service_tier: 'standard',
      },
    };
    return { status: 200, headers: { 'content-type': 'application/json', 'request-id': requestId }, frames: [JSON.stringify(message)], tail: [] };
  }

  const frames: string[] = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          cache_creation_input_tokens: usage.cacheWrite,
          cache_read_input_tokens: usage.cacheRead,
          cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
          output_tokens: 1,
          service_tier: 'standard',
        },
      },
    }),
    sse('ping', { type: 'ping' }),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      frames.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const piece of chunkText(block.text, spec.chunkSize)) {
        frames.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
      }
    } else if (block.type === 'thinking') {
      frames.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const piece of chunkText(block.text, spec.chunkSize)) {
        frames.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } }));
      }
      frames.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'signature' in block ? block.signature : '' } }));
    } else {
      frames.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: 'id' in block ? block.id : '', name: block.name, input: {} },
        }),
      );
      frames.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } }));
      for (const piece of chunkJson(JSON.stringify(block.input), spec.chunkSize)) {
        frames.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
      }
    }
    frames.push(sse('content_block_stop', { type: 'content_block_stop', index }));
  });
  const tail = [
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        output_tokens: usage.output,
      },
    }),
    sse('message_stop', { type: 'message_stop' }),
  ];
  const ending = spec.ending;
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId },
    frames,
    tail,
    ...(ending.kind === 'stream_error'
      ? { streamErrorFrame: sse('error', { type: 'error', error: { type: ending.errorType, message: ending.message }, request_id: requestId }) }
      : {}),
    malformedFrame: `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut\n\n`,
  };
}
