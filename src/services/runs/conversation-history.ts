import { appendRecordedRun, finishHistory, hasTranscript } from '../../harness/recorded-transcript.js';
import type { ModelMessage } from '../../llm/model-types.js';
import type { TranscriptItem } from '../../store/repositories/conversation-transcript-repository.js';

/**
 * A turn's history (CTX-1): the conversation since its latest compaction, whole. A run that recorded
 * its messages (the built-in harness does) contributes them — tool calls and results included — in
 * place of its final answer; other messages are their text. No message count limits it: the run's
 * context budget decides what is elided or compacted. `excludingLast` leaves out the newest user
 * message (it is the prompt being sent).
 */
export function conversationHistory(items: readonly TranscriptItem[], excludingLast = false): ModelMessage[] {
  let timeline = items;
  if (excludingLast) {
    const last = timeline.findLastIndex((item) => item.kind === 'message' && item.role === 'user');
    if (last >= 0) timeline = [...timeline.slice(0, last), ...timeline.slice(last + 1)];
  }
  const recorded = new Set(timeline.flatMap((item) => (item.kind === 'run' && hasTranscript(item.events) ? [item.runId] : [])));
  let messages: ModelMessage[] = [];
  for (const item of timeline) {
    if (item.kind === 'run') {
      if (recorded.has(item.runId)) messages = appendRecordedRun(messages, item.events);
    } else if (item.role === 'user') {
      messages.push({ role: 'user', content: item.content });
    } else if (!(item.runId && recorded.has(item.runId))) {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: item.content }] });
    }
  }
  return finishHistory(messages);
}
