import { sql, type Kysely, type Transaction } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** The PostgreSQL channel a committed event is announced on (payload: workspace id and event id only). */
export const EVENTS_CHANNEL = 'cc_events';

export interface CommittedEventRow {
  id: number;
  type: string;
  data: string;
  at: string;
  origin: string;
  committedAtMs: number;
}

/**
 * Appends events to a workspace's `workspace_events` and announces the newest, in one transaction
 * (PostgreSQL only). The transaction-scoped advisory lock per workspace serialises appenders from
 * every process, so `max(id) + 1…` is free of races and ids commit in increasing order: a reader
 * that has seen id N never later finds a smaller id committed behind it. The notification is sent
 * by the same transaction, so no process hears of a row before it is visible. A batch (the events
 * a burst queued while the previous append ran) costs one transaction, not one each.
 */
export async function appendWorkspaceEvents(
  db: Kysely<WorkspaceSchema>,
  workspaceId: string,
  events: ReadonlyArray<{ type: string; data: string; at: string; origin: string }>,
  /** Writes the state the events announce, in the same transaction (the live-state tables). */
  alongside?: (trx: Transaction<WorkspaceSchema>) => Promise<void>,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`cc_events:${workspaceId}`}))`.execute(trx);
    const latest = await latestWorkspaceEventId(trx);
    const committedAt = await sql<{ ms: number }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(trx);
    const ms = Number(committedAt.rows[0]!.ms);
    await trx
      .insertInto('workspace_events')
      .values(events.map((event, index) => ({ id: latest + index + 1, ...event, committed_at_ms: ms })))
      .execute();
    await alongside?.(trx);
    const id = latest + events.length;
    await sql`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ w: workspaceId, id })})`.execute(trx);
    return id;
  });
}

/** Events after `afterId`, oldest first, at most `limit`. */
export async function readWorkspaceEventsAfter(db: Kysely<WorkspaceSchema>, afterId: number, limit: number): Promise<CommittedEventRow[]> {
  const rows = await db.selectFrom('workspace_events').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map((row) => ({ id: Number(row.id), type: row.type, data: row.data, at: row.at, origin: row.origin, committedAtMs: Number(row.committed_at_ms) }));
}

/** The newest committed event id (0 when none). */
export async function latestWorkspaceEventId(db: Kysely<WorkspaceSchema>): Promise<number> {
  const row = await db.selectFrom('workspace_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
}
