import type { Kysely } from 'kysely';
import { reusableQuery } from '../reusable-query.js';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** The run-log events a transcript is rebuilt from: what the model said, what tools returned, what was injected, where it was compacted. */
export const TRANSCRIPT_EVENT_TYPES = ['assistant_message', 'tool_call_end', 'steering_injected', 'reminder_injected', 'context_compacted'] as const;

const ENDED_STATES = new Set(['completed', 'failed', 'cancelled']);

/** One item of a conversation's timeline: a visible message, or a top-level run with its recorded events. */
export type TranscriptItem =
  /** `id`: the message's row, whose role and content never change (so its model message can be kept). */
  | { kind: 'message'; id: string; role: 'user' | 'assistant'; content: string; runId: string | null; createdAt: string }
  /** `events` is null for a run the caller already holds (`known`); `ended`: its log will not change. */
  | { kind: 'run'; runId: string; createdAt: string; ended: boolean; events: Array<{ type: string; data: string }> | null };

/**
 * The statements of {@link listConversationTranscript}, compiled once per database handle: a turn
 * runs them all, and building and compiling a Kysely query costs more than running it on SQLite.
 * "Since" bounds are the empty string when the conversation was never compacted (every ISO time is
 * greater), so each statement keeps one shape.
 */
const latestCompactingRun = reusableQuery((db, conversationId: string) =>
  db
    .selectFrom('run_events')
    .innerJoin('runs', 'runs.id', 'run_events.run_id')
    .select(['runs.created_at'])
    .where('runs.conversation_id', '=', conversationId)
    .where('runs.parent_run_id', 'is', null)
    .where('run_events.type', '=', 'context_compacted')
    .orderBy('runs.created_at', 'desc')
    .limit(1),
);

const newestUserMessageUpTo = reusableQuery((db, conversationId: string, upTo: string) =>
  db.selectFrom('messages').select('created_at').where('conversation_id', '=', conversationId).where('role', '=', 'user').where('created_at', '<=', upTo).orderBy('created_at', 'desc').limit(1),
);

const historyMessagesSince = reusableQuery((db, conversationId: string, since: string) =>
  db
    .selectFrom('messages')
    .select(['id', 'role', 'content', 'run_id', 'created_at'])
    .where('conversation_id', '=', conversationId)
    .where('role', '!=', 'system')
    // CTX-3: what a rewind archived is out of the history until it is restored.
    .where('rewound_by', 'is', null)
    .where('created_at', '>=', since)
    .orderBy('created_at')
    .orderBy('id'),
);

const topLevelRunsSince = reusableQuery((db, conversationId: string, since: string) =>
  db.selectFrom('runs').select(['id', 'created_at', 'state']).where('conversation_id', '=', conversationId).where('parent_run_id', 'is', null).where('created_at', '>=', since).orderBy('created_at').orderBy('id'),
);

/** CTX-3: the stretches of time unrestored rewinds archived (from the first archived message to the rewind): their runs leave the history too. */
export const unrestoredRewindSpans = reusableQuery((db, conversationId: string) =>
  db
    .selectFrom('conversation_rewinds')
    .innerJoin('messages', 'messages.id', 'conversation_rewinds.message_id')
    .select(['messages.created_at as from', 'conversation_rewinds.created_at as to'])
    .where('conversation_rewinds.conversation_id', '=', conversationId)
    .where('conversation_rewinds.restored_at', 'is', null),
);

/** A turn usually meets one run it has not seen (the previous turn's): its events by a kept statement. */
const transcriptEventsOfRun = reusableQuery((db, runId: string) =>
  db.selectFrom('run_events').select(['run_id', 'type', 'data']).where('run_id', '=', runId).where('type', 'in', [...TRANSCRIPT_EVENT_TYPES]).orderBy('sequence'),
);

async function transcriptEventsOf(db: Kysely<WorkspaceSchema>, runIds: readonly string[]): Promise<Array<{ run_id: string; type: string; data: string }>> {
  if (runIds.length === 0) return [];
  if (runIds.length === 1) return transcriptEventsOfRun(db, runIds[0]!);
  return db
    .selectFrom('run_events')
    .select(['run_id', 'type', 'data'])
    .where('run_id', 'in', [...runIds])
    .where('type', 'in', [...TRANSCRIPT_EVENT_TYPES])
    .orderBy('run_id')
    .orderBy('sequence')
    .execute();
}

