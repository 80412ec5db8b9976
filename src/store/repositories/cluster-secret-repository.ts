import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RegistrySchema } from '../registry-schema.js';

/**
 * The deployment's secret named `name`, created on first use. Processes starting together each
 * offer a fresh one; the first insert wins and every process reads back that same row.
 */
export async function clusterSecret(db: Kysely<RegistrySchema>, name: string): Promise<Buffer> {
  await db
    .insertInto('cluster_secrets')
    .values({ name, value: randomBytes(32).toString('hex'), created_at: Date.now() })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('cluster_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'hex');
}
