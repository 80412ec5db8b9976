import { nowIso } from '../../ids.js';
import type { EventBus } from '../event-bus.js';

/** Where one browser window of an operator is looking (AG-4: people beside agents). */
export interface OperatorHere {
  /** One per browser window (the web app makes it up); a person with two windows is two entries. */
  clientId: string;
  operatorId: string;
  spaceId: string | null;
  conversationId: string | null;
  since: string;
}

/** A window that has not said "still here" for this long is gone (it closed without saying so). */
export const OPERATOR_PRESENCE_TTL_MS = 45_000;

interface Entry extends OperatorHere {
  lastSeenMs: number;
}

/**
 * Presence of people (AG-4): the web app reports where each window is (a space or a conversation)
 * and says so again while it stays; leaving says so at once. Kept in memory only (a restart forgets
 * who was here, as it should). `presence.operators` is published with the whole list whenever it changes.
 */
export class OperatorPresence {
  private readonly byWorkspace = new Map<string, Map<string, Entry>>();

  constructor(
    private readonly events: EventBus,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Records that `clientId` is at this place now; publishes only when the list changes. */
  here(workspaceId: string, operatorId: string, clientId: string, place: { spaceId: string | null; conversationId: string | null }): OperatorHere[] {
    const entries = this.entries(workspaceId);
    const changed = this.prune(entries);
    const current = entries.get(clientId);
    const moved = !current || current.spaceId !== place.spaceId || current.conversationId !== place.conversationId || current.operatorId !== operatorId;
    entries.set(clientId, {
      clientId,
      operatorId,
      spaceId: place.spaceId,
      conversationId: place.conversationId,
      since: moved ? nowIso() : current.since,
      lastSeenMs: this.clock(),
    });
    if (moved || changed) this.publish(workspaceId);
    return this.list(workspaceId);
  }

  /** The window closed or left the workspace. Only its own operator can remove it. */
  leave(workspaceId: string, operatorId: string, clientId: string): void {
    const entries = this.entries(workspaceId);
    const entry = entries.get(clientId);
    if (!entry || entry.operatorId !== operatorId) return;
    entries.delete(clientId);
    this.publish(workspaceId);
  }

  list(workspaceId: string): OperatorHere[] {
    const entries = this.entries(workspaceId);
    if (this.prune(entries)) this.publish(workspaceId);
    return [...entries.values()].map(({ lastSeenMs: _lastSeen, ...here }) => here);
  }

  private entries(workspaceId: string): Map<string, Entry> {
    let entries = this.byWorkspace.get(workspaceId);
    if (!entries) {
      entries = new Map();
      this.byWorkspace.set(workspaceId, entries);
    }
    return entries;
  }

  /** Drops windows not seen within the TTL; true when any was dropped. */
  private prune(entries: Map<string, Entry>): boolean {
    const cutoff = this.clock() - OPERATOR_PRESENCE_TTL_MS;
    let dropped = false;
    for (const [clientId, entry] of entries) {
      if (entry.lastSeenMs < cutoff) {
        entries.delete(clientId);
        dropped = true;
      }
    }
    return dropped;
  }

  private publish(workspaceId: string): void {
    const operators = [...this.entries(workspaceId).values()].map(({ lastSeenMs: _lastSeen, ...here }) => here);
    this.events.publish(workspaceId, 'presence.operators', { operators, updatedAt: nowIso() });
  }
}
