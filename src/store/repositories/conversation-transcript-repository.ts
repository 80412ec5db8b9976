import { sql, type Expression, type Kysely } from 'kysely';
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

/** CTX-1: the creation time of the conversation's newest top-level run that compacted it (no row: never compacted). */
function newestCompaction(db: Kysely<WorkspaceSchema>, conversationId: string) {
  return db
    .selectFrom('run_events')
    .innerJoin('runs', 'runs.id', 'run_events.run_id')
    .select(['runs.created_at'])
    .where('runs.conversation_id', '=', conversationId)
    .where('runs.parent_run_id', 'is', null)
    .where('run_events.type', '=', 'context_compacted')
    .orderBy('runs.created_at', 'desc')
    .limit(1);
}

/**
 * A conversation's whole history read in one statement (NF-SCALE: on PostgreSQL each statement is a
 * round trip): what it is built under (kind `rewind`, `image`, as {@link marksAndTimelineSince}) and
 * its timeline since its newest compaction (kind `message` and `run`). The timeline's bounds are
 * scalar subqueries rather than values read first: runs since the compacting run, messages since the
 * compacting run's own message (the newest user message written at or before it), and everything
 * (the empty string, before every ISO time) when it was never compacted. The rewinds do not bound
 * the timeline: archived messages are left out by their own column and rewound runs by their spans
 * afterwards. Run logs are not read here: a full build usually meets runs this process holds already
 * (a rebuild after a rewind) or none at all (a conversation's first turn).
 */
const marksAndTimeline = reusableQuery((db, conversationId: string, runsBefore: string) => {
  const runsSince = sql<string>`coalesce((${newestCompaction(db, conversationId)}), '')`;
  const compactingMessage = db
    .selectFrom('messages')
    .select('created_at')
    .where('conversation_id', '=', conversationId)
    .where('role', '=', 'user')
    .where('created_at', '<=', newestCompaction(db, conversationId))
    .orderBy('created_at', 'desc')
    .limit(1);
  const messagesSince = sql<string>`coalesce((${compactingMessage}), (${newestCompaction(db, conversationId)}), '')`;
  const [rewinds, images] = marksRows(db, conversationId);
  return timelineRows(db, conversationId, messagesSince, runsSince, runsBefore)
    .unionAll(rewinds)
    .unionAll(images)
    .orderBy('kind')
    .orderBy('created_at')
    .orderBy('id')
    .orderBy('seq');
});

/**
 * The timeline's rows: the messages since `messagesSince` and the top-level runs since `runsSince`,
 * runs created before `runsBefore` and messages created at or before it. (A turn's history ends before
 * its message: what came later is cut anyway, and messages of that instant are cut by the caller.) `detail` is a message's role or a run's state; `seq` is 0 (it orders a
 * run's events, where they come along).
 */
function timelineRows(db: Kysely<WorkspaceSchema>, conversationId: string, messagesSince: string | Expression<string>, runsSince: string | Expression<string>, runsBefore: string) {
  return db
    .selectFrom('messages')
    .select((eb) => [
      sql<TimelineKind>`'message'`.as('kind'),
      'id',
      eb.ref('role').$castTo<string>().as('detail'),
      'content',
      'run_id',
      'created_at',
      sql<number>`0`.as('seq'),
    ])
    .where('conversation_id', '=', conversationId)
    .where('role', '!=', 'system')
    // CTX-3: what a rewind archived is out of the history until it is restored.
    .where('rewound_by', 'is', null)
    .where('created_at', '>=', messagesSince)
    .where('created_at', '<=', runsBefore)
    .unionAll(
      db
        .selectFrom('runs')
        .select((eb) => [
          sql<TimelineKind>`'run'`.as('kind'),
          'id',
          eb.ref('state').$castTo<string>().as('detail'),
          sql<string>`null`.as('content'),
          sql<string | null>`null`.as('run_id'),
          'created_at',
          sql<number>`0`.as('seq'),
        ])
        .where('conversation_id', '=', conversationId)
        .where('parent_run_id', 'is', null)
        .where('created_at', '>=', runsSince)
        .where('created_at', '<', runsBefore),
    );
}

