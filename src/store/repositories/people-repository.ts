import { sql, type Kysely, type Selectable } from 'kysely';
import type { Person, WorkspaceRole } from '../../schemas/people.js';
import type { InvitationTable, PersonTable, RegistrySchema } from '../registry-schema.js';

type Registry = Kysely<RegistrySchema>;

/** Integer flags come back as bigint strings on PostgreSQL. */
const flag = (value: number | string) => Number(value) === 1;

export function toPerson(row: Selectable<PersonTable>, role?: string | null): Person {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    avatarUrl: row.avatar_url,
    owner: flag(row.is_owner),
    ...(role !== undefined ? { role: (role as WorkspaceRole | null) ?? null } : {}),
    createdAt: row.created_at,
  };
}

/** A person who has not been removed, or undefined. */
export async function activePerson(db: Registry, personId: string): Promise<Selectable<PersonTable> | undefined> {
  return db.selectFrom('people').selectAll().where('id', '=', personId).where('removed_at', 'is', null).executeTakeFirst();
}

export async function ownerRow(db: Registry): Promise<Selectable<PersonTable> | undefined> {
  return db.selectFrom('people').selectAll().where('is_owner', '=', 1).where('removed_at', 'is', null).orderBy('created_at').executeTakeFirst();
}

export async function insertPerson(db: Registry, person: { id: string; name: string; email: string | null; owner: boolean; createdAt: string }): Promise<void> {
  await db
    .insertInto('people')
    .values({ id: person.id, name: person.name, email: person.email, avatar_url: null, is_owner: person.owner ? 1 : 0, created_at: person.createdAt, removed_at: null })
    .execute();
}

/** The live token with this hash, with its person (removed people and revoked tokens match nothing). */
export async function tokenHolder(db: Registry, tokenHash: string): Promise<{ personId: string; tokenId: string; readOnly: boolean; owner: boolean } | undefined> {
  const row = await db
    .selectFrom('person_tokens')
    .innerJoin('people', 'people.id', 'person_tokens.person_id')
    .select(['person_tokens.id as tokenId', 'person_tokens.person_id as personId', 'person_tokens.read_only as readOnly', 'people.is_owner as owner'])
    .where('person_tokens.token_hash', '=', tokenHash)
    .where('person_tokens.revoked_at', 'is', null)
    .where('people.removed_at', 'is', null)
    .executeTakeFirst();
  return row ? { personId: row.personId, tokenId: row.tokenId, readOnly: flag(row.readOnly), owner: flag(row.owner) } : undefined;
}

export async function insertToken(db: Registry, token: { id: string; personId: string; name: string; tokenHash: string; readOnly: boolean; createdAt: string }): Promise<void> {
  await db
    .insertInto('person_tokens')
    .values({ id: token.id, person_id: token.personId, name: token.name, token_hash: token.tokenHash, read_only: token.readOnly ? 1 : 0, created_at: token.createdAt, revoked_at: null })
    .execute();
}

export async function liveTokens(db: Registry, personId: string) {
  const rows = await db.selectFrom('person_tokens').select(['id', 'name', 'read_only', 'created_at']).where('person_id', '=', personId).where('revoked_at', 'is', null).orderBy('created_at').execute();
  return rows.map((row) => ({ id: row.id, name: row.name, readOnly: flag(row.read_only), createdAt: row.created_at }));
}

