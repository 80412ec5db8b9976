/**
 * CTX-1: a turn's history is kept between turns and extended by what came since, instead of being
 * rebuilt from every stored message. The property: over random conversations — operator messages,
 * runs that record tool calls and results (some cut off mid-call), steering, answers, compactions,
 * items written in the same millisecond — the history extended turn after turn is the history built
 * from the whole timeline at that moment, by its definition (the way every turn built it before).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasTranscript, transcriptSteps, type TranscriptStep } from '../../../src/harness/recorded-transcript.js';
import { repairTranscript } from '../../../src/harness/repair-transcript.js';
import type { ModelMessage } from '../../../src/llm/model-types.js';
import { extendHistory, type BuiltHistory, type KeptHistory } from '../../../src/services/runs/conversation-history.js';
import type { TranscriptItem } from '../../../src/store/repositories/conversation-transcript-repository.js';

/** One item as it happens: written at `at`; a run's events each at their own time, the run ending at `endsAt`. */
type Happening =
  | { kind: 'message'; id: string; role: 'user' | 'assistant'; content: string; runId: string | null; at: number }
  | { kind: 'run'; runId: string; at: number; endsAt: number; events: Array<{ at: number; type: string; data: string }> };

const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (at: number) => new Date(BASE + at).toISOString();

/** What the database lists at `now`: items written by then, runs with the events recorded by then. */
function timelineAt(happenings: readonly Happening[], now: number, known: { has(runId: string): boolean }, from = ''): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  for (const happening of happenings) {
    if (happening.at > now || iso(happening.at) < from) continue;
    if (happening.kind === 'message') {
      items.push({ kind: 'message', id: happening.id, role: happening.role, content: happening.content, runId: happening.runId, createdAt: iso(happening.at) });
    } else {
      const events = happening.events.filter((event) => event.at <= now).map(({ type, data }) => ({ type, data }));
      items.push({ kind: 'run', runId: happening.runId, createdAt: iso(happening.at), ended: happening.endsAt <= now, events: known.has(happening.runId) ? null : events });
    }
  }
  // As the repository sorts: messages before runs of the same instant, by time.
  return items.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.kind === b.kind ? 0 : a.kind === 'message' ? -1 : 1));
}

const turnArbitrary = fc.record({
  /** Milliseconds after the previous turn (0: the same instant). */
  gap: fc.nat({ max: 3 }),
  /** Milliseconds from the operator's message to its run. */
  runGap: fc.nat({ max: 1 }),
  /** What the run did, each step taking 0–2 ms: a call answered or not, steering, a compaction. */
  steps: fc.array(fc.oneof(fc.constant('call'), fc.constant('unanswered'), fc.constant('steer'), fc.constant('text'), fc.constant('compact')), { maxLength: 6 }),
  stepGaps: fc.array(fc.nat({ max: 2 }), { minLength: 6, maxLength: 6 }),
  /** The run records no transcript (an external runner): only its answer is in the history. */
  external: fc.boolean(),
  answered: fc.boolean(),
  /** An agent message outside any run follows (a relayed answer, a seeded message). */
  loose: fc.boolean(),
  keptMessages: fc.nat({ max: 4 }),
});

type Turn = typeof turnArbitrary extends fc.Arbitrary<infer T> ? T : never;

function conversationOf(turns: readonly Turn[]): Happening[] {
  const happenings: Happening[] = [];
  let now = 0;
  turns.forEach((turn, index) => {
    now += turn.gap;
    happenings.push({ kind: 'message', id: `msg-${index}-u`, role: 'user', content: `request ${index}`, runId: null, at: now });
    const runId = `run-${index}`;
    now += turn.runGap;
    const run: Happening = { kind: 'run', runId, at: now, endsAt: now, events: [] };
    happenings.push(run);
    turn.steps.forEach((step, stepIndex) => {
      now += turn.stepGaps[stepIndex]!;
      if (turn.external) return;
      const event = (type: string, data: object) => run.events.push({ at: now, type, data: JSON.stringify(data) });
      const callId = `call-${index}-${stepIndex}`;
      if (step === 'call' || step === 'unanswered') {
        event('assistant_message', { message: { role: 'assistant', content: [{ type: 'tool_call', id: callId, name: 'bash', input: { command: `echo ${stepIndex}` } }] } });
        if (step === 'call') event('tool_call_end', { call: { id: callId }, result: { content: `output ${index}.${stepIndex}`, isError: false } });
      } else if (step === 'steer') {
        event('steering_injected', { text: `steer ${index}.${stepIndex}` });
      } else if (step === 'text') {
        event('assistant_message', { message: { role: 'assistant', content: [{ type: 'text', text: `thinking aloud ${index}.${stepIndex}` }] } });
      } else {
        event('context_compacted', { summaryMessage: `summary at ${index}.${stepIndex}`, keptMessages: turn.keptMessages });
      }
    });
    now += 1;
    run.endsAt = now;
    if (turn.answered) happenings.push({ kind: 'message', id: `msg-${index}-a`, role: 'assistant', content: `answer ${index}`, runId, at: now });
    if (turn.loose) happenings.push({ kind: 'message', id: `msg-${index}-l`, role: 'assistant', content: `note ${index}`, runId: null, at: now });
  });
  return happenings;
}

