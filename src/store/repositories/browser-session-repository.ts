import type { Kysely, Selectable } from 'kysely';
import type { BrowserSessionTable } from '../browser-session-tables.js';
import type { RegistrySchema } from '../registry-schema.js';

type Registry = Kysely<RegistrySchema>;

/** Who a stored session or code stands for. */
export interface StoredHolder {
  personId: string;
  readOnly: boolean;
  credential: string | null;
}

export interface StoredSession {
  id: string;
  personId: string;
  readOnly: boolean;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

/** Numbers come back as bigint strings on PostgreSQL. */
function toStoredSession(row: Selectable<BrowserSessionTable>): StoredSession {
  return { id: row.id, personId: row.person_id, readOnly: Number(row.read_only) === 1, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at), lastSeenAt: Number(row.last_seen_at) };
}

export type SingleUseKind = 'sign_in' | 'sse_ticket';

export async function insertSession(db: Registry, row: { secretHash: string; id: string; personId: string; readOnly: boolean; createdAt: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('browser_sessions')
    .values({ secret_hash: row.secretHash, id: row.id, person_id: row.personId, read_only: row.readOnly ? 1 : 0, created_at: row.createdAt, expires_at: row.expiresAt, last_seen_at: row.createdAt })
    .execute();
}

/** The live session a cookie's hash stands for (not expired), or undefined. */
export async function liveSession(db: Registry, secretHash: string, now: number): Promise<StoredSession | undefined> {
  const row = await db.selectFrom('browser_sessions').selectAll().where('secret_hash', '=', secretHash).where('expires_at', '>', now).executeTakeFirst();
  return row ? toStoredSession(row) : undefined;
}

/**
 * Moves a session's last-seen time forward, only if no other request (on any process) did since
 * `seenBefore` was read: of requests racing through several processes, one writes.
 */
export async function touchSession(db: Registry, secretHash: string, seenBefore: number, now: number): Promise<void> {
  await db.updateTable('browser_sessions').set({ last_seen_at: now }).where('secret_hash', '=', secretHash).where('last_seen_at', '=', seenBefore).execute();
}

export async function liveSessionsOf(db: Registry, personId: string, now: number): Promise<StoredSession[]> {
  const rows = await db.selectFrom('browser_sessions').selectAll().where('person_id', '=', personId).where('expires_at', '>', now).orderBy('created_at').execute();
  return rows.map(toStoredSession);
}

/** Deletes the session with this cookie hash; returns whose it was (and its id), or undefined. */
export async function deleteSessionByHash(db: Registry, secretHash: string): Promise<{ personId: string; id: string } | undefined> {
  const row = await db.selectFrom('browser_sessions').select(['person_id', 'id']).where('secret_hash', '=', secretHash).executeTakeFirst();
  if (!row) return undefined;
  await db.deleteFrom('browser_sessions').where('secret_hash', '=', secretHash).execute();
  return { personId: row.person_id, id: row.id };
}

/** Deletes one session of a person by its short id, or all of theirs; returns how many went. */
export async function deleteSessionsOf(db: Registry, personId: string, id?: string): Promise<number> {
  let query = db.deleteFrom('browser_sessions').where('person_id', '=', personId);
  if (id !== undefined) query = query.where('id', '=', id);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

export async function insertSingleUseCode(db: Registry, row: { codeHash: string; kind: SingleUseKind; personId: string; readOnly: boolean; credential: string | null; createdAt: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('single_use_codes')
    .values({ code_hash: row.codeHash, kind: row.kind, person_id: row.personId, read_only: row.readOnly ? 1 : 0, credential: row.credential, created_at: row.createdAt, expires_at: row.expiresAt, used_at: null })
    .execute();
}

/**
 * Uses a code up: one conditional update, so of two requests (on any processes) presenting the same
 * code, exactly one gets its holder. Unknown, expired and used codes give undefined alike.
 */
export async function consumeSingleUseCode(db: Registry, codeHash: string, kind: SingleUseKind, now: number): Promise<StoredHolder | undefined> {
  const claimed = await db
    .updateTable('single_use_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return undefined;
  const row = await db.selectFrom('single_use_codes').select(['person_id', 'read_only', 'credential']).where('code_hash', '=', codeHash).executeTakeFirst();
  return row ? { personId: row.person_id, readOnly: Number(row.read_only) === 1, credential: row.credential } : undefined;
}

export async function deleteCodesOf(db: Registry, personId: string): Promise<void> {
  await db.deleteFrom('single_use_codes').where('person_id', '=', personId).execute();
}

/** Drops expired sessions and codes (used codes go once expired too): the tables stay the size of what is live. */
export async function deleteExpired(db: Registry, now: number): Promise<void> {
  await db.deleteFrom('single_use_codes').where('expires_at', '<=', now).execute();
  await db.deleteFrom('browser_sessions').where('expires_at', '<=', now).execute();
}
