import { randomUUID } from 'node:crypto';
import type { CompiledQuery, Kysely } from 'kysely';
import type { RegistrySchema } from '../registry-schema.js';

type Registry = Kysely<RegistrySchema>;

/** The token's hash as it is compiled the first time: unguessable, so no real hash or constant equals it. */
const STAND_IN = `cc-token-hash-${randomUUID()}`;

function tokenHolderQuery(db: Registry, tokenHash: string) {
  return db
    .selectFrom('person_tokens')
    .innerJoin('people', 'people.id', 'person_tokens.person_id')
    .select(['person_tokens.id as tokenId', 'person_tokens.person_id as personId', 'person_tokens.read_only as readOnly', 'people.is_owner as owner'])
    .where('person_tokens.token_hash', '=', tokenHash)
    .where('person_tokens.revoked_at', 'is', null)
    .where('people.removed_at', 'is', null);
}

type Row = { tokenId: string; personId: string; readOnly: number | string; owner: number | string };

/** Kept per registry handle (SQLite or PostgreSQL compile their own SQL). */
const kept = new WeakMap<Registry, CompiledQuery<Row>>();

/** Integer flags come back as bigint strings on PostgreSQL. */
const flag = (value: number | string) => Number(value) === 1;

/**
 * `tokenHolder` (people-repository) as every authenticated request reads it — the live token with
 * this hash, with its person — compiled once per registry: building and compiling the query was
 * about a third of the authentication's CPU on every request (NF-SCALE, bursts). Only the hash
 * changes between requests; nothing is cached but the SQL, so a revoked token or a removed person
 * is refused at the next request, in every process.
 */
export async function findTokenHolder(db: Registry, tokenHash: string): Promise<{ personId: string; tokenId: string; readOnly: boolean; owner: boolean } | undefined> {
  let compiled = kept.get(db);
  if (!compiled) {
    compiled = tokenHolderQuery(db, STAND_IN).compile();
    if (compiled.parameters.filter((value) => value === STAND_IN).length !== 1) throw new Error('findTokenHolder: the token hash must reach the query as one parameter');
    kept.set(db, compiled);
  }
  const parameters = compiled.parameters.map((value) => (value === STAND_IN ? tokenHash : value));
  const [row] = (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  return row ? { personId: row.personId, tokenId: row.tokenId, readOnly: flag(row.readOnly), owner: flag(row.owner) } : undefined;
}
