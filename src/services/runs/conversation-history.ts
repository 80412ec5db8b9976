import { appendRecordedRun, finishHistory, hasTranscript, transcriptSteps, type TranscriptStep } from '../../harness/recorded-transcript.js';
import type { ModelMessage } from '../../llm/model-types.js';
import type { TranscriptItem } from '../../store/repositories/conversation-transcript-repository.js';

/** Finished runs' parsed transcripts by run id: what a run recorded does not change once it ended. */
export type FinishedRunSteps = Map<string, TranscriptStep[]>;

/** How many finished runs' transcripts are kept (the oldest are dropped first). */
const KEPT_RUNS = 5_000;

/**
 * A turn's history (CTX-1): the conversation since its latest compaction, whole. A run that recorded
 * its messages (the built-in harness does) contributes them — tool calls and results included — in
 * place of its final answer; other messages are their text. No message count limits it: the run's
 * context budget decides what is elided or compacted. `excludingLast` leaves out the newest user
 * message (it is the prompt being sent). `finished` holds the parsed transcripts of ended runs; the
 * items of runs it holds come without events.
 */
export function conversationHistory(items: readonly TranscriptItem[], finished: FinishedRunSteps, excludingLast = false): ModelMessage[] {
  let timeline = items;
  if (excludingLast) {
    const last = timeline.findLastIndex((item) => item.kind === 'message' && item.role === 'user');
    if (last >= 0) timeline = [...timeline.slice(0, last), ...timeline.slice(last + 1)];
  }
  const steps = new Map<string, TranscriptStep[]>();
  for (const item of timeline) {
    if (item.kind !== 'run') continue;
    let runSteps = finished.get(item.runId);
    if (!runSteps) {
      runSteps = transcriptSteps(item.events ?? []);
      if (item.ended) {
        finished.set(item.runId, runSteps);
        if (finished.size > KEPT_RUNS) finished.delete(finished.keys().next().value!);
      }
    }
    if (hasTranscript(runSteps)) steps.set(item.runId, runSteps);
  }
  let messages: ModelMessage[] = [];
  for (const item of timeline) {
    if (item.kind === 'run') {
      const runSteps = steps.get(item.runId);
      if (runSteps) messages = appendRecordedRun(messages, runSteps);
    } else if (item.role === 'user') {
      messages.push({ role: 'user', content: item.content });
    } else if (!(item.runId && steps.has(item.runId))) {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: item.content }] });
    }
  }
  return finishHistory(messages);
}
