import { nowIso } from '../../ids.js';
import type { EventBus } from '../event-bus.js';

/** AG-4: a coarse live picture of each agent, synthesized from run events. */
export type PresenceStatus = 'idle' | 'thinking' | 'executing' | 'blocked' | 'done';

export interface Presence {
  agentId: string;
  status: PresenceStatus;
  runId: string | null;
  since: string;
}

/** Keeps the latest presence per agent and publishes `presence.updated` only when it changes. */
export class PresenceService {
  private readonly byWorkspace = new Map<string, Map<string, Presence>>();

  constructor(private readonly events: EventBus) {}

  set(workspaceId: string, agentId: string, status: PresenceStatus, runId: string | null): void {
    let agents = this.byWorkspace.get(workspaceId);
    if (!agents) {
      agents = new Map();
      this.byWorkspace.set(workspaceId, agents);
    }
    const current = agents.get(agentId);
    if (current && current.status === status && current.runId === runId) return;
    const presence: Presence = { agentId, status, runId, since: nowIso() };
    agents.set(agentId, presence);
    this.events.publish(workspaceId, 'presence.updated', presence);
  }

  list(workspaceId: string): Presence[] {
    return [...(this.byWorkspace.get(workspaceId)?.values() ?? [])];
  }
}
