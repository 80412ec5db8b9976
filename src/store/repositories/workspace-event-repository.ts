import { sql, type Kysely } from 'kysely';
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
 * Appends one event to a workspace's `workspace_events` and announces it, in one transaction
 * (PostgreSQL only). The transaction-scoped advisory lock per workspace serialises appenders from
 * every process, so `max(id) + 1` is free of races and ids commit in increasing order: a reader
 * that has seen id N never later finds a smaller id committed behind it. The notification is sent
 * by the same transaction, so no process hears of a row before it is visible.
 */
export async function appendWorkspaceEvent(
  db: Kysely<WorkspaceSchema>,
  workspaceId: string,
  event: { type: string; data: string; at: string; origin: string },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`cc_events:${workspaceId}`}))`.execute(trx);
    const inserted = await sql<{ id: number }>`
      insert into workspace_events (id, type, data, at, origin, committed_at_ms)
      select coalesce(max(id), 0) + 1, ${event.type}, ${event.data}, ${event.at}, ${event.origin},
             floor(extract(epoch from clock_timestamp()) * 1000)
      from workspace_events
      returning id`.execute(trx);
    const id = Number(inserted.rows[0]!.id);
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
