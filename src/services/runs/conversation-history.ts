import { hasTranscript, transcriptSteps, type TranscriptStep } from '../../harness/recorded-transcript.js';
import { TranscriptRepair } from '../../harness/repair-transcript.js';
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

/** Sets `key` as the newest entry, dropping the oldest past `limit`. */
export function keep<T>(map: Map<string, T>, key: string, value: T, limit: number): void {
  map.delete(key);
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
 * A conversation's history built up to a point of its timeline (CTX-1), kept between turns: a turn
 * extends it by the items that came since instead of rebuilding it from every stored message, so a
 * turn at the thousandth message costs what one at the tenth does. The point is the settled part:
 * everything before the first run still going and before the newest user message (which a turn may
 * leave out as its prompt), and never splitting items of one instant, so no later item can land in it.
 */
export interface BuiltHistory {
  /** The messages since the latest compaction as recorded, before repair: a compaction keeps its tail from them. */
  recorded: ModelMessage[];
  repair: TranscriptRepair;
  /** Runs whose recorded transcript stands in for their final answer message. */
  transcriptRuns: Set<string>;
  /** Items created at or after this time are read again next turn ('': the whole timeline). */
  unsettledFrom: string;
}

function emptyHistory(): BuiltHistory {
  return { recorded: [], repair: new TranscriptRepair(), transcriptRuns: new Set(), unsettledFrom: '' };
}

function fork(built: BuiltHistory): BuiltHistory {
  return { recorded: [...built.recorded], repair: built.repair.fork(), transcriptRuns: new Set(built.transcriptRuns), unsettledFrom: built.unsettledFrom };
}

/** A run's transcript steps: kept for a finished run, else parsed from the events it came with. */
function stepsOf(item: Extract<TranscriptItem, { kind: 'run' }>, kept: KeptHistory): TranscriptStep[] {
  let steps = kept.finishedRuns.get(item.runId);
  if (!steps) {
    steps = transcriptSteps(item.events ?? []);
    if (item.ended) keep(kept.finishedRuns, item.runId, steps, KEPT_RUNS);
  }
  return steps;
}

/** Appends one item: a run that recorded its messages contributes them, other messages their text. */
function append(built: BuiltHistory, item: TranscriptItem, steps: ReadonlyMap<string, TranscriptStep[]>, kept: KeptHistory): void {
  if (item.kind === 'message') {
    // A run's final answer is in its transcript already, and so is an operator's message that steered it.
    if (!(item.runId && built.transcriptRuns.has(item.runId))) {
      const message = messageOf(item, kept.messages);
      built.recorded.push(message);
      built.repair.push(message);
    }
    return;
  }
  for (const step of steps.get(item.runId) ?? []) {
    if (step.kind === 'message') {
      built.recorded.push(step.message);
      built.repair.push(step.message);
    } else {
      // A compaction replaces everything before it with its summary and the messages it kept.
      built.recorded = [{ role: 'user', content: step.summaryMessage }, ...(step.keptMessages > 0 ? built.recorded.slice(-step.keptMessages) : [])];
      built.repair = new TranscriptRepair();
      for (const message of built.recorded) built.repair.push(message);
    }
  }
}

/** Where the settled part of `items` ends: before the first run still going and the newest user message, on an instant's boundary. */
function settledEnd(items: readonly TranscriptItem[]): number {
  let end = items.findIndex((item) => item.kind === 'run' && !item.ended);
  const lastUser = items.findLastIndex((item) => item.kind === 'message' && item.role === 'user');
  if (end < 0) end = items.length;
  if (lastUser >= 0) end = Math.min(end, lastUser);
  // The newest instant stays unsettled: an item written later in the same millisecond sorts among it.
  if (end === items.length) end -= 1;
  while (end > 0 && items[end - 1]!.createdAt === items[end]!.createdAt) end -= 1;
  return Math.max(end, 0);
}

/**
 * A turn's history (CTX-1): the conversation since its latest compaction, whole. A run that recorded
 * its messages (the built-in harness does) contributes them — tool calls and results included — in
 * place of its final answer; other messages are their text. No message count limits it: the run's
 * context budget decides what is elided or compacted. `excludingLast` leaves out the newest user
 * message (it is the prompt being sent). `kept.finishedRuns` holds the parsed transcripts of ended
 * runs; the items of runs it holds come without events.
 *
 * `from` is the history built at an earlier turn and `items` the timeline since its `unsettledFrom`
 * (null: `items` is the whole timeline). Returns the history and what to keep for the next turn, or
 * null when the items cannot extend `from` — a run not seen before compacted the conversation — and
 * the history must be built from the whole timeline.
 */
export function extendHistory(
  from: BuiltHistory | null,
  items: readonly TranscriptItem[],
  kept: KeptHistory,
  excludingLast = false,
): { history: ModelMessage[]; built: BuiltHistory } | null {
  const steps = new Map<string, TranscriptStep[]>();
  for (const item of items) {
    if (item.kind !== 'run') continue;
    const runSteps = stepsOf(item, kept);
    if (from && runSteps.some((step) => step.kind === 'compacted')) return null;
    if (hasTranscript(runSteps)) steps.set(item.runId, runSteps);
  }
  const built = from ? fork(from) : emptyHistory();
  for (const runId of steps.keys()) built.transcriptRuns.add(runId);
  const settled = settledEnd(items);
  for (const item of items.slice(0, settled)) append(built, item, steps, kept);
  if (items.length > 0) built.unsettledFrom = items[settled]!.createdAt;

  const turn = fork(built);
  const leftOut = excludingLast ? items.findLastIndex((item) => item.kind === 'message' && item.role === 'user') : -1;
  items.slice(settled).forEach((item, index) => {
    if (index + settled !== leftOut) append(turn, item, steps, kept);
  });
  return { history: finishHistory(turn), built };
}

/** The finished history: repaired for the wire, and never ending with a user message (the new one follows). */
function finishHistory(built: BuiltHistory): ModelMessage[] {
  if (built.recorded.length === 0) return [];
  const history = built.repair.finished();
  if (history.at(-1)?.role === 'user') history.push({ role: 'assistant', content: [{ type: 'text', text: '(no answer)' }] });
  return history;
}