/** CTX-3: a stretch of time an unrestored rewind archived; its runs are out of the history. */
export interface RewoundSpan {
  from: string;
  to: string;
}

/**
 * A conversation's timeline since its latest compaction (CTX-1), oldest first: its user and agent
 * messages and its top-level runs with their transcript events. Older items are not read: the
 * compaction's summary stands in for them. Messages come before a run created in the same instant
 * (a turn's message is written before its run).
 */
export async function listConversationTranscript(
  db: Kysely<WorkspaceSchema>,
  conversationId: string,
  known: { has(runId: string): boolean } = new Set(),
  rewound?: readonly RewoundSpan[],
): Promise<TranscriptItem[]> {
  const [compacted] = await latestCompactingRun(db, conversationId);
  // The compacting run's own message is the newest user message written before it.
  let messagesSince = '';
  if (compacted) {
    const [anchor] = await newestUserMessageUpTo(db, conversationId, compacted.created_at);
    messagesSince = anchor?.created_at ?? compacted.created_at;
  }
  return timelineSince(db, conversationId, messagesSince, compacted?.created_at ?? '', known, rewound ?? (await unrestoredRewindSpans(db, conversationId)));
}

/**
 * The items of the conversation's timeline created at or after `from`, as {@link listConversationTranscript}
 * lists them: what a history kept from an earlier turn is extended by. The caller knows no compaction
 * or rewind happened before `from` since it built that history.
 */
export async function listConversationTranscriptFrom(
  db: Kysely<WorkspaceSchema>,
  conversationId: string,
  from: string,
  known: { has(runId: string): boolean },
  rewound: readonly RewoundSpan[],
): Promise<TranscriptItem[]> {
  return timelineSince(db, conversationId, from, from, known, rewound);
}

async function timelineSince(
  db: Kysely<WorkspaceSchema>,
  conversationId: string,
  messagesSince: string,
  runsSince: string,
  known: { has(runId: string): boolean },
  rewound: readonly RewoundSpan[],
): Promise<TranscriptItem[]> {
  const messages = await historyMessagesSince(db, conversationId, messagesSince);
  const runs = (await topLevelRunsSince(db, conversationId, runsSince)).filter((run) => !rewound.some((span) => run.created_at >= span.from && run.created_at <= span.to));
  const unread = new Set(runs.filter((run) => !known.has(run.id)).map((run) => run.id));
  const events = await transcriptEventsOf(db, [...unread]);
  const eventsByRun = new Map<string, Array<{ type: string; data: string }>>();
  for (const event of events) {
    let list = eventsByRun.get(event.run_id);
    if (!list) eventsByRun.set(event.run_id, (list = []));
    list.push({ type: event.type, data: event.data });
  }
  const items: TranscriptItem[] = [
    ...messages.map((row): TranscriptItem => ({ kind: 'message', id: row.id, role: row.role === 'user' ? 'user' : 'assistant', content: row.content, runId: row.run_id, createdAt: row.created_at })),
    ...runs.map((run): TranscriptItem => ({
      kind: 'run',
      runId: run.id,
      createdAt: run.created_at,
      ended: ENDED_STATES.has(run.state),
      events: unread.has(run.id) ? (eventsByRun.get(run.id) ?? []) : null,
    })),
  ];
  // Stable sort: messages were listed first, so they stay before a run of the same instant.
  return items.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

/** The newest `context_usage` event of the conversation's top-level runs (its JSON), or null when none ran the built-in harness. */
export async function latestContextUsage(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<string | null> {
  const row = await db
    .selectFrom('run_events')
    .innerJoin('runs', 'runs.id', 'run_events.run_id')
    .select(['run_events.data'])
    .where('runs.conversation_id', '=', conversationId)
    .where('runs.parent_run_id', 'is', null)
    .where('run_events.type', '=', 'context_usage')
    .orderBy('runs.created_at', 'desc')
    .orderBy('run_events.sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.data ?? null;
}
