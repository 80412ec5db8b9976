import type { Kysely } from 'kysely';
import type { RegistrySchema } from '../registry-schema.js';

/**
 * Whether the credential an event stream was opened through still stands for its person: the
 * session is not ended or expired (`session:<id>`), the token is not revoked (`token:<id>`), and the
 * person is not removed. Used to recheck open streams after revocations may have been missed.
 */
export async function credentialIsLive(db: Kysely<RegistrySchema>, personId: string, credential: string | null, now: number): Promise<boolean> {
  const person = await db.selectFrom('people').select('id').where('id', '=', personId).where('removed_at', 'is', null).executeTakeFirst();
  if (!person) return false;
  if (credential === null) return true;
  const at = credential.indexOf(':');
  const kind = credential.slice(0, at);
  const id = credential.slice(at + 1);
  if (kind === 'session') {
    return (await db.selectFrom('browser_sessions').select('id').where('person_id', '=', personId).where('id', '=', id).where('expires_at', '>', now).executeTakeFirst()) !== undefined;
  }
  if (kind === 'token') {
    return (await db.selectFrom('person_tokens').select('id').where('person_id', '=', personId).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()) !== undefined;
  }
  return false;
}
