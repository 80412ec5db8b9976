import { appendRecordedRun, finishHistory, hasTranscript, transcriptSteps, type TranscriptStep } from '../../harness/recorded-transcript.js';
import type { ModelMessage } from '../../llm/model-types.js';
import type { TranscriptItem } from '../../store/repositories/conversation-transcript-repository.js';

/**
 * What a history is rebuilt from, kept between turns so a long conversation's turn does not re-derive
 * it: finished runs' parsed transcripts by run id (what a run recorded does not change once it ended)
 * and the model message of each message row by id (a row's role and content never change). Keeping
 * the same message objects also keeps their cached JSON and token estimates: a new object per turn
 * would be serialized and estimated again on every model call.
 */
export interface KeptHistory {
  finishedRuns: Map<string, TranscriptStep[]>;
  messages: Map<string, ModelMessage>;
}

/** How many finished runs' transcripts, and ten times as many messages, are kept (the oldest are dropped first). */
const KEPT_RUNS = 5_000;

function keep<T>(map: Map<string, T>, key: string, value: T, limit: number): void {
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value!);
}

/** The model message of a message row, made once per row. */
function messageOf(item: Extract<TranscriptItem, { kind: 'message' }>, kept: Map<string, ModelMessage>): ModelMessage {
  let message = kept.get(item.id);
  if (!message) {
    message = item.role === 'user' ? { role: 'user', content: item.content } : { role: 'assistant', content: [{ type: 'text', text: item.content }] };
    keep(kept, item.id, message, KEPT_RUNS * 10);
  }
  return message;
}

/**
 * A turn's history (CTX-1): the conversation since its latest compaction, whole. A run that recorded
 * its messages (the built-in harness does) contributes them — tool calls and results included — in
 * place of its final answer; other messages are their text. No message count limits it: the run's
 * context budget decides what is elided or compacted. `excludingLast` leaves out the newest user
 * message (it is the prompt being sent). `kept.finishedRuns` holds the parsed transcripts of ended
 * runs; the items of runs it holds come without events.
 */
export function conversationHistory(items: readonly TranscriptItem[], kept: KeptHistory, excludingLast = false): ModelMessage[] {
  const finished = kept.finishedRuns;
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
      if (item.ended) keep(finished, item.runId, runSteps, KEPT_RUNS);
    }
    if (hasTranscript(runSteps)) steps.set(item.runId, runSteps);
  }
  let messages: ModelMessage[] = [];
  for (const item of timeline) {
    if (item.kind === 'run') {
      const runSteps = steps.get(item.runId);
      if (runSteps) messages = appendRecordedRun(messages, runSteps);
    } else if (item.role === 'user' || !(item.runId && steps.has(item.runId))) {
      messages.push(messageOf(item, kept.messages));
    }
  }
  return finishHistory(messages);
}
