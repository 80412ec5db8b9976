import type { SpendPeriod } from '../../schemas/budget.js';

/**
 * BUD-1: the running spend per workspace, subject (an agent, or the whole workspace) and period,
 * kept in memory so the check before every model call reads a number instead of summing the
 * ledger. A total is summed from the ledger once, when first needed (`load`), and from then on
 * every recorded call adds to it. A period that has passed is simply never asked for again; the
 * map is dropped per workspace when it grows past {@link MAX_ENTRIES}.
 */
export class SpendTotals {
  private readonly totals = new Map<string, Map<string, number>>();
  /** Totals being summed, so two concurrent first checks share one query. */
  private readonly loading = new Map<string, Promise<number>>();

  async get(workspaceId: string, agentId: string | null, period: SpendPeriod, key: string, load: () => Promise<number>): Promise<number> {
    const cached = this.totals.get(workspaceId)?.get(totalKey(agentId, period, key));
    if (cached !== undefined) return cached;
    const id = `${workspaceId}|${totalKey(agentId, period, key)}`;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = load().finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
      const summed = await pending;
      // Calls recorded while the sum ran are in it already (the row is written before `add`).
      this.workspace(workspaceId).set(totalKey(agentId, period, key), summed);
      return summed;
    }
    return pending;
  }

  /** Replaces a total with one just summed from the ledger (PostgreSQL: other processes' calls are in it). */
  set(workspaceId: string, agentId: string | null, period: SpendPeriod, key: string, total: number): void {
    this.workspace(workspaceId).set(totalKey(agentId, period, key), total);
  }

  /** Adds a recorded call to the totals already kept; one not kept yet is summed (with it) when asked. */
  add(workspaceId: string, agentId: string, keys: Record<SpendPeriod, string>, costUsd: number): void {
    const totals = this.totals.get(workspaceId);
    if (!totals) return;
    for (const period of ['day', 'month'] as const) {
      for (const subject of [agentId, null]) {
        const entry = totalKey(subject, period, keys[period]);
        const before = totals.get(entry);
        if (before !== undefined) totals.set(entry, before + costUsd);
      }
    }
  }

  /** Drops a workspace's totals (recorded costs were rewritten): they are summed again when next asked. */
  forget(workspaceId: string): void {
    this.totals.delete(workspaceId);
  }

  private workspace(workspaceId: string): Map<string, number> {
    let totals = this.totals.get(workspaceId);
    if (!totals || totals.size > MAX_ENTRIES) {
      totals = new Map();
      this.totals.set(workspaceId, totals);
    }
    return totals;
  }
}

/** More than enough for every agent's day and month; past it the old periods are dropped with the rest. */
const MAX_ENTRIES = 10_000;

function totalKey(agentId: string | null, period: SpendPeriod, key: string): string {
  return `${agentId ?? '*'}|${period}|${key}`;
}
