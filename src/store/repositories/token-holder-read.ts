import type { Kysely } from 'kysely';
import { reusableQuery } from '../reusable-query.js';
import type { RegistrySchema } from '../registry-schema.js';

type Registry = Kysely<RegistrySchema>;

/**
 * The live token with this hash, with its person, compiled once per registry handle (SQLite or
 * PostgreSQL compile their own SQL): building and compiling the query was about a third of the
 * authentication's CPU on every request (NF-SCALE, bursts). Only the hash changes between requests.
 */
const tokenHolderRows = reusableQuery((db: Registry, tokenHash: string) =>
  db
    .selectFrom('person_tokens')
    .innerJoin('people', 'people.id', 'person_tokens.person_id')
    .select(['person_tokens.id as tokenId', 'person_tokens.person_id as personId', 'person_tokens.read_only as readOnly', 'people.is_owner as owner'])
    .where('person_tokens.token_hash', '=', tokenHash)
    .where('person_tokens.revoked_at', 'is', null)
    .where('people.removed_at', 'is', null),
);

/** Integer flags come back as bigint strings on PostgreSQL. */
const flag = (value: number | string) => Number(value) === 1;

/**
 * `tokenHolder` (people-repository) as every authenticated request reads it. Nothing is cached but
 * the SQL, so a revoked token or a removed person is refused at the next request, in every process.
 */
export async function findTokenHolder(db: Registry, tokenHash: string): Promise<{ personId: string; tokenId: string; readOnly: boolean; owner: boolean } | undefined> {
  const [row] = await tokenHolderRows(db, tokenHash);
  return row ? { personId: row.personId, tokenId: row.tokenId, readOnly: flag(row.readOnly), owner: flag(row.owner) } : undefined;
}
