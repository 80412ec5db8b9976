import type { BudgetReservation } from '../../core/orchestrations/node-budget.js';

/**
 * What the nodes in flight of each orchestration hold of its `maxUsd` (ORC-4), and which runs have
 * nodes held waiting for them. In memory on purpose: after a restart no node is in flight — every
 * interrupted or held node asks the gate again when the engine resumes its run, and reserves again.
 * Decisions for one orchestration are serialized ({@link exclusive}), so two nodes asking at once
 * cannot both take the same remaining budget.
 */
export class BudgetReservations {
  private readonly held = new Map<string, Map<string, BudgetReservation & { runId: string }>>();
  private readonly waiting = new Map<string, Set<string>>();
  private readonly locks = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier decision for this orchestration has finished. */
  async exclusive<T>(orchestrationId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(orchestrationId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.locks.set(orchestrationId, next);
    try {
      return await next;
    } finally {
      if (this.locks.get(orchestrationId) === next) this.locks.delete(orchestrationId);
    }
  }

  inFlight(orchestrationId: string): BudgetReservation[] {
    return [...(this.held.get(orchestrationId)?.values() ?? [])].map(({ nodeKey, reservedUsd }) => ({ nodeKey, reservedUsd }));
  }

  reserve(orchestrationId: string, runId: string, nodeKey: string, reservedUsd: number): void {
    const map = this.held.get(orchestrationId) ?? new Map<string, BudgetReservation & { runId: string }>();
    map.set(`${runId}\u0000${nodeKey}`, { runId, nodeKey, reservedUsd });
    this.held.set(orchestrationId, map);
  }

  release(orchestrationId: string, runId: string, nodeKey: string): void {
    this.held.get(orchestrationId)?.delete(`${runId}\u0000${nodeKey}`);
  }

  markWaiting(orchestrationId: string, runId: string): void {
    const runs = this.waiting.get(orchestrationId) ?? new Set<string>();
    runs.add(runId);
    this.waiting.set(orchestrationId, runs);
  }

  /** Runs with nodes waiting on this orchestration's reservations; forgets them (the caller resumes them). */
  takeWaiting(orchestrationId: string): string[] {
    const runs = [...(this.waiting.get(orchestrationId) ?? [])];
    this.waiting.delete(orchestrationId);
    return runs;
  }

  forgetRun(orchestrationId: string, runId: string): void {
    const map = this.held.get(orchestrationId);
    for (const [key, reservation] of map ?? []) if (reservation.runId === runId) map!.delete(key);
    this.waiting.get(orchestrationId)?.delete(runId);
  }
}
