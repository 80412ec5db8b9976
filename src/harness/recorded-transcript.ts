import type { AssistantMessage, ModelMessage } from '../llm/model-types.js';

/** A run-log event as stored: its type and its JSON. */
export interface RecordedEvent {
  type: string;
  data: string;
}

/**
 * One step of a run's transcript, parsed from its recorded events: a message the loop held, or a
 * compaction. The message objects are made once per run and kept with a finished run (see
 * MessageService), so later turns send the same objects and their cached JSON and estimates hold.
 */
export type TranscriptStep = { kind: 'message'; message: ModelMessage } | { kind: 'compacted'; summaryMessage: string; keptMessages: number };

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return typeof value === 'object' && value !== null && (value as AssistantMessage).role === 'assistant' && Array.isArray((value as AssistantMessage).content);
}

/**
 * CTX-1: a run's recorded events as transcript steps, in the provider-neutral shape the loop held
 * them in — assistant messages with their tool calls, every call's result, steering and reminders as
 * user text, and compactions.
 */
export function transcriptSteps(events: readonly RecordedEvent[]): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  for (const event of events) {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (event.type === 'assistant_message' && isAssistantMessage(data.message)) {
      steps.push({ kind: 'message', message: data.message });
    } else if (event.type === 'tool_call_end') {
      const call = data.call as { id?: unknown } | undefined;
      const result = data.result as { content?: unknown; isError?: unknown } | undefined;
      if (typeof call?.id === 'string' && typeof result?.content === 'string') {
        steps.push({ kind: 'message', message: { role: 'tool', toolCallId: call.id, content: result.content, isError: result.isError === true } });
      }
    } else if ((event.type === 'steering_injected' || event.type === 'reminder_injected') && typeof data.text === 'string') {
      steps.push({ kind: 'message', message: { role: 'user', content: data.text } });
    } else if (event.type === 'context_compacted' && typeof data.summaryMessage === 'string') {
      steps.push({ kind: 'compacted', summaryMessage: data.summaryMessage, keptMessages: typeof data.keptMessages === 'number' ? data.keptMessages : 0 });
    }
  }
  return steps;
}

/** True when a run recorded a transcript (the built-in harness and runners that report their messages, or a `/compact` turn). */
export function hasTranscript(steps: readonly TranscriptStep[]): boolean {
  return steps.some((step) => step.kind === 'compacted' || step.message.role === 'assistant');
}
