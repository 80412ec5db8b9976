import type { ReplySpec, ScriptedRequest, ScriptedStopReason, ScriptedToolResult } from './scripted-reply.js';
import { asArray, chunkJson, chunkText, type Json, type RenderedReply, scriptedIds, stopReasonOf, usageOf } from './scripted-wire-helpers.js';
import { openAIErrorReply } from './scripted-openai-wire.js';

/**
 * The OpenAI Responses wire format (`POST /v1/responses`), which Codex and Copilot's BYOK `openai`
 * provider speak: request views over `instructions` + `input` items, and the typed SSE event stream
 * the real API sends (`response.created`, `response.output_item.added`, `response.output_text.delta`,
 * `response.function_call_arguments.delta/done`, `response.completed` with usage).
 */

/** Text of a message item's content (a string, or `input_text`/`output_text` parts). */
function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => {
      const record = part as Json;
      return typeof record?.text === 'string' && (record.type === 'input_text' || record.type === 'output_text' || record.type === 'text') ? record.text : '';
    })
    .join('');
}

/** The request's `input` as a list of items (a bare string is one user message). */
function inputItems(body: Json | null): Json[] {
  const input = body?.input;
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return asArray(input).filter((item): item is Json => typeof item === 'object' && item !== null);
}

function isMessage(item: Json): boolean {
  return item.type === 'message' || (item.type === undefined && typeof item.role === 'string');
}

/** Where the newest model turn ends: tool results after it are what the model reacts to now. */
function isModelItem(item: Json): boolean {
  return (isMessage(item) && item.role === 'assistant') || item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'reasoning' || item.type === 'local_shell_call';
}

function outputText(output: unknown): string {
  return typeof output === 'string' ? output : itemText(output);
}

/** Protocol-neutral views of a Responses request body. */
export function responsesRequestViews(body: Json | null): Pick<
  ScriptedRequest,
  'model' | 'stream' | 'system' | 'lastUserText' | 'toolResults' | 'lastToolResult' | 'toolNames' | 'allText'
> {
  const items = inputItems(body);
  const instructions = typeof body?.instructions === 'string' ? body.instructions : '';
  const system = [instructions, ...items.filter((item) => isMessage(item) && (item.role === 'system' || item.role === 'developer')).map((item) => itemText(item.content))]
    .filter((part) => part)
    .join('\n');
  let lastUserText: string | undefined;
  for (const item of items) {
    if (isMessage(item) && item.role === 'user') {
      const text = itemText(item.content);
      if (text) lastUserText = text;
    }
  }
  let lastModel = -1;
  items.forEach((item, index) => {
    if (isModelItem(item)) lastModel = index;
  });
  const toolResults: ScriptedToolResult[] = items
    .slice(lastModel + 1)
    .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
    .map((item) => {
      const content = outputText(item.output);
      return { toolCallId: String(item.call_id ?? ''), content, isError: /^error\b/i.test(content) };
    });
  const allText = [
    instructions,
    ...items.map((item) => (isMessage(item) ? itemText(item.content) : item.type === 'function_call_output' || item.type === 'custom_tool_call_output' ? outputText(item.output) : '')),
  ].join('\n');
  return {
    model: typeof body?.model === 'string' ? body.model : '',
    stream: body?.stream === true,
    system,
    lastUserText,
    toolResults,
    lastToolResult: toolResults.at(-1),
    // Function and custom tools have names; built-in tools (web_search, local_shell) go by their type;
    // a namespace's tools are listed as `<namespace>.<tool>` (how a script calls them).
    toolNames: (asArray(body?.tools) as Json[]).flatMap((tool) =>
      tool?.type === 'namespace' ? [String(tool.name), ...(asArray(tool.tools) as Json[]).map((inner) => `${String(tool.name)}.${String(inner?.name ?? '')}`)] : [String(tool?.name ?? tool?.type ?? '')],
    ),
    allText,
  };
}

function incompleteReason(stopReason: ScriptedStopReason): string | null {
  if (stopReason === 'max_tokens') return 'max_output_tokens';
  if (stopReason === 'refusal') return 'content_filter';
  return null;
}

