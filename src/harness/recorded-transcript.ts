import type { AssistantMessage, ModelMessage } from '../llm/model-types.js';
import { repairTranscript } from './repair-transcript.js';

/** A run-log event as stored: its type and its JSON. */
export interface RecordedEvent {
  type: string;
  data: string;
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return typeof value === 'object' && value !== null && (value as AssistantMessage).role === 'assistant' && Array.isArray((value as AssistantMessage).content);
}

/** True when a run's events hold a transcript (the built-in harness and runners that report their messages, or a `/compact` turn). */
export function hasTranscript(events: readonly RecordedEvent[]): boolean {
  return events.some((event) => event.type === 'assistant_message' || event.type === 'context_compacted');
}

/**
 * CTX-1: a run's recorded events appended to the transcript before it, in the provider-neutral shape
 * the loop held them in — assistant messages with their tool calls, every call's result, steering
 * and reminders as user text — so the next turn sees what earlier turns read and ran. A compaction
 * event replaces everything before it with its summary message and the messages it kept.
 */
export function appendRecordedRun(transcript: ModelMessage[], events: readonly RecordedEvent[]): ModelMessage[] {
  let messages = transcript;
  for (const event of events) {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (event.type === 'assistant_message' && isAssistantMessage(data.message)) {
      messages.push(data.message);
    } else if (event.type === 'tool_call_end') {
      const call = data.call as { id?: unknown } | undefined;
      const result = data.result as { content?: unknown; isError?: unknown } | undefined;
      if (typeof call?.id === 'string' && typeof result?.content === 'string') {
        messages.push({ role: 'tool', toolCallId: call.id, content: result.content, isError: result.isError === true });
      }
    } else if ((event.type === 'steering_injected' || event.type === 'reminder_injected') && typeof data.text === 'string') {
      messages.push({ role: 'user', content: data.text });
    } else if (event.type === 'context_compacted' && typeof data.summaryMessage === 'string') {
      const kept = typeof data.keptMessages === 'number' && data.keptMessages > 0 ? messages.slice(-data.keptMessages) : [];
      messages = [{ role: 'user', content: data.summaryMessage }, ...kept];
    }
  }
  return messages;
}

/** The finished history: repaired for the wire, and never ending with a user message (the new one follows). */
export function finishHistory(messages: readonly ModelMessage[]): ModelMessage[] {
  if (messages.length === 0) return [];
  const history = repairTranscript(messages);
  if (history.at(-1)?.role === 'user') history.push({ role: 'assistant', content: [{ type: 'text', text: '(no answer)' }] });
  return history;
}
