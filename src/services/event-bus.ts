import { nowIso } from '../ids.js';
import type { EventCause, WorkspaceEvent, WorkspaceEventPayloads, WorkspaceEventType } from '../schemas/events.js';

/** One live event of a workspace, as sent on its SSE stream (its types live in src/schemas/events.ts). */
export type { WorkspaceEvent };

type Listener = (event: WorkspaceEvent) => void;

/** How many recent events each workspace keeps for clients reconnecting with Last-Event-ID. */
const REPLAY_BUFFER_SIZE = 1_000;

/**
 * Where events are committed when several processes serve one database (PostgreSQL): the
 * journal stores what this process publishes and hands every committed event — this process's and
 * the others' — back through `EventBus.deliverCommitted`, per workspace in id order, exactly once.
 */
export interface EventJournal {
  append(event: WorkspaceEvent): void;
  /** Committed events after `afterId`, oldest first (Last-Event-ID replay beyond the local buffer). */
  readAfter(workspaceId: string, afterId: number): Promise<WorkspaceEvent[]>;
  /** Resolves once this process follows the workspace: every event committed from then on is delivered. */
  follow(workspaceId: string): Promise<void>;
  /** The id of the last event delivered for the workspace (0 when none yet). */
  position(workspaceId: string): number;
}

/** A per-workspace subscriber and how far it has been served (used with a journal only). */
interface Subscriber {
  listener: Listener;
  cursor: number;
  /** A Last-Event-ID replay from the journal is in flight: live events wait in the buffer meanwhile. */
  replaying: boolean;
}

/**
 * Publish/subscribe per workspace. Embedded (SQLite): in-process only; listeners are called
 * synchronously in publish order, so every subscriber sees every event in the same order, and the
 * sequence is this process's counter. With a journal (PostgreSQL): per-workspace
 * subscribers (SSE) are fed from the committed events of every process, in commit-id order, and
 * the sequence is that id. `subscribeAll` listeners — in-process reactions such as pipeline
 * triggers — always get only what this process published, synchronously: each reaction then runs
 * once, in the process where its cause happened, however many processes there are.
 */
export class EventBus {
  private sequence = 0;
  private readonly listeners = new Map<string, Set<Subscriber>>();
  private readonly recent = new Map<string, WorkspaceEvent[]>();
  /** Per workspace, the sequence of the newest event pushed out of the replay buffer (0: none yet). */
  private readonly trimmedThrough = new Map<string, number>();
  private readonly everywhere = new Set<Listener>();
  /** Each listener to other processes' events with the types it reacts to. */
  private readonly remoteListeners = new Map<Listener, ReadonlySet<string>>();
  private journal: EventJournal | null = null;

  /** Switches to committed delivery (PostgreSQL); done once, before the first publish. */
  useJournal(journal: EventJournal): void {
    this.journal = journal;
  }

  /**
   * Publishes one event; the payload must match its type's schema in src/schemas/events.ts (checked by
   * the compiler). `cause` marks an event an agent's tool call caused, so reactions can tell it apart.
   */
  publish<T extends WorkspaceEventType>(workspaceId: string, type: T, data: WorkspaceEventPayloads[T], cause?: EventCause): WorkspaceEvent {
    this.sequence += 1;
    // The compiler cannot correlate `type` and `data` through the generic; the signature already did.
    const event = { sequence: this.sequence, workspaceId, type, at: nowIso(), data, ...(cause ? { cause } : {}) } as WorkspaceEvent;
    if (this.journal) {
      this.journal.append(event);
    } else {
      this.deliver(event);
    }
    for (const listener of this.everywhere) listener(event);
    return event;
  }

  /**
   * A committed event, from the journal (PostgreSQL): per workspace in id order, each once. `remote`:
   * another process published it (only those reach `subscribeRemote`).
   */
  deliverCommitted(event: WorkspaceEvent, remote: boolean): void {
    this.deliver(event);
    if (!remote) return;
    for (const [listener, types] of this.remoteListeners) if (types.has(event.type)) listener(event);
  }

  /**
   * Whether a committed event of `type` has anyone to reach in this process (PostgreSQL): a
   * subscriber of its workspace, or — another process's — a remote listener of its type. The
   * journal parses and delivers only such events: every process hears every batch, and most of a
   * tool turn's events (run log, presence, messages) concern only open streams, which an API
   * process without a browser or a worker does not have.
   */
  wantsCommitted(workspaceId: string, type: string, remote: boolean): boolean {
    if ((this.listeners.get(workspaceId)?.size ?? 0) > 0) return true;
    if (remote) for (const types of this.remoteListeners.values()) if (types.has(type)) return true;
    return false;
  }