/** Revokes one token of a person (or all of them); returns how many were live. */
export async function revokeTokens(db: Registry, personId: string, at: string, tokenId?: string): Promise<number> {
  let query = db.updateTable('person_tokens').set({ revoked_at: at }).where('person_id', '=', personId).where('revoked_at', 'is', null);
  if (tokenId) query = query.where('id', '=', tokenId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function roleIn(db: Registry, workspaceId: string, personId: string): Promise<WorkspaceRole | null> {
  const row = await db.selectFrom('workspace_members').select('role').where('workspace_id', '=', workspaceId).where('person_id', '=', personId).executeTakeFirst();
  return (row?.role as WorkspaceRole | undefined) ?? null;
}

export async function rolesOf(db: Registry, personId: string): Promise<Array<{ workspaceId: string; role: WorkspaceRole }>> {
  const rows = await db.selectFrom('workspace_members').select(['workspace_id', 'role']).where('person_id', '=', personId).orderBy('workspace_id').execute();
  return rows.map((row) => ({ workspaceId: row.workspace_id, role: row.role as WorkspaceRole }));
}

export async function upsertRole(db: Registry, workspaceId: string, personId: string, role: WorkspaceRole, at: string): Promise<void> {
  await db
    .insertInto('workspace_members')
    .values({ workspace_id: workspaceId, person_id: personId, role, created_at: at, updated_at: at })
    .onConflict((conflict) => conflict.columns(['workspace_id', 'person_id']).doUpdateSet({ role, updated_at: at }))
    .execute();
}

export async function deleteRoles(db: Registry, personId: string, workspaceId?: string): Promise<number> {
  let query = db.deleteFrom('workspace_members').where('person_id', '=', personId);
  if (workspaceId) query = query.where('workspace_id', '=', workspaceId);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

/** Everyone active: with their role in `workspaceId` (people without one are left out), or everyone. */
export async function listPeople(db: Registry, workspaceId?: string): Promise<Person[]> {
  if (!workspaceId) {
    const rows = await db.selectFrom('people').selectAll().where('removed_at', 'is', null).orderBy('created_at').execute();
    return rows.map((row) => toPerson(row));
  }
  const rows = await db
    .selectFrom('people')
    .leftJoin('workspace_members', (join) => join.onRef('workspace_members.person_id', '=', 'people.id').on('workspace_members.workspace_id', '=', workspaceId))
    .selectAll('people')
    .select('workspace_members.role')
    .where('people.removed_at', 'is', null)
    .orderBy('people.created_at')
    .execute();
  return rows.filter((row) => row.role !== null || flag(row.is_owner)).map((row) => toPerson(row, row.role));
}

export async function updatePerson(db: Registry, personId: string, changes: { name?: string; email?: string | null; avatarUrl?: string | null }): Promise<void> {
  const set: { name?: string; email?: string | null; avatar_url?: string | null } = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.email !== undefined) set.email = changes.email;
  if (changes.avatarUrl !== undefined) set.avatar_url = changes.avatarUrl;
  if (Object.keys(set).length > 0) await db.updateTable('people').set(set).where('id', '=', personId).execute();
}

export async function markRemoved(db: Registry, personId: string, at: string): Promise<void> {
  await db.updateTable('people').set({ removed_at: at }).where('id', '=', personId).execute();
}

/** Whether anyone (but `exceptPersonId`) has this email, compared without case as the unique index does. */
export async function emailTaken(db: Registry, email: string, exceptPersonId?: string): Promise<boolean> {
  let query = db.selectFrom('people').select('id').where(sql<string>`lower(email)`, '=', email.toLowerCase());
  if (exceptPersonId) query = query.where('id', '!=', exceptPersonId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertInvitation(db: Registry, invitation: Selectable<InvitationTable>): Promise<void> {
  await db.insertInto('invitations').values(invitation).execute();
}

export async function invitationByHash(db: Registry, codeHash: string): Promise<Selectable<InvitationTable> | undefined> {
  return db.selectFrom('invitations').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Marks an unused invitation used; false when another request used it first (the link works once). */
export async function claimInvitation(db: Registry, invitationId: string, personId: string, at: string): Promise<boolean> {
  const result = await db.updateTable('invitations').set({ used_at: at, used_by: personId }).where('id', '=', invitationId).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function invitationsOf(db: Registry, workspaceId: string): Promise<Array<Selectable<InvitationTable>>> {
  return db.selectFrom('invitations').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at', 'desc').execute();
}