/** What a history is built under, as two selects of the timeline's shape: kind `rewind` (`id` a span's from, `detail` its to) and kind `image` (`id` the message, `content` its text). */
function marksRows(db: Kysely<WorkspaceSchema>, conversationId: string) {
  return [
    unrestoredRewinds(db, conversationId)
    .select([
      sql<TimelineKind>`'rewind'`.as('kind'),
      'messages.created_at as id',
      'conversation_rewinds.created_at as detail',
      sql<string>`null`.as('content'),
      sql<string | null>`null`.as('run_id'),
      'conversation_rewinds.created_at as created_at',
      sql<number>`0`.as('seq'),
    ]),
    imageMessages(db, conversationId).select([
      sql<TimelineKind>`'image'`.as('kind'),
      'messages.id as id',
      sql<string>`null`.as('detail'),
      'messages.content as content',
      sql<string | null>`null`.as('run_id'),
      'messages.created_at as created_at',
      sql<number>`0`.as('seq'),
    ]),
  ] as const;
}

/**
 * The timeline's rows since `since` (as {@link timelineRows}) and, in the same statement, the
 * transcript events of the runs it lists (kind `event`: `id` the run, `detail` the event's type,
 * `content` its data, `seq` its place in the run's log), and what the history is built under (as
 * {@link marksRows}). A kept history's next turn reads everything it needs this way: one round trip
 * instead of two on PostgreSQL (NF-SCALE). The timeline's bounds come from the kept history, not
 * from the rewinds, so nothing has to be read first; when the rewinds turn out to differ from those
 * the history was built under, the timeline rows are simply not used. Runs the caller already holds
 * come with their events too (they are ignored): the window since a kept point nearly always holds
 * only runs the caller has not read (the previous turn's), so that costs rows rarely, and no statement.
 */
const marksAndTimelineSince = reusableQuery((db, conversationId: string, since: string, runsBefore: string) => {
  const [rewinds, images] = marksRows(db, conversationId);
  return timelineRows(db, conversationId, since, since, runsBefore)
    .unionAll(
      db
        .selectFrom('run_events')
        .innerJoin('runs', 'runs.id', 'run_events.run_id')
        .select([
          sql<TimelineKind>`'event'`.as('kind'),
          'run_events.run_id as id',
          'run_events.type as detail',
          'run_events.data as content',
          sql<string | null>`null`.as('run_id'),
          'runs.created_at as created_at',
          'run_events.sequence as seq',
        ])
        .where('runs.conversation_id', '=', conversationId)
        .where('runs.parent_run_id', 'is', null)
        .where('runs.created_at', '>=', since)
        .where('runs.created_at', '<', runsBefore)
        .where('run_events.type', 'in', [...TRANSCRIPT_EVENT_TYPES]),
    )
    .unionAll(rewinds)
    .unionAll(images)
    .orderBy('kind')
    .orderBy('created_at')
    .orderBy('id')
    .orderBy('seq');
});

type TimelineKind = 'message' | 'run' | 'event' | 'rewind' | 'image';

/** A `runsBefore` bound no run or message reaches (every ISO time sorts before it). */
const NO_BOUND = '~';

/** The conversation's unrestored rewinds joined to the first message each archived, for a caller's columns. */
function unrestoredRewinds(db: Kysely<WorkspaceSchema>, conversationId: string) {
  return db
    .selectFrom('conversation_rewinds')
    .innerJoin('messages', 'messages.id', 'conversation_rewinds.message_id')
    .where('conversation_rewinds.conversation_id', '=', conversationId)
    .where('conversation_rewinds.restored_at', 'is', null);
}

/** TOOL-3: the conversation's messages that carry an image, each once, for a caller's columns. */
function imageMessages(db: Kysely<WorkspaceSchema>, conversationId: string) {
  return db
    .selectFrom('message_attachments')
    .innerJoin('messages', 'messages.id', 'message_attachments.message_id')
    .where('message_attachments.conversation_id', '=', conversationId)
    .where('message_attachments.kind', '=', 'image')
    .distinct();
}

/** What a turn's history is built under: the unrestored rewinds (ordered, so two reads compare equal) and, TOOL-3, the messages with images and their text. */
export interface HistoryMarks {
  rewound: RewoundSpan[];
  withImages: Array<{ id: string; content: string }>;
}

