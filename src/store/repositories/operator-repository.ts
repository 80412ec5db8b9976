import type { Kysely } from 'kysely';
import type { RegistrySchema } from '../registry-schema.js';

/** An operator as the registry keeps it: only the sha256 of the bearer token, never the token. */
export interface OperatorRecord {
  id: string;
  name: string;
  tokenHash: string;
  createdAt: string;
}

/** Every operator's id and token hash (what authentication needs). */
export async function operatorTokenHashes(db: Kysely<RegistrySchema>): Promise<Array<{ id: string; tokenHash: string }>> {
  const rows = await db.selectFrom('operators').select(['id', 'token_hash']).execute();
  return rows.map((row) => ({ id: row.id, tokenHash: row.token_hash }));
}

export async function insertOperator(db: Kysely<RegistrySchema>, operator: OperatorRecord): Promise<void> {
  await db.insertInto('operators').values({ id: operator.id, name: operator.name, token_hash: operator.tokenHash, created_at: operator.createdAt }).execute();
}
