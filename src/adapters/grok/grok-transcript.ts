import type { AgentEvent } from '../../harness/agent-events.js';
import type { ToolCallBlock } from '../../llm/model-types.js';

/**
 * One message the Grok CLI prints in headless mode (one JSON object per stdout line, OpenAI chat
 * format): the user's message, the assistant's messages (with `tool_calls` when it used tools) and the
 * tools' results. The same lines, kept per conversation, are the transcript the next turn continues.
 */
export interface GrokMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** What the CLI writes as the assistant's text of a tool-using step when the model said nothing. */
const TOOL_STEP_FILLER = 'Using tools to help you...';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolCalls(value: unknown): GrokMessage['tool_calls'] {
  if (!Array.isArray(value)) return undefined;
  const calls = value
    .filter(isRecord)
    .map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return { id: String(call.id ?? ''), type: 'function' as const, function: { name: String(fn.name ?? ''), arguments: typeof fn.arguments === 'string' ? fn.arguments : '' } };
    })
    .filter((call) => call.id && call.function.name);
  return calls.length > 0 ? calls : undefined;
}

/**
 * The messages in the CLI's stdout. Lines that are not one of its messages (the CLI and its libraries
 * may print other things) are returned apart, never trusted as messages.
 */
export function parseGrokOutput(stdout: string): { messages: GrokMessage[]; other: string[] } {
  const messages: GrokMessage[] = [];
  const other: string[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      other.push(line);
      continue;
    }
    if (!isRecord(parsed) || (parsed.role !== 'user' && parsed.role !== 'assistant' && parsed.role !== 'tool') || typeof parsed.content !== 'string') {
      other.push(line);
      continue;
    }
    const calls = parsed.role === 'assistant' ? toolCalls(parsed.tool_calls) : undefined;
    messages.push({
      role: parsed.role,
      content: parsed.content,
      ...(calls ? { tool_calls: calls } : {}),
      ...(parsed.role === 'tool' && typeof parsed.tool_call_id === 'string' ? { tool_call_id: parsed.tool_call_id } : {}),
    });
  }
  return { messages, other };
}

function callInput(argumentsJson: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    return isRecord(parsed) ? parsed : { arguments: parsed };
  } catch {
    return { arguments: argumentsJson };
  }
}

/**
 * The run events of one finished turn, in the order the CLI took its steps. Everything is seen after
 * the fact (headless mode prints the transcript when the turn is over): each tool call is reported as
 * executed, since the CLI approves and runs every call itself. Returns the final answer.
 */
export function replayGrokTurn(messages: GrokMessage[], emit: (event: AgentEvent) => void): { finalText: string } {
  const open = new Map<string, ToolCallBlock>();
  let finalText = '';
  for (const message of messages) {
    if (message.role === 'assistant') {
      const text = message.tool_calls && message.content === TOOL_STEP_FILLER ? '' : message.content;
      if (text) emit({ type: 'text_delta', text });
      if (!message.tool_calls) finalText = message.content;
      const calls: ToolCallBlock[] = (message.tool_calls ?? []).map((call) => ({ type: 'tool_call', id: call.id, name: call.function.name, input: callInput(call.function.arguments) }));
      emit({ type: 'assistant_message', message: { role: 'assistant', content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls] } });
      for (const block of calls) {
        open.set(block.id, block);
        emit({ type: 'tool_call_start', call: block });
      }
    } else if (message.role === 'tool' && message.tool_call_id) {
      const call = open.get(message.tool_call_id);
      if (!call) continue;
      open.delete(message.tool_call_id);
      // The CLI's headless transcript keeps only the text of a result, not whether the tool failed.
      emit({ type: 'tool_call_end', call, result: { content: message.content, isError: false, details: { observedIn: 'grok', status: 'unknown' } }, executed: true, durationMs: 0 });
    }
  }
  for (const call of open.values()) {
    emit({ type: 'tool_call_end', call, result: { content: 'The Grok CLI reported no result for this call.', isError: true, details: { observedIn: 'grok' } }, executed: false, durationMs: 0 });
  }
  return { finalText };
}