  /**
   * A committed event passed over (nobody wanted it). The replay buffer must hold contiguous ids
   * ("reaches back" in `replayFromJournal`), so it starts again with the next event kept; a client
   * resuming from before that is served from the journal, the source of truth.
   */
  passedOver(workspaceId: string): void {
    this.recent.delete(workspaceId);
  }

  /** Resolves once events published from now on will reach a new subscriber (at once when embedded). */
  async ready(workspaceId: string): Promise<void> {
    await this.journal?.follow(workspaceId);
  }

  /**
   * Subscribes; replays events after `afterSequence` first (from the recent buffer, or with a
   * journal from the committed events when the buffer does not reach back that far). Returns the
   * unsubscribe function.
   */
  subscribe(workspaceId: string, listener: Listener, afterSequence?: number): () => void {
    const subscriber: Subscriber = { listener, cursor: 0, replaying: false };
    if (this.journal) {
      subscriber.cursor = afterSequence ?? this.journal.position(workspaceId);
      if (afterSequence !== undefined) {
        subscriber.replaying = true;
        // A failed read still ends the replay (in `finally`): the stream goes on live rather than stall.
        this.replayFromJournal(this.journal, workspaceId, subscriber).catch(() => undefined);
      }
    } else if (afterSequence !== undefined) {
      for (const event of this.recent.get(workspaceId) ?? []) {
        if (event.sequence > afterSequence) listener(event);
      }
    }
    let set = this.listeners.get(workspaceId);
    if (!set) {
      set = new Set();
      this.listeners.set(workspaceId, set);
    }
    set.add(subscriber);
    return () => set.delete(subscriber);
  }

  /**
   * Whether a subscriber resuming after `afterSequence` gets every event it missed. Embedded: the
   * buffer holds every event of the workspace after the last one it dropped, and a sequence beyond
   * this process's counter was given out by another (restarted) server. With a journal: every
   * committed event can be read back. A client told `false` refetches what it shows.
   */
  canReplayFrom(workspaceId: string, afterSequence: number): boolean {
    if (this.journal) return afterSequence <= this.journal.position(workspaceId);
    return afterSequence <= this.sequence && afterSequence >= (this.trimmedThrough.get(workspaceId) ?? 0);
  }

  /** Subscribes to every workspace's events this process publishes (pipeline domain-event triggers). Returns the unsubscribe function. */
  subscribeAll(listener: Listener): () => void {
    this.everywhere.add(listener);
    return () => this.everywhere.delete(listener);
  }

  /**
   * Events of `types` other processes published and committed (PostgreSQL only; never called when
   * embedded). The types are declared so that a process skips parsing the events nobody here reacts to.
   */
  subscribeRemote(types: readonly WorkspaceEventType[], listener: Listener): () => void {
    this.remoteListeners.set(listener, new Set(types));
    return () => this.remoteListeners.delete(listener);
  }

  /** Number of live subscribers of a workspace (used to know whether an operator is connected). */
  subscriberCount(workspaceId: string): number {
    return this.listeners.get(workspaceId)?.size ?? 0;
  }

  forget(workspaceId: string): void {
    this.listeners.delete(workspaceId);
    this.recent.delete(workspaceId);
    this.trimmedThrough.delete(workspaceId);
  }

  private deliver(event: WorkspaceEvent): void {
    let buffer = this.recent.get(event.workspaceId);
    if (!buffer) {
      buffer = [];
      this.recent.set(event.workspaceId, buffer);
    }
    buffer.push(event);
    if (buffer.length > REPLAY_BUFFER_SIZE) {
      const dropped = buffer.splice(0, buffer.length - REPLAY_BUFFER_SIZE);
      this.trimmedThrough.set(event.workspaceId, dropped[dropped.length - 1]!.sequence);
    }
    for (const subscriber of this.listeners.get(event.workspaceId) ?? []) {
      if (subscriber.replaying || event.sequence <= subscriber.cursor) continue;
      subscriber.cursor = event.sequence;
      subscriber.listener(event);
    }
  }

  /**
   * Serves a reconnecting subscriber what it missed: from the local buffer when it reaches back to
   * the subscriber's position, otherwise from the journal, then whatever arrived in the buffer while
   * the journal was read. Ids are contiguous per workspace, so "reaches back" is exact.
   */
  private async replayFromJournal(journal: EventJournal, workspaceId: string, subscriber: Subscriber): Promise<void> {
    const serve = (event: WorkspaceEvent) => {
      if (event.sequence <= subscriber.cursor) return;
      subscriber.cursor = event.sequence;
      subscriber.listener(event);
    };
    try {
      const oldest = this.recent.get(workspaceId)?.[0];
      if (!oldest || oldest.sequence > subscriber.cursor + 1) {
        for (const event of await journal.readAfter(workspaceId, subscriber.cursor)) serve(event);
      }
    } finally {
      for (const event of this.recent.get(workspaceId) ?? []) serve(event);
      subscriber.replaying = false;
    }
  }
}
