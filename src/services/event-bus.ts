import { nowIso } from '../ids.js';
import type { WorkspaceEvent, WorkspaceEventPayloads, WorkspaceEventType } from '../schemas/events.js';

/** One live event of a workspace, as sent on its SSE stream (its types live in src/schemas/events.ts). */
export type { WorkspaceEvent };

type Listener = (event: WorkspaceEvent) => void;

/** How many recent events each workspace keeps for clients reconnecting with Last-Event-ID. */
const REPLAY_BUFFER_SIZE = 1_000;

/**
 * In-process publish/subscribe per workspace. Listeners are called synchronously in publish order,
 * so every subscriber sees every event in the same order.
 */
export class EventBus {
  private sequence = 0;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly recent = new Map<string, WorkspaceEvent[]>();
  private readonly everywhere = new Set<Listener>();

  /** Publishes one event; the payload must match its type's schema in src/schemas/events.ts (checked by the compiler). */
  publish<T extends WorkspaceEventType>(workspaceId: string, type: T, data: WorkspaceEventPayloads[T]): WorkspaceEvent {
    this.sequence += 1;
    // The compiler cannot correlate `type` and `data` through the generic; the signature already did.
    const event = { sequence: this.sequence, workspaceId, type, at: nowIso(), data } as WorkspaceEvent;
    let buffer = this.recent.get(workspaceId);
    if (!buffer) {
      buffer = [];
      this.recent.set(workspaceId, buffer);
    }
    buffer.push(event);
    if (buffer.length > REPLAY_BUFFER_SIZE) buffer.splice(0, buffer.length - REPLAY_BUFFER_SIZE);
    for (const listener of this.listeners.get(workspaceId) ?? []) listener(event);
    for (const listener of this.everywhere) listener(event);
    return event;
  }

  /** Subscribes; replays buffered events after `afterSequence` first. Returns the unsubscribe function. */
  subscribe(workspaceId: string, listener: Listener, afterSequence?: number): () => void {
    if (afterSequence !== undefined) {
      for (const event of this.recent.get(workspaceId) ?? []) {
        if (event.sequence > afterSequence) listener(event);
      }
    }
    let set = this.listeners.get(workspaceId);
    if (!set) {
      set = new Set();
      this.listeners.set(workspaceId, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Subscribes to every workspace's events (pipeline domain-event triggers). Returns the unsubscribe function. */
  subscribeAll(listener: Listener): () => void {
    this.everywhere.add(listener);
    return () => this.everywhere.delete(listener);
  }

  /** Number of live subscribers of a workspace (used to know whether an operator is connected). */
  subscriberCount(workspaceId: string): number {
    return this.listeners.get(workspaceId)?.size ?? 0;
  }

  forget(workspaceId: string): void {
    this.listeners.delete(workspaceId);
    this.recent.delete(workspaceId);
  }
}
