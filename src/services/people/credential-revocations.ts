/**
 * TEAM-2: what holds a person's access open past a single request — an event stream — listens here,
 * and is closed the moment the person is removed or their role changes. Requests themselves need no
 * listener: every one is authorized afresh against the registry.
 */
export class CredentialRevocations {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Calls `onRevoked` once when `personId`'s access changes; returns the unsubscribe. */
  subscribe(personId: string, onRevoked: () => void): () => void {
    let set = this.listeners.get(personId);
    if (!set) this.listeners.set(personId, (set = new Set()));
    set.add(onRevoked);
    return () => {
      set.delete(onRevoked);
      if (set.size === 0 && this.listeners.get(personId) === set) this.listeners.delete(personId);
    };
  }

  revoke(personId: string): void {
    const set = this.listeners.get(personId);
    if (!set) return;
    this.listeners.delete(personId);
    for (const listener of set) listener();
  }
}