/**
 * The history by its definition, built from the whole timeline in one go (as every turn did before it
 * was kept): the timeline without the newest user message when asked, each run that recorded a
 * transcript in place of its answer, a compaction replacing what came before it, then repaired.
 */
function historyByDefinition(items: readonly TranscriptItem[], excludingLast: boolean): ModelMessage[] {
  const last = excludingLast ? items.findLastIndex((item) => item.kind === 'message' && item.role === 'user') : -1;
  const timeline = items.filter((_, index) => index !== last);
  const steps = new Map<string, TranscriptStep[]>();
  for (const item of timeline) {
    if (item.kind === 'run' && hasTranscript(transcriptSteps(item.events ?? []))) steps.set(item.runId, transcriptSteps(item.events ?? []));
  }
  let messages: ModelMessage[] = [];
  for (const item of timeline) {
    if (item.kind === 'run') {
      for (const step of steps.get(item.runId) ?? []) {
        if (step.kind === 'message') messages.push(step.message);
        else messages = [{ role: 'user', content: step.summaryMessage }, ...(step.keptMessages > 0 ? messages.slice(-step.keptMessages) : [])];
      }
    } else if (item.role === 'user' || !(item.runId && steps.has(item.runId))) {
      messages.push(item.role === 'user' ? { role: 'user', content: item.content } : { role: 'assistant', content: [{ type: 'text', text: item.content }] });
    }
  }
  if (messages.length === 0) return [];
  const history = repairTranscript(messages);
  if (history.at(-1)?.role === 'user') history.push({ role: 'assistant', content: [{ type: 'text', text: '(no answer)' }] });
  return history;
}

const emptyKept = (): KeptHistory => ({ finishedRuns: new Map(), messages: new Map() });

/** The history as the wire sees it: the same messages in the same order (objects may differ). */
const plain = (messages: ModelMessage[]) => JSON.parse(JSON.stringify(messages)) as unknown;

describe('a history extended turn by turn (CTX-1)', () => {
  it('equals the history built from the whole timeline, at every moment of random conversations', () => {
    fc.assert(
      fc.property(fc.array(turnArbitrary, { minLength: 1, maxLength: 12 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 80 }), (turns, excluding) => {
        const happenings = conversationOf(turns);
        const end = Math.max(...happenings.map((happening) => (happening.kind === 'run' ? happening.endsAt : happening.at)));
        const kept = emptyKept();
        let built: BuiltHistory | null = null;
        // A turn may be built at any moment: each millisecond, including mid-run and mid-instant.
        for (let now = 0; now <= end + 1; now += 1) {
          const excludingLast = excluding[now % excluding.length]!;
          const since: TranscriptItem[] = built ? timelineAt(happenings, now, kept.finishedRuns, built.unsettledFrom) : [];
          let outcome: ReturnType<typeof extendHistory> = built ? extendHistory(built, since, kept, excludingLast) : null;
          outcome ??= extendHistory(null, timelineAt(happenings, now, kept.finishedRuns), kept, excludingLast)!;
          built = outcome.built;
          const whole = timelineAt(happenings, now, new Set());
          expect(plain(outcome.history), `at ${now} ms`).toEqual(plain(historyByDefinition(whole, excludingLast)));
          expect(plain(extendHistory(null, whole, emptyKept(), excludingLast)!.history), `at ${now} ms, built at once`).toEqual(plain(historyByDefinition(whole, excludingLast)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reuses the message objects of the kept part, so their serialized JSON and token estimates stay cached', () => {
    const happenings = conversationOf(
      Array.from({ length: 5 }, () => ({ gap: 2, runGap: 1, steps: ['call', 'text'], stepGaps: [1, 1, 1, 1, 1, 1], external: false, answered: true, loose: false, keptMessages: 0 })),
    );
    const kept = emptyKept();
    const first = extendHistory(null, timelineAt(happenings, 10, kept.finishedRuns), kept)!;
    const second = extendHistory(first.built, timelineAt(happenings, 30, kept.finishedRuns, first.built.unsettledFrom), kept)!;
    expect(second.history.length).toBeGreaterThan(first.history.length);
    const shared = first.history.slice(0, -2);
    expect(shared.length).toBeGreaterThan(3);
    shared.forEach((message, index) => expect(second.history[index]).toBe(message));
  });
});
