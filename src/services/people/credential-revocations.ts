/** The credential key of a browser session (its listed short id), as streams and tickets remember it. */
export function sessionCredential(sessionId: string): string {
  return `session:${sessionId}`;
}

/** The credential key of a personal API token (its id). */
export function tokenCredential(tokenId: string): string {
  return `token:${tokenId}`;
}

/** What was revoked: all of a person's access, or one credential of theirs (a session, a token). */
export interface Revocation {
  personId: string;
  /** Absent: everything of the person ends (removed, role changed). */
  credential?: string | null;
}

/** What an open stream holds: whose it is, the credential it came through, the workspace it follows. */
export interface HeldAccess {
  personId: string;
  credential: string | null;
  workspaceId: string | null;
}

interface Listener extends HeldAccess {
  onRevoked: () => void;
}

/**
 * TEAM-2: what holds a person's access open past a single request — an event stream — listens here,
 * and is closed the moment the person is removed, their role changes, or the session or token it was
 * opened through is revoked. Requests themselves need no listener: every one is authorized afresh
 * against the registry, on whichever process it reaches.
 *
 * Streams are held by one process; a revocation may be made on another. {@link announce} closes this
 * process's streams and hands the revocation to the relay (on PostgreSQL: a NOTIFY every process of
 * the deployment listens to, see ProcessCluster), whose arrival elsewhere calls {@link received}.
 */
export class CredentialRevocations {
  private readonly listeners = new Map<string, Set<Listener>>();
  private relay: ((revocation: Revocation) => Promise<void>) | null = null;
  private stillHeld: ((access: HeldAccess) => Promise<boolean>) | null = null;

  /** Calls `onRevoked` once when `personId`'s access changes, or the credential the stream came through is revoked; returns the unsubscribe. */
  subscribe(personId: string, onRevoked: () => void, held: { credential?: string | null; workspaceId?: string | null } = {}): () => void {
    let set = this.listeners.get(personId);
    if (!set) this.listeners.set(personId, (set = new Set()));
    const listener: Listener = { personId, credential: held.credential ?? null, workspaceId: held.workspaceId ?? null, onRevoked };
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(personId) === set) this.listeners.delete(personId);
    };
  }

  /** Closes this process's streams of a person (all of them, or those opened through one credential). */
  revoke(personId: string, credential: string | null = null): void {
    const set = this.listeners.get(personId);
    if (!set) return;
    const ending = [...set].filter((listener) => credential === null || listener.credential === credential);
    for (const listener of ending) set.delete(listener);
    if (set.size === 0) this.listeners.delete(personId);
    for (const listener of ending) listener.onRevoked();
  }

  /**
   * Where revocations go beyond this process (set once, when the process shares a database with
   * others), and how to tell whether an open stream's access still holds when some may have been missed.
   */
  relayThrough(send: (revocation: Revocation) => Promise<void>, stillHeld: (access: HeldAccess) => Promise<boolean>): void {
    this.relay = send;
    this.stillHeld = stillHeld;
  }

  /**
   * The relay was deaf for a while (its connection dropped and came back): revocations announced
   * meanwhile never arrived, so every open stream's access is checked afresh and those whose
   * credential, person or workspace role is gone are closed.
   */
  async recheck(): Promise<void> {
    const stillHeld = this.stillHeld;
    if (!stillHeld) return;
    const held = [...this.listeners.values()].flatMap((set) => [...set]);
    const verdicts = await Promise.all(held.map((listener) => stillHeld(listener)));
    held.forEach((listener, index) => {
      if (verdicts[index]) return;
      const set = this.listeners.get(listener.personId);
      if (!set?.delete(listener)) return;
      if (set.size === 0) this.listeners.delete(listener.personId);
      listener.onRevoked();
    });
  }

  /** A revocation made here, after its change is committed: closes the streams here, then on every other process. */
  async announce(revocation: Revocation): Promise<void> {
    this.revoke(revocation.personId, revocation.credential ?? null);
    await this.relay?.(revocation);
  }

  /** A revocation relayed from another process (or echoed back from this one: closing twice closes nothing more). */
  received(payload: string): void {
    let parsed: { personId?: unknown; credential?: unknown };
    try {
      parsed = (JSON.parse(payload) ?? {}) as typeof parsed;
    } catch {
      return;
    }
    if (typeof parsed.personId !== 'string') return;
    this.revoke(parsed.personId, typeof parsed.credential === 'string' ? parsed.credential : null);
  }
}
