import { createHash, randomBytes } from 'node:crypto';

/** How long a printed sign-in link works (issue 17): long enough to click, short enough to go stale in a scrollback. */
export const SIGN_IN_CODE_TTL_MS = 5 * 60_000;
/** How long a browser session lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;
/** How long an SSE ticket works: it is fetched just before the EventSource opens. */
export const SSE_TICKET_TTL_MS = 60_000;
/** The session cookie's name. */
export const SESSION_COOKIE = 'cc_session';

interface Entry {
  operatorId: string;
  expiresAt: number;
}

/** Secrets are kept by their hash: a heap dump or a log of the map shows no usable value. */
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** A map of secrets → operator, each with an expiry; `single` ones are deleted by their first use. */
class SecretStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly single: boolean,
    private readonly now: () => number,
  ) {}

  mint(operatorId: string, prefix: string): { secret: string; expiresAt: number } {
    this.sweep();
    const secret = `${prefix}${randomBytes(32).toString('base64url')}`;
    const expiresAt = this.now() + this.ttlMs;
    this.entries.set(hashOf(secret), { operatorId, expiresAt });
    return { secret, expiresAt };
  }

  /** The operator a secret stands for, or null (unknown, expired, or — for single-use ones — already used). */
  use(secret: string): string | null {
    const key = hashOf(secret);
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.single || entry.expiresAt <= this.now()) this.entries.delete(key);
    return entry.expiresAt > this.now() ? entry.operatorId : null;
  }

  revoke(secret: string): void {
    this.entries.delete(hashOf(secret));
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

/**
 * Sign-in without copying the token by hand (issue 17), and the short-lived credentials a browser
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

  mintSignInCode(operatorId: string): { code: string; expiresAt: number } {
    const { secret, expiresAt } = this.codes.mint(operatorId, 'sic_');
    return { code: secret, expiresAt };
  }

  /** Consumes a sign-in code and opens a session for its operator; null when the code is unknown, used or expired. */
  redeemSignInCode(code: string): { session: string; operatorId: string } | null {
    const operatorId = this.codes.use(code);
    if (!operatorId) return null;
    return { session: this.sessions.mint(operatorId, 'ses_').secret, operatorId };
  }

  sessionOperator(session: string): string | null {
    return this.sessions.use(session);
  }

  endSession(session: string): void {
    this.sessions.revoke(session);
  }

  mintSseTicket(operatorId: string): { ticket: string; expiresAt: number } {
    const { secret, expiresAt } = this.tickets.mint(operatorId, 'sst_');
    return { ticket: secret, expiresAt };
  }

  redeemSseTicket(ticket: string): string | null {
    return this.tickets.use(ticket);
  }
}
