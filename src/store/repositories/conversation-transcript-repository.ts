import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** The run-log events a transcript is rebuilt from: what the model said, what tools returned, what was injected, where it was compacted. */
export const TRANSCRIPT_EVENT_TYPES = ['assistant_message', 'tool_call_end', 'steering_injected', 'reminder_injected', 'context_compacted'] as const;

const ENDED_STATES = new Set(['completed', 'failed', 'cancelled']);

/** One item of a conversation's timeline: a visible message, or a top-level run with its recorded events. */
export type TranscriptItem =
  | { kind: 'message'; role: 'user' | 'assistant'; content: string; runId: string | null; createdAt: string }
  /** `events` is null for a run the caller already holds (`known`); `ended`: its log will not change. */
  | { kind: 'run'; runId: string; createdAt: string; ended: boolean; events: Array<{ type: string; data: string }> | null };

/**
 * A conversation's timeline since its latest compaction (CTX-1), oldest first: its user and agent
 * messages and its top-level runs with their transcript events. Older items are not read: the
 * compaction's summary stands in for them. Messages come before a run created in the same instant
 * (a turn's message is written before its run).
 */
export async function listConversationTranscript(db: Kysely<WorkspaceSchema>, conversationId: string, known: ReadonlySet<string> = new Set()): Promise<TranscriptItem[]> {
  const compacted = await db
    .selectFrom('run_events')
    .innerJoin('runs', 'runs.id', 'run_events.run_id')
    .select(['runs.created_at'])
    .where('runs.conversation_id', '=', conversationId)
    .where('runs.parent_run_id', 'is', null)
    .where('run_events.type', '=', 'context_compacted')
    .orderBy('runs.created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  // The compacting run's own message is the newest user message written before it.
  let since: string | null = null;
  if (compacted) {
    const anchor = await db
      .selectFrom('messages')
      .select('created_at')
      .where('conversation_id', '=', conversationId)
      .where('role', '=', 'user')
      .where('created_at', '<=', compacted.created_at)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    since = anchor?.created_at ?? compacted.created_at;
  }
  let messageQuery = db
    .selectFrom('messages')
    .select(['role', 'content', 'run_id', 'created_at'])
    .where('conversation_id', '=', conversationId)
    .where('role', '!=', 'system')
    // CTX-3: what a rewind archived is out of the history until it is restored.
    .where('rewound_by', 'is', null);
  if (since) messageQuery = messageQuery.where('created_at', '>=', since);
  const messages = await messageQuery.orderBy('created_at').orderBy('id').execute();
  let runQuery = db.selectFrom('runs').select(['id', 'created_at', 'state']).where('conversation_id', '=', conversationId).where('parent_run_id', 'is', null);
  if (compacted) runQuery = runQuery.where('created_at', '>=', compacted.created_at);
  const rewound = await rewoundSpans(db, conversationId);
  const runs = (await runQuery.orderBy('created_at').orderBy('id').execute()).filter((run) => !rewound.some((span) => run.created_at >= span.from && run.created_at <= span.to));
  const unknown = runs.filter((run) => !known.has(run.id)).map((run) => run.id);
  const events = unknown.length === 0
    ? []
    : await db
        .selectFrom('run_events')
        .select(['run_id', 'type', 'data'])
        .where('run_id', 'in', unknown)
        .where('type', 'in', [...TRANSCRIPT_EVENT_TYPES])
        .orderBy('run_id')
        .orderBy('sequence')
        .execute();
  const eventsByRun = new Map<string, Array<{ type: string; data: string }>>();
  for (const event of events) {
    let list = eventsByRun.get(event.run_id);
    if (!list) eventsByRun.set(event.run_id, (list = []));
    list.push({ type: event.type, data: event.data });
  }
  const items: TranscriptItem[] = [
    ...messages.map((row): TranscriptItem => ({ kind: 'message', role: row.role === 'user' ? 'user' : 'assistant', content: row.content, runId: row.run_id, createdAt: row.created_at })),
    ...runs.map((run): TranscriptItem => ({
      kind: 'run',
      runId: run.id,
      createdAt: run.created_at,
      ended: ENDED_STATES.has(run.state),
      events: known.has(run.id) ? null : (eventsByRun.get(run.id) ?? []),
    })),
  ];
  // Stable sort: messages were listed first, so they stay before a run of the same instant.
  return items.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

/** CTX-3: the stretches of time unrestored rewinds archived (from the first archived message to the rewind): their runs leave the history too. */
async function rewoundSpans(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<Array<{ from: string; to: string }>> {
  return db
    .selectFrom('conversation_rewinds')
    .innerJoin('messages', 'messages.id', 'conversation_rewinds.message_id')
    .select(['messages.created_at as from', 'conversation_rewinds.created_at as to'])
    .where('conversation_rewinds.conversation_id', '=', conversationId)
    .where('conversation_rewinds.restored_at', 'is', null)
    .execute();
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
