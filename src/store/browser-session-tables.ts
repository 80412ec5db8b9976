/**
 * TEAM-1/TEAM-2: browser sessions and single-use codes, kept in the registry rather than one process's
 * memory, so a session opened through one API process works on every other one and survives a
 * restart. Only the sha256 of each secret is stored. Times are epoch milliseconds (bigint on PostgreSQL,
 * hence `number | string`).
 */
export interface BrowserSessionTable {
  /** sha256 of the cookie's value. */
  secret_hash: string;
  /** The short id the person's session list shows and revokes by: the head of the hash. */
  id: string;
  person_id: string;
  /** 1 when the session was opened through a read-only credential (it acts as a viewer). */
  read_only: number | string;
  created_at: number | string;
  expires_at: number | string;
  /** When a request last came with this cookie, written at most once a minute per session. */
  last_seen_at: number | string;
}

/**
 * A single-use code: a sign-in code (`sign_in`, exchanged for a session) or an event-stream ticket
 * (`sse_ticket`). Used once across every process: consuming is one conditional update on `used_at`.
 */
export interface SingleUseCodeTable {
  code_hash: string;
  kind: string;
  person_id: string;
  read_only: number | string;
  /** The credential that minted it (`session:<id>` or `token:<id>`): revoking that one closes the stream a ticket opened. */
  credential: string | null;
  created_at: number | string;
  expires_at: number | string;
  used_at: number | string | null;
}
