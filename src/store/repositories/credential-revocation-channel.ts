import { sql, type Kysely } from 'kysely';
import type { RegistrySchema } from '../registry-schema.js';

/** The PostgreSQL channel revocations travel on to every process of a deployment (TEAM-2). */
export const REVOCATIONS_CHANNEL = 'cc_revocations';

/** Tells every listening process that a person's access (or one credential of theirs) was revoked: ids only, no secret. */
export async function notifyRevocation(db: Kysely<RegistrySchema>, revocation: { personId: string; credential?: string | null }): Promise<void> {
  const payload = JSON.stringify({ personId: revocation.personId, ...(revocation.credential ? { credential: revocation.credential } : {}) });
  await sql`select pg_notify(${REVOCATIONS_CHANNEL}, ${payload})`.execute(db);
}