/** One SSE frame: the event name is the payload's `type`, as the real API sends it. */
function event(payload: Json): string {
  return `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Renders a reply for `POST /v1/responses`, streaming or not. */
export function renderResponsesReply(spec: ReplySpec, request: ScriptedRequest, requestText: string): RenderedReply {
  const requestId = `req_${scriptedIds.toolCall().slice(5)}`;
  if (spec.error) return openAIErrorReply(spec.error, requestId);
  const id = `resp_${scriptedIds.toolCall().slice(5)}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const usage = usageOf(spec, requestText);
  const incomplete = incompleteReason(stopReasonOf(spec));
  const namespaces = new Set((asArray(request.body?.tools) as Json[]).filter((tool) => tool?.type === 'namespace').map((tool) => String(tool.name)));
  const customTools = new Set((asArray(request.body?.tools) as Json[]).filter((tool) => tool?.type === 'custom').map((tool) => String(tool.name)));
  const usageBody = {
    input_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input + usage.cacheRead + usage.cacheWrite + usage.output,
  };

  // The finished output items, in order; streaming announces each, streams its content, then closes it.
  const items: Json[] = spec.blocks.map((block) => {
    if (block.type === 'thinking') return { id: `rs_${scriptedIds.toolCall().slice(5)}`, type: 'reasoning', summary: [{ type: 'summary_text', text: block.text }] };
    if (block.type === 'text') return { id: scriptedIds.message(), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: block.text, annotations: [], logprobs: [] }] };
    const callId = block.id ?? scriptedIds.toolCall();
    // A freeform (custom) tool takes a string: the scripted input's `input` field.
    if (customTools.has(block.name)) {
      return { id: `ctc_${callId.slice(5)}`, type: 'custom_tool_call', status: 'completed', call_id: callId, name: block.name, input: typeof block.input.input === 'string' ? block.input.input : JSON.stringify(block.input) };
    }
    // `<namespace>.<tool>` calls a tool of a namespace the request offered (how Codex offers MCP tools).
    const dot = block.name.indexOf('.');
    const namespace = dot > 0 && namespaces.has(block.name.slice(0, dot)) ? block.name.slice(0, dot) : null;
    return {
      id: `fc_${callId.slice(5)}`,
      type: 'function_call',
      status: 'completed',
      call_id: callId,
      ...(namespace ? { namespace, name: block.name.slice(dot + 1) } : { name: block.name }),
      arguments: JSON.stringify(block.input),
    };
  });
  const responseBody = (status: string, output: Json[], withUsage: boolean): Json => ({
    id,
    object: 'response',
    created_at: createdAt,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: incomplete } : null,
    instructions: request.body?.instructions ?? null,
    model: request.model,
    output,
    parallel_tool_calls: true,
    tool_choice: request.body?.tool_choice ?? 'auto',
    tools: request.body?.tools ?? [],
    usage: withUsage ? usageBody : null,
  });
  const finalStatus = incomplete ? 'incomplete' : 'completed';

  if (!request.stream) {
    return { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': requestId }, frames: [JSON.stringify(responseBody(finalStatus, items, true))], tail: [] };
  }

  let sequence = 0;
  const frame = (payload: Json) => event({ ...payload, sequence_number: sequence++ });
  const frames: string[] = [frame({ type: 'response.created', response: responseBody('in_progress', [], false) }), frame({ type: 'response.in_progress', response: responseBody('in_progress', [], false) })];
  items.forEach((item, outputIndex) => {
    const itemId = String(item.id);
    if (item.type === 'message') {
      const text = String((asArray(item.content)[0] as Json).text);
      frames.push(frame({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } }));
      frames.push(frame({ type: 'response.content_part.added', item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }));
      for (const piece of chunkText(text, spec.chunkSize)) frames.push(frame({ type: 'response.output_text.delta', item_id: itemId, output_index: outputIndex, content_index: 0, delta: piece, logprobs: [] }));
      frames.push(frame({ type: 'response.output_text.done', item_id: itemId, output_index: outputIndex, content_index: 0, text, logprobs: [] }));
      frames.push(frame({ type: 'response.content_part.done', item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text, annotations: [], logprobs: [] } }));
    } else if (item.type === 'reasoning') {
      const text = String((asArray(item.summary)[0] as Json).text);
      frames.push(frame({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, summary: [] } }));
      frames.push(frame({ type: 'response.reasoning_summary_part.added', item_id: itemId, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } }));
      for (const piece of chunkText(text, spec.chunkSize)) frames.push(frame({ type: 'response.reasoning_summary_text.delta', item_id: itemId, output_index: outputIndex, summary_index: 0, delta: piece }));
      frames.push(frame({ type: 'response.reasoning_summary_text.done', item_id: itemId, output_index: outputIndex, summary_index: 0, text }));
      frames.push(frame({ type: 'response.reasoning_summary_part.done', item_id: itemId, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text } }));
    } else if (item.type === 'custom_tool_call') {
      const input = String(item.input);
      frames.push(frame({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', input: '' } }));
      for (const piece of chunkJson(input, spec.chunkSize)) frames.push(frame({ type: 'response.custom_tool_call_input.delta', item_id: itemId, output_index: outputIndex, delta: piece }));
      frames.push(frame({ type: 'response.custom_tool_call_input.done', item_id: itemId, output_index: outputIndex, input }));
    } else {
      const args = String(item.arguments);
      frames.push(frame({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } }));
      for (const piece of chunkJson(args, spec.chunkSize)) frames.push(frame({ type: 'response.function_call_arguments.delta', item_id: itemId, output_index: outputIndex, delta: piece }));
      frames.push(frame({ type: 'response.function_call_arguments.done', item_id: itemId, output_index: outputIndex, name: item.name, arguments: args }));
    }
    frames.push(frame({ type: 'response.output_item.done', output_index: outputIndex, item }));
  });
  const tail = [frame({ type: incomplete ? 'response.incomplete' : 'response.completed', response: responseBody(finalStatus, items, true) })];
  const ending = spec.ending;
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': requestId },
    frames,
    tail,
    ...(ending.kind === 'stream_error' ? { streamErrorFrame: event({ type: 'error', code: ending.errorType, message: ending.message, param: null, sequence_number: sequence }) } : {}),
    malformedFrame: `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"cut\n\n`,
  };
}
