/**
 * Serializes work per key inside this process. The push proxy uses it so two pushes into one staging
 * repository never interleave. Orchestrations use it so two nodes asking the budget
 * gate at once cannot both take the same remaining budget (ORC-4) — what the nodes in flight hold is
 * durable (budget-reservation-repository.ts) and each decision's transaction first writes the
 * orchestration's row, taking its write lock, so the rule also holds across processes — and so a
 * plan's record follows its plan's updates in order (PLAN-7).
 */
export class PerKeyLock {
  private readonly locks = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier piece of work for `key` has finished. */
  async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.locks.set(key, next);
    try {
      return await next;
    } finally {
      if (this.locks.get(key) === next) this.locks.delete(key);
    }
  }
}
