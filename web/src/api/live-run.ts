import type { AgentEvent, RunEventRecord } from './types';

/** One visible piece of a turn: streamed text, a tool call (folded), or a short note. */
export type TurnItem =
  | { kind: 'text'; id: number; text: string; closed: boolean }
  | { kind: 'thinking'; id: number; text: string; closed: boolean }
  | {
      kind: 'tool';
      id: number;
      callId: string;
      name: string;
      input: unknown;
      output: string | null;
      isError: boolean;
      executed: boolean | null;
      done: boolean;
    }
  | { kind: 'note'; id: number; text: string; tone: 'info' | 'warn' };

/** A run's activity folded from its AgentEvents. `fromStart` is true when the first event was seen. */
export interface LiveRun {
  items: TurnItem[];
  eventCount: number;
  fromStart: boolean;
  /** Text deltas arrived since the last model call began (stored run logs keep only whole messages). */
  sawDelta: boolean;
}

export const EMPTY_LIVE_RUN: LiveRun = { items: [], eventCount: 0, fromStart: false, sawDelta: false };

function messageText(event: Extract<AgentEvent, { type: 'assistant_message' }>): string {
  return event.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

/**
 * A stored run event's data is the AgentEvent the executor persisted (src/services/runs/run-executor.ts);
 * kinds this web app does not know fall through the fold's default branch.
 */
export function agentEventOf(record: RunEventRecord): AgentEvent {
  const data = record.data;
  if (data && typeof data === 'object' && typeof (data as { type?: unknown }).type === 'string') return data as AgentEvent;
  return { ...(data && typeof data === 'object' ? (data as Record<string, unknown>) : {}), type: record.type } as AgentEvent;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** Folds one AgentEvent into the turn (pure: returns a new object). */
export function foldAgentEvent(current: LiveRun, event: AgentEvent): LiveRun {
  const items = current.items.slice();
  const nextId = current.eventCount + 1;
  const last = items[items.length - 1];
  const fromStart = current.fromStart || (current.eventCount === 0 && event.type === 'model_call_start' && event.index === 0);
  let sawDelta = current.sawDelta;
  switch (event.type) {
    case 'text_delta': {
      sawDelta = true;
      const text = typeof event.text === 'string' ? event.text : '';
      if (last && last.kind === 'text' && !last.closed) items[items.length - 1] = { ...last, text: last.text + text };
      else items.push({ kind: 'text', id: nextId, text, closed: false });
      break;
    }
    case 'thinking_delta': {
      const text = typeof event.text === 'string' ? event.text : '';
      if (last && last.kind === 'thinking' && !last.closed) items[items.length - 1] = { ...last, text: last.text + text };
      else items.push({ kind: 'thinking', id: nextId, text, closed: false });
      break;
    }
    case 'assistant_message':
    case 'model_call_start': {
      for (let index = 0; index < items.length; index += 1) {
        const item = items[index]!;
        if ((item.kind === 'text' || item.kind === 'thinking') && !item.closed) items[index] = { ...item, closed: true };
      }
      // A stored run log has no deltas: the whole message carries the text.
      if (event.type === 'assistant_message' && !sawDelta) {
        const text = messageText(event);
        if (text.trim()) items.push({ kind: 'text', id: nextId, text, closed: true });
      }
      sawDelta = false;
      break;
    }
    case 'tool_call_start': {
      const call = event.call;
      if (!call) break;
      if (last && (last.kind === 'text' || last.kind === 'thinking') && !last.closed) items[items.length - 1] = { ...last, closed: true };
      items.push({ kind: 'tool', id: nextId, callId: call.id, name: call.name, input: call.input ?? null, output: null, isError: false, executed: null, done: false });
      break;
    }
    case 'tool_call_end': {
      const call = event.call;
      if (!call) break;
      const output = event.result ? stringify(event.result.content) : null;
      const isError = event.result?.isError ?? false;
      const executed = typeof event.executed === 'boolean' ? event.executed : null;
      const index = items.findIndex((item) => item.kind === 'tool' && item.callId === call.id);
      if (index >= 0) {
        const item = items[index]!;
        if (item.kind === 'tool') items[index] = { ...item, input: item.input ?? call.input ?? null, output, isError, executed, done: true };
      } else {
        items.push({ kind: 'tool', id: nextId, callId: call.id, name: call.name, input: call.input ?? null, output, isError, executed, done: true });
      }
      break;
    }
    case 'reminder_injected':
      items.push({ kind: 'note', id: nextId, tone: 'warn', text: `Reminder sent to the agent${event.attempt ? ` (attempt ${String(event.attempt)})` : ''}: ${String(event.text ?? '')}` });
      break;
    case 'steering_injected':
      items.push({ kind: 'note', id: nextId, tone: 'info', text: `Steered: ${String(event.text ?? '')}` });
      break;
    case 'output_verb_delivered':
      items.push({ kind: 'note', id: nextId, tone: 'info', text: `Delivered ${String(event.toolName ?? 'output')}` });
      break;
    case 'looping_detected':
      items.push({ kind: 'note', id: nextId, tone: 'warn', text: `Looping: ${String(event.toolName ?? '')} repeated ${String(event.repeats ?? '')} times` });
      break;
    case 'looping_cleared':
      items.push({ kind: 'note', id: nextId, tone: 'info', text: 'Looping cleared' });
      break;
    default:
      // usage and unknown kinds change nothing visible
      break;
  }
  return { items, eventCount: nextId, fromStart, sawDelta };
}

export function foldRunEvents(records: RunEventRecord[]): LiveRun {
  let live: LiveRun = { ...EMPTY_LIVE_RUN, fromStart: true };
  for (const record of [...records].sort((a, b) => a.sequence - b.sequence)) live = foldAgentEvent(live, agentEventOf(record));
  return { ...live, fromStart: true };
}
