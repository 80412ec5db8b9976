import { hashSecret as hashOf, newSecret } from './people/secret-hash.js';

/** How long a printed sign-in link works: long enough to click, short enough to go stale in a scrollback. */
export const SIGN_IN_CODE_TTL_MS = 5 * 60_000;
/** How long a browser session lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;
/** How long an SSE ticket works: it is fetched just before the EventSource opens. */
export const SSE_TICKET_TTL_MS = 60_000;
/** The session cookie's name. */
export const SESSION_COOKIE = 'cc_session';

/** Who a secret stands for: a person, and whether the credential it came from was read-only (viewer-capped). */
export interface SecretHolder {
  operatorId: string;
  readOnly: boolean;
}

interface Entry extends SecretHolder {
  createdAt: number;
  expiresAt: number;
}

/** A browser session as its person sees it in their session list: a short id, never the cookie. */
export interface SessionView {
  id: string;
  createdAt: number;
  expiresAt: number;
}

/** The short id a session is listed and revoked by: the head of its hash (the hash of a secret is not the secret). */
const SESSION_ID_LENGTH = 16;


/** A map of secrets → operator, each with an expiry; `single` ones are deleted by their first use. */
class SecretStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly single: boolean,
    private readonly now: () => number,
  ) {}

  mint(holder: SecretHolder, prefix: string): { secret: string; expiresAt: number } {
    this.sweep();
    const secret = newSecret(prefix);
    const createdAt = this.now();
    const expiresAt = createdAt + this.ttlMs;
    this.entries.set(hashOf(secret), { operatorId: holder.operatorId, readOnly: holder.readOnly, createdAt, expiresAt });
    return { secret, expiresAt };
  }

  /** Who a secret stands for, or null (unknown, expired, or — for single-use ones — already used). */
  use(secret: string): SecretHolder | null {
    const key = hashOf(secret);
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.single || entry.expiresAt <= this.now()) this.entries.delete(key);
    return entry.expiresAt > this.now() ? { operatorId: entry.operatorId, readOnly: entry.readOnly } : null;
  }

  revoke(secret: string): void {
    this.entries.delete(hashOf(secret));
  }

  /** The live entries of one person, by short id. */
  listFor(operatorId: string): SessionView[] {
    this.sweep();
    return [...this.entries].filter(([, entry]) => entry.operatorId === operatorId).map(([key, entry]) => ({ id: key.slice(0, SESSION_ID_LENGTH), createdAt: entry.createdAt, expiresAt: entry.expiresAt }));
  }

  /** Ends one entry of a person by its short id (or all of theirs); returns how many ended. */
  revokeFor(operatorId: string, id?: string): number {
    let ended = 0;
    for (const [key, entry] of this.entries) {
      if (entry.operatorId !== operatorId || (id !== undefined && key.slice(0, SESSION_ID_LENGTH) !== id)) continue;
      this.entries.delete(key);
      ended += 1;
    }
    return ended;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

/**
 * Sign-in without copying the token by hand, and the short-lived credentials a browser
 * uses instead of the operator token:
 * - **sign-in codes**: single-use, 5 minutes; `serve` prints a link carrying one, and an operator
 *   (never an agent: the route is operator-only) can mint another;
 * - **sessions**: what the link's code is exchanged for, held in an HttpOnly, SameSite=Strict cookie;
 * - **SSE tickets**: single-use, 60 seconds, minted by an operator principal for the event stream, so
 *   no long-lived credential rides in an EventSource URL (URLs end up in logs and history).
 * All of it lives in memory: a restart signs browsers out (the operator token still works).
 */
export class OperatorSessions {
  private readonly codes: SecretStore;
  private readonly sessions: SecretStore;
  private readonly tickets: SecretStore;

  constructor(now: () => number = Date.now) {
    this.codes = new SecretStore(SIGN_IN_CODE_TTL_MS, true, now);
    this.sessions = new SecretStore(SESSION_TTL_MS, false, now);
    this.tickets = new SecretStore(SSE_TICKET_TTL_MS, true, now);
  }

  /** A sign-in code for a person; one minted by a read-only credential opens a read-only session. */
  mintSignInCode(operatorId: string, readOnly = false): { code: string; expiresAt: number } {
    const { secret, expiresAt } = this.codes.mint({ operatorId, readOnly }, 'sic_');
    return { code: secret, expiresAt };
  }

  /** Consumes a sign-in code and opens a session for its person; null when the code is unknown, used or expired. */
  redeemSignInCode(code: string): { session: string; operatorId: string } | null {
    const holder = this.codes.use(code);
    if (!holder) return null;
    return this.openSession(holder);
  }

  /** A new browser session for a person (after a sign-in code or an accepted invitation). */
  openSession(holder: SecretHolder): { session: string; operatorId: string } {
    return { session: this.sessions.mint(holder, 'ses_').secret, operatorId: holder.operatorId };
  }

  sessionHolder(session: string): SecretHolder | null {
    return this.sessions.use(session);
  }

  endSession(session: string): void {
    this.sessions.revoke(session);
  }

  /** TEAM-1: a person's open browser sessions. */
  sessionsOf(operatorId: string): SessionView[] {
    return this.sessions.listFor(operatorId);
  }

  /** The short id of a session cookie's value, as {@link sessionsOf} lists it. */
  sessionIdOf(session: string): string {
    return hashOf(session).slice(0, SESSION_ID_LENGTH);
  }

  /** Ends one session of a person by its listed id; false when they have none by that id. */
  endSessionById(operatorId: string, id: string): boolean {
    return this.sessions.revokeFor(operatorId, id) > 0;
  }

  /**
   * TEAM-2: everything a browser holds for this person — sessions, pending sign-in codes, SSE
   * tickets — ends now (a removed person, a changed role). Returns how many sessions ended.
   */
  endEverythingOf(operatorId: string): number {
    this.codes.revokeFor(operatorId);
    this.tickets.revokeFor(operatorId);
    return this.sessions.revokeFor(operatorId);
  }

  mintSseTicket(operatorId: string, readOnly = false): { ticket: string; expiresAt: number } {
    const { secret, expiresAt } = this.tickets.mint({ operatorId, readOnly }, 'sst_');
    return { ticket: secret, expiresAt };
  }

  redeemSseTicket(ticket: string): SecretHolder | null {
    return this.tickets.use(ticket);
  }
}