/** The marks among rows of kind `rewind` (`id` from, `detail` to) and `image` (`id` the message, `content` its text); other rows are passed over. */
function marksOf(rows: ReadonlyArray<{ kind: string; id: string; detail: string; content: string }>): HistoryMarks {
  const rewound: RewoundSpan[] = [];
  const withImages: Array<{ id: string; content: string }> = [];
  for (const row of rows) {
    if (row.kind === 'rewind') rewound.push({ from: row.id, to: row.detail });
    else if (row.kind === 'image') withImages.push({ id: row.id, content: row.content });
  }
  rewound.sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
  return { rewound, withImages };
}

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
 * What a turn's history is built under ({@link HistoryMarks}) and the conversation's timeline since
 * its latest compaction (CTX-1), oldest first: its user and agent messages and its top-level runs
 * with their transcript events, runs in a span an unrestored rewind archived left out. Older items
 * are not read: the compaction's summary stands in for them. Messages come before a run created in
 * the same instant (a turn's message is written before its run). One statement, and a second for
 * the logs of the runs `known` does not hold, when there are any. `runsBefore`: runs created at or
 * after it are not listed, nor messages created after it (a turn reading its history leaves out its
 * own run and what was posted after its message).
 */
export async function historyMarksAndTranscript(
  db: Kysely<WorkspaceSchema>,
  conversationId: string,
  known: { has(runId: string): boolean },
  runsBefore = NO_BOUND,
): Promise<{ marks: HistoryMarks; items: TranscriptItem[] }> {
  const rows = await marksAndTimeline(db, conversationId, runsBefore);
  const marks = marksOf(rows);
  const items = await itemsOf(rows, known, marks.rewound, (unread) => transcriptEventsOf(db, [...unread]));
  return { marks, items };
}

/**
 * What a history kept from an earlier turn is extended by, in one statement: the history's marks
 * and the items of the conversation's timeline created at or after `from`, as
 * {@link historyMarksAndTranscript} reads and lists them, with their runs' events. The caller knows no
 * compaction happened before `from` since it built that history; the items are only good to extend
 * it when the marks' rewinds are the ones it was built under (else they are built again from the
 * whole timeline). `runsBefore`: runs created at or after it are not listed (nor their events read),
 * nor messages created after it; a turn reading its history leaves out its own run and what was
 * posted after its message.
 */
export async function historyMarksAndTranscriptFrom(
  db: Kysely<WorkspaceSchema>,
  conversationId: string,
  from: string,
  known: { has(runId: string): boolean },
  runsBefore = NO_BOUND,
): Promise<{ marks: HistoryMarks; items: TranscriptItem[] }> {
  const rows = await marksAndTimelineSince(db, conversationId, from, runsBefore);
  const marks = marksOf(rows);
  // The events came along, in each run's log order (the statement orders them by sequence).
  const items = await itemsOf(rows, known, marks.rewound, (unread) =>
    rows.filter((row) => row.kind === 'event' && unread.has(row.id)).map((row) => ({ run_id: row.id, type: row.detail, data: row.content })),
  );
  return { marks, items };
}

/**
 * The timeline items among `rows` (kinds `message` and `run`; others are passed over), runs in a
 * rewound span left out; `eventsOf` gives the transcript events of the runs `known` does not hold,
 * each run's in its log order.
 */
async function itemsOf(
  rows: ReadonlyArray<{ kind: string; id: string; detail: string; content: string; run_id: string | null; created_at: string }>,
  known: { has(runId: string): boolean },
  rewound: readonly RewoundSpan[],
  eventsOf: (unread: ReadonlySet<string>) => Array<{ run_id: string; type: string; data: string }> | Promise<Array<{ run_id: string; type: string; data: string }>>,
): Promise<TranscriptItem[]> {
  const messages = rows.filter((row) => row.kind === 'message').map((row) => ({ id: row.id, role: row.detail, content: row.content, run_id: row.run_id, created_at: row.created_at }));
  const runs = rows
    .filter((row) => row.kind === 'run')
    .map((row) => ({ id: row.id, created_at: row.created_at, state: row.detail }))
    .filter((run) => !rewound.some((span) => run.created_at >= span.from && run.created_at <= span.to));
  const unread = new Set(runs.filter((run) => !known.has(run.id)).map((run) => run.id));
  const events = await eventsOf(unread);
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
