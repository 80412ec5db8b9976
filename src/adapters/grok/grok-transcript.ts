import type { AgentEvent } from '../../harness/agent-events.js';
import type { ToolCallBlock } from '../../llm/model-types.js';
import type { GrokLiveLine } from './grok-preload.js';

/**
 * One message of a Grok CLI conversation (OpenAI chat format): the user's message, the assistant's
 * messages (with `tool_calls` when it used tools) and the tools' results. The messages of a finished
 * turn, kept per conversation by the host, are the transcript the next turn continues.
 */
export interface GrokMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

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

/** A message the runner printed, reduced to the fields the transcript keeps; null when it is not one. */
export function parseGrokMessage(value: unknown): GrokMessage | null {
  if (!isRecord(value) || (value.role !== 'user' && value.role !== 'assistant' && value.role !== 'tool')) return null;
  // The CLI's own streaming loop keeps an empty assistant text as "" but a missing one as null.
  const content = typeof value.content === 'string' ? value.content : value.content === null || value.content === undefined ? '' : null;
  if (content === null) return null;
  const calls = value.role === 'assistant' ? toolCalls(value.tool_calls) : undefined;
  return {
    role: value.role,
    content,
    ...(calls ? { tool_calls: calls } : {}),
    ...(value.role === 'tool' && typeof value.tool_call_id === 'string' ? { tool_call_id: value.tool_call_id } : {}),
  };
}

/** One stdout line of the runner as a live line; null when it is not one (the runner is untrusted). */
export function parseGrokLiveLine(line: string): GrokLiveLine | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  switch (parsed.cc) {
    case 'text':
      return typeof parsed.text === 'string' ? { cc: 'text', text: parsed.text } : null;
    case 'message':
      return { cc: 'message', message: parsed.message };
    case 'tool_start':
      return typeof parsed.id === 'string' ? { cc: 'tool_start', id: parsed.id } : null;
    case 'tool_end':
      return typeof parsed.id === 'string' ? { cc: 'tool_end', id: parsed.id, success: parsed.success === true, output: typeof parsed.output === 'string' ? parsed.output : '' } : null;
    case 'steered':
      return typeof parsed.text === 'string' ? { cc: 'steered', text: parsed.text } : null;
    case 'idle':
      return { cc: 'idle' };
    default:
      return null;
  }
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
 * Turns the runner's live lines into run events as they arrive: text deltas while the model writes,
 * each assistant step when it is complete, each tool call when it starts and when it ends (an error
 * result when the CLI's tool failed). Keeps the turn's messages for the transcript, the last answer,
 * and whether the mode's output verb (the CLI's name for it) was delivered.
 */
export class GrokTurnTranslator {
  readonly messages: GrokMessage[] = [];
  finalText = '';
  verbDelivered = false;
  /** How many steering texts the CLI took into the conversation (the host compares it with what it passed on). */
  steeredCount = 0;
  private readonly announced = new Map<string, ToolCallBlock>();
  private readonly running = new Map<string, { call: ToolCallBlock; started: number }>();

  constructor(
    private readonly emit: (event: AgentEvent) => void,
    /** The CLI's tool name of the output verb (`mcp__control-center__submit_plan`), or null. */
    private readonly verbToolName: string | null,
  ) {}

  /** Handles one live line; returns true for `idle` (the message is done). */
  handle(line: GrokLiveLine): boolean {
    switch (line.cc) {
      case 'text':
        if (line.text) this.emit({ type: 'text_delta', text: line.text });
        return false;
      case 'message':
        this.message(parseGrokMessage(line.message));
        return false;
      case 'tool_start': {
        const call = this.announced.get(line.id);
        if (!call) return false;
        this.announced.delete(line.id);
        this.running.set(line.id, { call, started: Date.now() });
        this.emit({ type: 'tool_call_start', call });
        return false;
      }
      case 'tool_end': {
        const running = this.running.get(line.id);
        if (!running) return false;
        this.running.delete(line.id);
        if (line.success && running.call.name === this.verbToolName && !this.verbDelivered) {
          this.verbDelivered = true;
          this.emit({ type: 'output_verb_delivered', toolName: running.call.name });
        }
        this.emit({ type: 'tool_call_end', call: running.call, result: { content: line.output, isError: !line.success, details: { observedIn: 'grok' } }, executed: true, durationMs: Date.now() - running.started });
        return false;
      }
      case 'steered':
        this.steeredCount += 1;
        this.emit({ type: 'steering_injected', text: line.text });
        return false;
      case 'idle':
        return true;
    }
  }

  private message(message: GrokMessage | null): void {
    if (!message) return;
    this.messages.push(message);
    if (message.role !== 'assistant') return;
    if (!message.tool_calls) this.finalText = message.content;
    const calls: ToolCallBlock[] = (message.tool_calls ?? []).map((call) => ({ type: 'tool_call', id: call.id, name: call.function.name, input: callInput(call.function.arguments) }));
    for (const call of calls) this.announced.set(call.id, call);
    this.emit({ type: 'assistant_message', message: { role: 'assistant', content: [...(message.content ? [{ type: 'text' as const, text: message.content }] : []), ...calls] } });
  }

  /** Calls that started and never ended (the runner died or was stopped): reported as not finished. */
  closeOpenCalls(): void {
    for (const { call } of this.running.values()) {
      this.emit({ type: 'tool_call_end', call, result: { content: 'The Grok CLI ended before this call reported a result.', isError: true, details: { observedIn: 'grok' } }, executed: false, durationMs: 0 });
    }
    this.running.clear();
  }
}
