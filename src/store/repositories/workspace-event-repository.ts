import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { isUniqueViolation } from '../unique-violation.js';
import type { WorkspaceSchema } from '../workspace-schema.js';

/**
 * The PostgreSQL channel a committed batch is announced on: `{"w": workspace id, "id": newest id}`,
 * plus — when the batch is sealed — `first`, `ms` (the database clock), `box` and `mac`
 * (src/services/cluster/sealed-event-batch.ts).
 */
export const EVENTS_CHANNEL = 'cc_events';

/**
 * How often an append is tried again after another process took the same ids first. Each
 * collision means that other append committed, so appenders as a whole always progress; the bound
 * only stops a broken table from looping.
 */
const MAX_ID_COLLISIONS = 50;

export interface CommittedEventRow {
  id: number;
  type: string;
  data: string;
  at: string;
  origin: string;
  committedAtMs: number;
}

/** The ids an append gave its events (contiguous) and the database clock when it wrote them. */
export interface AppendedEvents {
  firstId: number;
  lastId: number;
  committedAtMs: number;
}

/** What is committed with the events: nothing, parts of the one statement, or statements of a transaction around it. */
export interface AppendAlongside {
  /** Data-modifying `with` queries run by the appending statement itself (one round trip for all). */
  writes?: RawBuilder<unknown>[];
  /** Statements after the append in one transaction with it (a round trip each; the slower path). */
  inTransaction?: (trx: Transaction<WorkspaceSchema>) => Promise<void>;
  /** The batch encrypted, carried in the notification and signed by the statement with the ids it assigns. */
  sealed?: SealedBatch | null;
}

/** An encrypted batch, in parts of one notification each, and the HMAC-SHA256 key as its inner and outer pads (64 bytes each). */
export interface SealedBatch {
  parts: SealedPart[];
  innerPad: Buffer;
  outerPad: Buffer;
}

/** The events `from`…`to` (positions in the batch, inclusive) and their box; null when too large to travel (announced by ids only). */
export interface SealedPart {
  from: number;
  to: number;
  box: string | null;
}

/**
 * Appends events to a workspace's `workspace_events` and announces the newest (PostgreSQL only),
 * in ONE statement unless `inTransaction` is given: every round trip on the commit path is a
 * wake-up of the database and of this process, and on a loaded host each costs milliseconds.
 *
 * The rows take `max(id) + 1…` as the statement sees the table. Two appenders that see the same
 * maximum collide on the primary key: the second waits for the first to end, fails with a unique
 * violation and is tried again, now seeing the first one's rows. So an id can only be written by a
 * statement that saw every smaller id committed: ids are contiguous and commit in increasing order
 * across all processes, and a reader that has seen id N never later finds a smaller id committed
 * behind it. The notification is sent by the same transaction, so no process hears of a row before
 * it is visible. A batch (the events a burst queued while the previous append ran) is one append.
 */
export async function appendWorkspaceEvents(
  db: Kysely<WorkspaceSchema>,
  workspaceId: string,
  events: ReadonlyArray<{ type: string; data: string; at: string; origin: string }>,
  alongside: AppendAlongside = {},
): Promise<AppendedEvents> {
  const { writes = [], inTransaction, sealed = null } = alongside;
  for (let collisions = 0; ; collisions += 1) {
    try {
      if (!inTransaction) return await insertAndAnnounce(db, workspaceId, events, writes, sealed);
      return await db.transaction().execute(async (trx) => {
        const appended = await insertAndAnnounce(trx, workspaceId, events, writes, sealed);
        await inTransaction(trx);
        return appended;
      });
    } catch (error) {
      if (!isIdCollision(error) || collisions >= MAX_ID_COLLISIONS) throw error;
    }
  }
}

/** Another appender committed the same ids first (the events table's key; a live-state row's conflict is not one). */
function isIdCollision(error: unknown): boolean {
  return isUniqueViolation(error) && (error as { table?: unknown }).table === 'workspace_events';
}

