import { sql, type Kysely, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { WorkspaceEvent } from '../../schemas/events.js';
import {
  appendWorkspaceEvents,
  latestWorkspaceEventId,
  readWorkspaceEventsAfter,
  type AppendedEvents,
  type CommittedEventRow,
} from '../../store/repositories/workspace-event-repository.js';
import { changesLiveState, liveStateWrites, netLiveStateChanges, projectLiveState } from '../../store/repositories/live-state-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventBus, EventJournal } from '../event-bus.js';
import { LatencyHistogram } from './latency-histogram.js';
import { EventSeal, type CarriedEvent, type OpenedBatch, type SealedAnnouncement } from './sealed-event-batch.js';

/** Rows read per query when catching up. */
const PAGE = 500;

/**
 * How long the first event of an idle workspace waits for others before its append, as the run-log
 * writer does: a tool turn, or a posted turn, publishes at several moments a few milliseconds apart,
 * and each append is a statement, a seal, a notification and a wake-up of every other process.
 * Delivery waits this much more after publish; commit → delivery elsewhere is unchanged.
 */
const APPEND_DELAY_MS = 10;

/** What this process knows of one workspace's committed events. */
interface Followed {
  /** Id of the last event handed to the bus; null until `ready` settles. */
  cursor: number | null;
  ready: Promise<void>;
  pumping: boolean;
  /** A notification arrived during a pump: read again when it ends. */
  again: boolean;
  /** The newest id notified while this process's own append was in flight, read (if needed) once it returns. */
  heard: number;
}

/**
 * Live events across processes on PostgreSQL. Publishing appends the event to the
 * workspace's `workspace_events` (per workspace, in this process's publish order) and NOTIFYs its
 * id; every process hears the notification on its one listening connection (`notified`). When the
 * notification carries the batch sealed (EventSeal) and the batch follows what the process
 * delivered, it is handed over from the notification; otherwise the process reads the rows after the
 * last id it delivered, handing each to its bus in id order. Events reach the
 * bus only in id order and the cursor never goes back, which is how each is delivered exactly once.
 * This process's own events are handed over as soon as their append returns, when they directly
 * follow the cursor (no read, no wait for the notification); otherwise the table read delivers them.
 * After a reconnect, `caughtUp` re-reads every followed workspace.
 */
export class PostgresEventJournal implements EventJournal {
  /** Commit-to-delivery delay of every event this process delivered (`/metrics`). */
  readonly lag = new LatencyHistogram();
  private readonly followed = new Map<string, Followed>();
  /** Events published while an append of their workspace is in flight (null entry: none in flight). */
  private readonly queued = new Map<string, WorkspaceEvent[]>();
  private readonly flushing = new Map<string, Promise<void>>();
  /** Per workspace, ends the wait before its next append now (`settle`), while it waits. */
  private readonly gathering = new Map<string, () => void>();
  /** Seals and opens batches carried in notifications; null until the deployment's secret is read (ids only until then). */
  private seal: EventSeal | null = null;

  constructor(
    private readonly bus: EventBus,
    private readonly dbOf: (workspaceId: string) => Promise<Kysely<WorkspaceSchema>>,
    /** This process's id, stored with each event it publishes. */
    readonly origin: string,
    private readonly logger: Logger,
  ) {}

  /** From now on batches are carried in their notifications (sealed with `secret`) when they fit. */
  useSecret(secret: Buffer): void {
    this.seal = new EventSeal(secret);
  }

  append(event: WorkspaceEvent): void {
    const queued = this.queued.get(event.workspaceId);
    if (queued) {
      // An append is in flight: this event joins the next batch (one append for the burst).
      queued.push(event);
      return;
    }
    this.queued.set(event.workspaceId, [event]);
    const flushing = this.flush(event.workspaceId);
    this.flushing.set(event.workspaceId, flushing);
    // Only this flush's entry: a later flush of the workspace may have started before this one's `finally` ran.
    void flushing.finally(() => {
      if (this.flushing.get(event.workspaceId) === flushing) this.flushing.delete(event.workspaceId);
    });
  }

  /** Commits the workspace's queued events in publish order, a batch per append, until none is left. */
  private async flush(workspaceId: string): Promise<void> {
    // Followed before the first append, so this process's own events come back to its subscribers.
    await this.follow(workspaceId).catch(() => undefined);
    await this.gather(workspaceId);
    for (;;) {
      const batch = this.queued.get(workspaceId) ?? [];
      if (batch.length === 0) {
        this.queued.delete(workspaceId);
        return;
      }
      this.queued.set(workspaceId, []);
      try {
        const db = await this.dbOf(workspaceId);
        const rows = batch.map((event) => ({ type: event.type, data: JSON.stringify(event.data), at: event.at, origin: this.origin }));
        this.deliverOwn(workspaceId, await this.commit(db, workspaceId, batch, rows), rows);
      } catch (error) {
        this.logger.error({ err: error, workspaceId, events: batch.length }, 'live events could not be committed; no process delivers them');
      }
      // What was announced while the append ran and is not delivered by now (another process's events) is read.
      const followed = this.followed.get(workspaceId);
      if (followed && followed.heard > (followed.cursor ?? 0)) this.pump(workspaceId);
    }
  }

  /** Waits APPEND_DELAY_MS for more events of the workspace, or until `settle` asks for the append now. */
  private gather(workspaceId: string): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, APPEND_DELAY_MS);
      const gathering = this.gathering;
      function done(): void {
        clearTimeout(timer);
        gathering.delete(workspaceId);
        resolve();
      }
      gathering.set(workspaceId, done);
    });
  }

  /**
   * Hands this process's just-committed events to its bus when they directly follow what it
   * delivered (or were already delivered from their own notification); otherwise (another
   * process's events came in between and are not read yet) the table read delivers everything in order.
   */
  private deliverOwn(workspaceId: string, appended: AppendedEvents, rows: readonly CarriedEvent[]): void {
    const followed = this.followed.get(workspaceId);
    if (!followed) return;
    if (!this.handOver(workspaceId, followed, { firstId: appended.firstId, lastId: appended.lastId, committedAtMs: appended.committedAtMs, events: rows })) this.pump(workspaceId);
  }

  /**
   * Delivers the part of a committed batch after the cursor, when the batch reaches back to the
   * cursor (nothing missing in between); false when it does not (a read must fill the gap first).
   */
  private handOver(workspaceId: string, followed: Followed, batch: OpenedBatch): boolean {
    if (followed.cursor === null || batch.firstId > followed.cursor + 1) return false;
    const lag = (Date.now() - batch.committedAtMs) / 1000;
    batch.events.forEach((event, index) => {
      const id = batch.firstId + index;
      if (id <= followed.cursor!) return;
      followed.cursor = id;
      this.lag.observe(lag);
      // Parsed from the stored text, as every other process reads it.
      this.deliver(workspaceId, { id, type: event.type, data: event.data, at: event.at }, event.origin !== this.origin);
    });
    return true;
  }

  /**
   * Hands one committed event (the cursor already at its id) to the bus — parsed only when someone
   * in this process wants it; otherwise it is passed over, which costs its data's parse and a place
   * in the replay buffer, and nothing else: the cursor moved all the same, so delivery stays
   * gap-free, and a stream opened later resuming from before it is served from the table.
   */
  private deliver(workspaceId: string, row: Pick<CommittedEventRow, 'id' | 'type' | 'data' | 'at'>, remote: boolean): void {
    if (this.bus.wantsCommitted(workspaceId, row.type, remote)) this.bus.deliverCommitted(toEvent(workspaceId, row), remote);
    else this.bus.passedOver(workspaceId);
  }

  /**
   * Questions, presence and pauses are read by every process from the live-state rows: committed
   * with their events, never apart — in the events' one statement. When a row of the batch cannot
   * be written (the database refuses its data), the batch is appended again in a transaction with
   * each event's rows under a savepoint: that row is logged and left out, and the events
   * themselves — and the other rows — are still committed and delivered.
   */
  private async commit(db: Kysely<WorkspaceSchema>, workspaceId: string, batch: readonly WorkspaceEvent[], rows: ReadonlyArray<{ type: string; data: string; at: string; origin: string }>): Promise<AppendedEvents> {
    const changes = netLiveStateChanges(batch);
    try {
      return await appendWorkspaceEvents(db, workspaceId, rows, { writes: changes ? liveStateWrites(changes) : [], sealed: this.seal?.seal(workspaceId, rows) });
    } catch (error) {
      // Only a refusal of the data (SQLSTATE classes 22 and 23) can be a live-state row's; anything else may have committed.
      if (!changes || !isDataRefusal(error)) throw error;
      return appendWorkspaceEvents(db, workspaceId, rows, { inTransaction: (trx) => this.projectEach(trx, workspaceId, batch.filter(changesLiveState)), sealed: this.seal?.seal(workspaceId, rows) });
    }
  }

  private async projectEach(trx: Transaction<WorkspaceSchema>, workspaceId: string, events: readonly WorkspaceEvent[]): Promise<void> {
    for (const event of events) {
      await sql`savepoint live_state`.execute(trx);
      try {
        await projectLiveState(trx, [event]);
        await sql`release savepoint live_state`.execute(trx);
      } catch (error) {
        await sql`rollback to savepoint live_state`.execute(trx);
        this.logger.error({ err: error, workspaceId, event: event.type }, 'the live state an event announces could not be written; other processes show it from the next change');
      }
    }
  }

  async readAfter(workspaceId: string, afterId: number): Promise<WorkspaceEvent[]> {
    const db = await this.dbOf(workspaceId);
    const events: WorkspaceEvent[] = [];
    let cursor = afterId;
    for (;;) {
      const rows = await readWorkspaceEventsAfter(db, cursor, PAGE);
      for (const row of rows) events.push(toEvent(workspaceId, row));
      if (rows.length < PAGE) return events;
      cursor = rows[rows.length - 1]!.id;
    }
  }

  follow(workspaceId: string): Promise<void> {
    return this.followedOf(workspaceId, null).ready;
  }

  position(workspaceId: string): number {
    return this.followed.get(workspaceId)?.cursor ?? 0;
  }

  /** A notification on the events channel: `{"w": workspace id, "id": event id}`, with the sealed batch when it fit. */
  notified(payload: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    const { w, id } = (parsed ?? {}) as { w?: unknown; id?: unknown };
    if (typeof w !== 'string' || typeof id !== 'number' || !Number.isInteger(id)) return;
    // A workspace first heard of through a notification is followed from just before that event.
    const followed = this.followedOf(w, id - 1);
    // Already delivered (this process's own append, handed over when it returned): nothing to read.
    if (followed.cursor !== null && id <= followed.cursor) return;
    // Carried, authentic and directly following what was delivered: no read needed.
    const carried = this.opened(parsed as Partial<SealedAnnouncement>);
    if (carried && carried.lastId === id && this.handOver(w, followed, carried)) return;
    // This process's own append is in flight (or waits APPEND_DELAY_MS for company): its
    // notification often arrives before its answer. The append hands its events over when it
    // returns and reads only what it did not deliver — so an ids-only notification of another
    // process heard meanwhile is read up to that much later; a sealed one was delivered above.
    if (this.queued.has(w)) {
      followed.heard = Math.max(followed.heard, id);
      return;
    }
    this.pump(w);
  }

  /** The batch a well-formed sealed notification carries, once its MAC and box check out; null otherwise. */
  private opened(announcement: Partial<SealedAnnouncement>): OpenedBatch | null {
    const { w, first, id, ms, box, mac } = announcement;
    if (!this.seal || typeof w !== 'string' || typeof box !== 'string' || typeof mac !== 'string') return null;
    if (![first, id, ms].every((value) => typeof value === 'number' && Number.isSafeInteger(value))) return null;
    return this.seal.open({ w, first: first!, id: id!, ms: ms!, box, mac });
  }

  /** The listening connection is (back) up: whatever was committed while it was down is read now. */
  caughtUp(): void {
    for (const workspaceId of this.followed.keys()) this.pump(workspaceId);
  }

  /** Appends what waits for company at once, then waits for this process's appends still in flight (before the databases close). */
  async settle(): Promise<void> {
    for (const appendNow of [...this.gathering.values()]) appendNow();
    await Promise.all([...this.flushing.values()]);
  }

  private followedOf(workspaceId: string, startAfter: number | null): Followed {
    const followed = this.followed.get(workspaceId);
    if (followed) return followed;
    const entry: Followed = { cursor: startAfter, ready: Promise.resolve(), pumping: false, again: false, heard: 0 };
    if (startAfter === null) {
      entry.ready = this.dbOf(workspaceId)
        .then((db) => latestWorkspaceEventId(db))
        .then((latest) => {
          entry.cursor ??= latest;
        });
      // A failed first read (a deleted workspace) forgets the entry, so the next use retries.
      entry.ready.catch(() => this.followed.delete(workspaceId));
    }
    this.followed.set(workspaceId, entry);
    return entry;
  }

  private pump(workspaceId: string): void {
    const followed = this.followed.get(workspaceId);
    if (!followed) return;
    if (followed.pumping) {
      followed.again = true;
      return;
    }
    followed.pumping = true;
    void this.drain(workspaceId, followed).finally(() => {
      followed.pumping = false;
    });
  }

  private async drain(workspaceId: string, followed: Followed): Promise<void> {
    try {
      await followed.ready;
      const db = await this.dbOf(workspaceId);
      let rows: CommittedEventRow[];
      do {
        followed.again = false;
        rows = await readWorkspaceEventsAfter(db, followed.cursor ?? 0, PAGE);
        for (const row of rows) {
          if (row.id <= (followed.cursor ?? 0)) continue;
          followed.cursor = row.id;
          this.lag.observe((Date.now() - row.committedAtMs) / 1000);
          this.deliver(workspaceId, row, row.origin !== this.origin);
        }
      } while (followed.again || rows.length === PAGE);
    } catch (error) {
      this.logger.warn({ err: error, workspaceId }, 'reading committed live events failed; the next notification retries');
    }
  }
}

/** The database refused the data itself (a constraint, a value it cannot hold), not the connection or the statement. */
function isDataRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

function toEvent(workspaceId: string, row: Pick<CommittedEventRow, 'id' | 'type' | 'data' | 'at'>): WorkspaceEvent {
  return { sequence: row.id, workspaceId, type: row.type, at: row.at, data: JSON.parse(row.data) as unknown } as WorkspaceEvent;
}
