import type { RegistryStore } from '../store/registry-store.js';
import {
  consumeSingleUseCode,
  deleteCodesOf,
  deleteExpired,
  deleteSessionByHash,
  deleteSessionsOf,
  insertSession,
  insertSingleUseCode,
  liveSession,
  liveSessionsOf,
  touchSession,
  type SingleUseKind,
} from '../store/repositories/browser-session-repository.js';
import { sessionCredential } from './people/credential-revocations.js';
import { hashSecret as hashOf, newSecret } from './people/secret-hash.js';

/** How long a printed sign-in link works: long enough to click, short enough to go stale in a scrollback. */
export const SIGN_IN_CODE_TTL_MS = 5 * 60_000;
/** How long a browser session lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;
/** How long an SSE ticket works: it is fetched just before the EventSource opens. */
export const SSE_TICKET_TTL_MS = 60_000;
/** The session cookie's name. */
export const SESSION_COOKIE = 'cc_session';
/** A session's last-seen time is written at most this often: a busy browser is not a write per request. */
export const LAST_SEEN_WRITE_MS = 60_000;
/** Expired sessions and codes are swept at most this often, by whichever process mints next. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Who a secret stands for: a person, whether the credential it came from was read-only (viewer-capped),
 * and which credential that was (`session:<id>`, `token:<id>`), so revoking it can close what it opened.
 */
export interface SecretHolder {
  operatorId: string;
  readOnly: boolean;
  credential?: string | null;
}

/** A browser session as its person sees it in their session list: a short id, never the cookie. */
export interface SessionView {
  id: string;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

/** The short id a session is listed and revoked by: the head of its hash (the hash of a secret is not the secret). */
const SESSION_ID_LENGTH = 16;

/**
 * Sign-in without copying the token by hand, and the short-lived credentials a browser
 * uses instead of the operator token:
 * - **sign-in codes**: single-use, 5 minutes; `serve` prints a link carrying one, and an operator
 *   (never an agent: the route is operator-only) can mint another;
 * - **sessions**: what the link's code is exchanged for, held in an HttpOnly, SameSite=Strict cookie;
 * - **SSE tickets**: single-use, 60 seconds, minted by an operator principal for the event stream, so
 *   no long-lived credential rides in an EventSource URL (URLs end up in logs and history).
 * All of it lives in the registry (hashes only), not in this process: with several API processes on
 * one PostgreSQL database a cookie or ticket from one works on any other, and a restart keeps people
 * signed in. Every cookie is checked against the registry on every request, so a session ended on
 * any process is refused by the next request everywhere.
 */
export class OperatorSessions {
  private lastSweep = 0;

  constructor(
    private readonly registry: RegistryStore,
    private readonly now: () => number = Date.now,
  ) {}

  private get db() {
    return this.registry.db;
  }

  /** A sign-in code for a person; one minted by a read-only credential opens a read-only session. */
  async mintSignInCode(operatorId: string, readOnly = false): Promise<{ code: string; expiresAt: number }> {
    const { secret, expiresAt } = await this.mintCode('sign_in', { operatorId, readOnly }, SIGN_IN_CODE_TTL_MS, 'sic_');
    return { code: secret, expiresAt };
  }

  /** Consumes a sign-in code and opens a session for its person; null when the code is unknown, used or expired. */
  async redeemSignInCode(code: string): Promise<{ session: string; operatorId: string } | null> {
    const holder = await consumeSingleUseCode(this.db, hashOf(code), 'sign_in', this.now());
    if (!holder) return null;
    return this.openSession({ operatorId: holder.personId, readOnly: holder.readOnly });
  }

  /** A new browser session for a person (after a sign-in code, an accepted invitation or an OpenID Connect sign-in). */
  async openSession(holder: SecretHolder): Promise<{ session: string; operatorId: string }> {
    await this.sweep();
    const session = newSecret('ses_');
    const createdAt = this.now();
    const secretHash = hashOf(session);
    await insertSession(this.db, { secretHash, id: secretHash.slice(0, SESSION_ID_LENGTH), personId: holder.operatorId, readOnly: holder.readOnly, createdAt, expiresAt: createdAt + SESSION_TTL_MS });
    return { session, operatorId: holder.operatorId };
  }

  /** Who a session cookie stands for, or null (unknown, expired or ended); notes that the session was seen. */
  async sessionHolder(session: string): Promise<SecretHolder | null> {
    const secretHash = hashOf(session);
    const now = this.now();
    const row = await liveSession(this.db, secretHash, now);
    if (!row) return null;
    if (now - row.lastSeenAt >= LAST_SEEN_WRITE_MS) await touchSession(this.db, secretHash, row.lastSeenAt, now);
    return { operatorId: row.personId, readOnly: row.readOnly, credential: sessionCredential(row.id) };
  }

  /** Ends the session a cookie holds; returns whose it was and its id (to close what it opened), or null. */
  async endSession(session: string): Promise<{ operatorId: string; id: string } | null> {
    const ended = await deleteSessionByHash(this.db, hashOf(session));
    return ended ? { operatorId: ended.personId, id: ended.id } : null;
  }

  /** TEAM-1: a person's open browser sessions. */
  async sessionsOf(operatorId: string): Promise<SessionView[]> {
    return (await liveSessionsOf(this.db, operatorId, this.now())).map(({ id, createdAt, expiresAt, lastSeenAt }) => ({ id, createdAt, expiresAt, lastSeenAt }));
  }

  /** The short id of a session cookie's value, as {@link sessionsOf} lists it. */
  sessionIdOf(session: string): string {
    return hashOf(session).slice(0, SESSION_ID_LENGTH);
  }

  /** Ends one session of a person by its listed id; false when they have none by that id. */
  async endSessionById(operatorId: string, id: string): Promise<boolean> {
    return (await deleteSessionsOf(this.db, operatorId, id)) > 0;
  }

  /**
   * TEAM-2: everything a browser holds for this person — sessions, pending sign-in codes, SSE
   * tickets — ends now (a removed person, a changed role). Returns how many sessions ended.
   */
  async endEverythingOf(operatorId: string): Promise<number> {
    await deleteCodesOf(this.db, operatorId);
    return deleteSessionsOf(this.db, operatorId);
  }

  /** A ticket for one event stream, remembering the credential that asked for it. */
  async mintSseTicket(operatorId: string, readOnly = false, credential: string | null = null): Promise<{ ticket: string; expiresAt: number }> {
    const { secret, expiresAt } = await this.mintCode('sse_ticket', { operatorId, readOnly, credential }, SSE_TICKET_TTL_MS, 'sst_');
    return { ticket: secret, expiresAt };
  }

  async redeemSseTicket(ticket: string): Promise<SecretHolder | null> {
    const holder = await consumeSingleUseCode(this.db, hashOf(ticket), 'sse_ticket', this.now());
    return holder ? { operatorId: holder.personId, readOnly: holder.readOnly, credential: holder.credential } : null;
  }

  private async mintCode(kind: SingleUseKind, holder: SecretHolder, ttlMs: number, prefix: string): Promise<{ secret: string; expiresAt: number }> {
    await this.sweep();
    const secret = newSecret(prefix);
    const createdAt = this.now();
    const expiresAt = createdAt + ttlMs;
    await insertSingleUseCode(this.db, { codeHash: hashOf(secret), kind, personId: holder.operatorId, readOnly: holder.readOnly, credential: holder.credential ?? null, createdAt, expiresAt });
    return { secret, expiresAt };
  }

  private async sweep(): Promise<void> {
    const now = this.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    await deleteExpired(this.db, now);
  }
}