/** The one statement: `writes`, the rows after the current maximum stamped with the database clock, and the notification. */
async function insertAndAnnounce(
  db: Kysely<WorkspaceSchema>,
  workspaceId: string,
  events: ReadonlyArray<{ type: string; data: string; at: string; origin: string }>,
  writes: readonly RawBuilder<unknown>[],
  sealed: SealedBatch | null,
): Promise<AppendedEvents> {
  const rows = sql.join(events.map((event, index) => sql`(${index + 1}::integer, ${event.type}::text, ${event.data}::text, ${event.at}::text, ${event.origin}::text)`));
  // Fixed names for the parts (never input): every part of a `with` runs, whether read or not.
  const parts = writes.map((write, index) => sql`${sql.raw(`alongside_${index}`)} as (${write}),`);
  const result = await sql<{ first_id: number; last_id: number; committed_at_ms: number }>`
    with ${sql.join(parts, sql` `)} inserted as (
      insert into workspace_events (id, type, data, at, origin, committed_at_ms)
      select latest.id + batch.ordinal, batch.type, batch.data, batch.at, batch.origin, clock.ms
      from (values ${rows}) as batch (ordinal, type, data, at, origin)
      cross join (select coalesce(max(id), 0) as id from workspace_events) as latest
      cross join (select floor(extract(epoch from clock_timestamp()) * 1000)::bigint as ms) as clock
      returning id, committed_at_ms
    ), appended as (
      select min(id) as first_id, max(id) as last_id, max(committed_at_ms) as committed_at_ms from inserted
    )
    select first_id, last_id, committed_at_ms, ${sql.join(announcements(workspaceId, sealed))}
    from appended`.execute(db);
  const row = result.rows[0]!;
  return { firstId: Number(row.first_id), lastId: Number(row.last_id), committedAtMs: Number(row.committed_at_ms) };
}

/**
 * The notifications of the batch, over the `appended` row: one by ids only, or one per sealed part
 * in id order (a select list is evaluated in order, and a transaction's notifications are delivered
 * in the order sent; a part heard out of order is only read, never lost).
 */
function announcements(workspaceId: string, sealed: SealedBatch | null): RawBuilder<unknown>[] {
  if (!sealed) return [sql`pg_notify(${EVENTS_CHANNEL}, json_build_object('w', ${workspaceId}::text, 'id', last_id)::text) as notified`];
  return sealed.parts.map((part, index) => sql`pg_notify(${EVENTS_CHANNEL}, ${announcement(workspaceId, sealed, part)}) as ${sql.raw(`notified_${index}`)}`);
}

/**
 * One part's notification text. Sealed: HMAC-SHA256 written out with the built-in sha256 (no
 * extension needed) over the same text as `signedText` in src/services/cluster/sealed-event-batch.ts
 * — workspace, the part's first id, its last id, clock, box, `:`-joined.
 */
function announcement(workspaceId: string, sealed: SealedBatch, part: SealedPart): RawBuilder<string> {
  const firstId = sql`(first_id + ${part.from}::bigint)`;
  const lastId = sql`(first_id + ${part.to}::bigint)`;
  if (part.box === null) return sql<string>`json_build_object('w', ${workspaceId}::text, 'id', ${lastId})::text`;
  const signed = sql`${workspaceId}::text || ':' || ${firstId}::text || ':' || ${lastId}::text || ':' || committed_at_ms::text || ':' || ${part.box}::text`;
  const mac = sql`encode(sha256(${sealed.outerPad}::bytea || sha256(${sealed.innerPad}::bytea || convert_to(${signed}, 'UTF8'))), 'hex')`;
  return sql<string>`json_build_object('w', ${workspaceId}::text, 'first', ${firstId}, 'id', ${lastId}, 'ms', committed_at_ms, 'box', ${part.box}::text, 'mac', ${mac})::text`;
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
