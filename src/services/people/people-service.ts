import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { Invitation, Me, Person, PersonToken, WorkspaceRole } from '../../schemas/people.js';
import type { AuditActor } from '../../schemas/audit.js';
import { insertAuditEntry } from '../../store/repositories/audit-entry-repository.js';
import type { RegistryStore } from '../../store/registry-store.js';
import {
  activePerson,
  claimInvitation,
  deleteRoles,
  emailTaken,
  insertInvitation,
  insertPerson,
  insertToken,
  invitationByHash,
  invitationsOf,
  listPeople,
  liveTokens,
  markRemoved,
  revokeTokens,
  roleIn,
  rolesOf,
  toPerson,
  updatePerson,
  upsertRole,
} from '../../store/repositories/people-repository.js';
import { auditEntryOf, withAuditEntry } from '../audit/audit-act.js';
import type { OperatorSessions } from '../operator-sessions.js';
import { sessionCredential, tokenCredential, type CredentialRevocations } from './credential-revocations.js';
import { rankOf } from './role-rank.js';
import { hashSecret, newSecret } from './secret-hash.js';

/** How long an invitation link works: a working day and a half, then the inviter makes a new one. */
export const INVITATION_TTL_MS = 36 * 60 * 60_000;

/** The person acting on a people route: who, whether they are the owner, and whether their credential is read-only. */
export interface Actor {
  personId: string;
  readOnly: boolean;
}

/**
 * TEAM-1/TEAM-2: accounts, roles per workspace, personal tokens and invitations. Every change that
 * narrows someone's access ends their browser sessions and closes their open event streams at once;
 * requests need nothing more, since each is authorized against the registry as it arrives.
 */
export class PeopleService {
  constructor(
    private readonly registry: RegistryStore,
    private readonly sessions: OperatorSessions,
    private readonly revocations: CredentialRevocations,
  ) {}

  private get db() {
    return this.registry.db;
  }

  /**
   * The role a person holds in a workspace: `owner` for the owner everywhere, else their membership,
   * capped at viewer when the credential is read-only; null when they are not in it (or removed).
   */
  async effectiveRole(personId: string, readOnly: boolean, workspaceId: string | null, known?: { owner: boolean }): Promise<WorkspaceRole | 'owner' | 'signedIn' | null> {
    // `known`: the request's credential read already found the person active (same request, so no
    // later state is missed) — NF-SCALE, one registry statement less per authenticated request.
    let owner: boolean;
    if (known) owner = known.owner;
    else {
      const person = await activePerson(this.db, personId);
      if (!person) return null;
      owner = Number(person.is_owner) === 1;
    }
    let role: WorkspaceRole | 'owner' | 'signedIn' | null;
    if (owner) role = 'owner';
    else if (workspaceId === null) role = 'signedIn';
    else role = await roleIn(this.db, workspaceId, personId);
    if (role && readOnly && rankOf(role) > rankOf('viewer')) return workspaceId === null ? 'signedIn' : 'viewer';
    return role;
  }

  /** Whether a person (not removed) holds a role in a workspace; the owner holds one in every workspace. */
  async isIn(workspaceId: string, personId: string): Promise<boolean> {
    return (await this.effectiveRole(personId, false, workspaceId)) !== null;
  }

  /** The workspaces among `all` that a person holds a role in (the owner holds one in every workspace). */
  async visibleWorkspaces<T extends { id: string }>(principal: { operatorId: string }, all: T[]): Promise<T[]> {
    const person = await activePerson(this.db, principal.operatorId);
    if (!person) return [];
    if (Number(person.is_owner) === 1) return all;
    const held = new Set((await rolesOf(this.db, principal.operatorId)).map((role) => role.workspaceId));
    return all.filter((workspace) => held.has(workspace.id));
  }

  async me(actor: Actor): Promise<Me> {
    const person = await this.activeOrThrow(actor.personId);
    return { ...toPerson(person), readOnly: actor.readOnly, roles: await rolesOf(this.db, actor.personId) };
  }

  async updateMe(actor: Actor, changes: { name?: string; email?: string | null; avatarUrl?: string | null }): Promise<Me> {
    if (changes.email && (await emailTaken(this.db, changes.email, actor.personId))) throw new ConflictError('email', `${changes.email} is already someone's email`);
    await updatePerson(this.db, actor.personId, changes);
    return this.me(actor);
  }

  /** Everyone (the owner's view), or the people of one workspace with their roles. */
  async list(workspaceId?: string): Promise<Person[]> {
    return listPeople(this.db, workspaceId);
  }

  async person(personId: string): Promise<Person> {
    return toPerson(await this.activeOrThrow(personId));
  }

  /** Names of people by id, for attribution ("Approved by Dana"); unknown ids are left out. */
  async namesOf(personIds: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(personIds)].filter((id) => id !== '');
    if (unique.length === 0) return new Map();
    const rows = await this.db.selectFrom('people').select(['id', 'name']).where('id', 'in', unique).execute();
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /**
   * TEAM-2: the owner sets a person's role in a workspace. Nobody changes their own role (the owner
   * has none to change). A changed role ends the person's browser sessions and open streams.
   */
  async setRole(actor: Actor, workspaceId: string, personId: string, role: WorkspaceRole): Promise<Person> {
    if (personId === actor.personId) throw new ForbiddenError('nobody can change their own role', 'personId');
    const person = await this.activeOrThrow(personId);
    if (Number(person.is_owner) === 1) throw new ForbiddenError('the owner holds every role; there is none to set', 'personId');
    const before = await roleIn(this.db, workspaceId, personId);
    const act = { kind: 'person.role_changed', actor: await this.auditActor(actor), workspaceId, subject: { type: 'person', id: personId }, summary: `Set ${person.name}'s role to ${role}${before ? ` (was ${before})` : ''}`, details: { role, previousRole: before } };
    await withAuditEntry(this.db, act, (trx) => upsertRole(trx, workspaceId, personId, role, nowIso()));
    if (before !== role) await this.endAccess(personId);
    return toPerson(person, role);
  }

  /** Takes a person out of one workspace; their sessions end, their tokens no longer reach it. */
  async removeFromWorkspace(actor: Actor, workspaceId: string, personId: string): Promise<void> {
    if (personId === actor.personId) throw new ForbiddenError('nobody can change their own role', 'personId');
    const person = await this.activeOrThrow(personId);
    const act = { kind: 'person.removed_from_workspace', actor: await this.auditActor(actor), workspaceId, subject: { type: 'person', id: personId }, summary: `Took ${person.name} out of the workspace` };
    await withAuditEntry(this.db, act, async (trx) => {
      if ((await deleteRoles(trx, personId, workspaceId)) === 0) throw new NotFoundError('person in this workspace', personId, 'personId');
    });
    await this.endAccess(personId);
  }

  /** The owner removes a person: every token revoked, every session and stream ended, every role gone. */
  async remove(actor: Actor, personId: string): Promise<void> {
    if (personId === actor.personId) throw new ForbiddenError('the owner cannot remove themselves', 'personId');
    const person = await this.activeOrThrow(personId);
    if (Number(person.is_owner) === 1) throw new ForbiddenError('the owner cannot be removed', 'personId');
    const at = nowIso();
    // Names no workspace: the owner's act shows in every workspace's log (the owner is in each).
    const act = { kind: 'person.removed', actor: await this.auditActor(actor), workspaceId: null, subject: { type: 'person', id: personId }, summary: `Removed ${person.name} (every role, token and session)` };
    await withAuditEntry(this.db, act, async (trx) => {
      await markRemoved(trx, personId, at);
      await revokeTokens(trx, personId, at);
      await deleteRoles(trx, personId);
    });
    await this.endAccess(personId);
  }

  async tokens(actor: Actor): Promise<PersonToken[]> {
    return liveTokens(this.db, actor.personId);
  }

  /** A new personal API token, shown once; a read-only credential can only make read-only tokens. */
  async createToken(actor: Actor, name: string, readOnly: boolean): Promise<PersonToken & { token: string }> {
    await this.activeOrThrow(actor.personId);
    const token = newSecret('cc_', 24);
    const record = { id: newId('ptk'), personId: actor.personId, name, tokenHash: hashSecret(token), readOnly: readOnly || actor.readOnly, createdAt: nowIso() };
    const act = { kind: 'token.created', actor: await this.auditActor(actor), workspaceId: null, subject: { type: 'token', id: record.id }, summary: `Made a ${record.readOnly ? 'read-only ' : ''}personal token "${name}"`, details: { readOnly: record.readOnly } };
    await withAuditEntry(this.db, act, (trx) => insertToken(trx, record));
    return { id: record.id, name, readOnly: record.readOnly, createdAt: record.createdAt, token };
  }

  async revokeToken(actor: Actor, tokenId: string): Promise<void> {
    const act = { kind: 'token.revoked', actor: await this.auditActor(actor), workspaceId: null, subject: { type: 'token', id: tokenId }, summary: 'Revoked a personal token' };
    await withAuditEntry(this.db, act, async (trx) => {
      if ((await revokeTokens(trx, actor.personId, nowIso(), tokenId)) === 0) throw new NotFoundError('token', tokenId, 'tokenId');
    });
    // Requests with the token are refused from now on everywhere; the streams it opened close too.
    await this.revocations.announce({ personId: actor.personId, credential: tokenCredential(tokenId) });
  }

  /**
   * Ends one of a person's own browser sessions, on every process: its next request is refused and
   * the event streams it opened close. The audit entry is written once the session has ended.
   */
  async endSession(actor: Actor, sessionId: string): Promise<boolean> {
    if (!(await this.sessions.endSessionById(actor.personId, sessionId))) return false;
    await this.revocations.announce({ personId: actor.personId, credential: sessionCredential(sessionId) });
    await insertAuditEntry(this.db, auditEntryOf({ kind: 'session.revoked', actor: await this.auditActor(actor), workspaceId: null, subject: { type: 'session', id: sessionId }, summary: 'Ended a browser session' }));
    return true;
  }

  /**
   * TEAM-1: an invitation into a workspace with a role, by the owner or an admin of it. An admin
   * cannot hand out more than they hold (they hold admin, so every role); the link works once and
   * expires after {@link INVITATION_TTL_MS}.
   */
  async invite(actor: Actor, workspaceId: string, role: WorkspaceRole, email: string | undefined): Promise<Invitation & { code: string }> {
    if (email && (await emailTaken(this.db, email))) throw new ConflictError('email', `${email} already has an account: set their role instead`);
    const code = newSecret('inv_');
    const now = Date.now();
    const row = {
      id: newId('inv'),
      code_hash: hashSecret(code),
      workspace_id: workspaceId,
      role,
      email: email ?? null,
      invited_by: actor.personId,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + INVITATION_TTL_MS).toISOString(),
      used_at: null,
      used_by: null,
    };
    const act = { kind: 'invitation.created', actor: await this.auditActor(actor), workspaceId, subject: { type: 'invitation', id: row.id }, summary: `Invited ${email ?? 'someone with a link'} as ${role}`, details: { role, email: email ?? null } };
    await withAuditEntry(this.db, act, (trx) => insertInvitation(trx, row));
    return { ...toInvitation(row), code };
  }

  async invitations(workspaceId: string): Promise<Invitation[]> {
    return (await invitationsOf(this.db, workspaceId)).map(toInvitation);
  }

  /** The invitation a code stands for, if it can still be used (for the form that asks the newcomer's name). */
  async pendingInvitation(code: string): Promise<Invitation | null> {
    const row = await invitationByHash(this.db, hashSecret(code));
    if (!row || row.used_at !== null || Date.parse(row.expires_at) <= Date.now()) return null;
    return toInvitation(row);
  }

  /**
   * Redeems an invitation: a new person with the invited role. Unknown, used and expired codes are
   * refused alike; the claim is one conditional update, so two requests racing with one link make
   * one account.
   */
  async accept(code: string, name: string, email: string | undefined): Promise<Person> {
    const row = await invitationByHash(this.db, hashSecret(code));
    const refused = () => new ValidationError('code', 'this invitation link is unknown, already used or expired: ask for a new one');
    if (!row || row.used_at !== null || Date.parse(row.expires_at) <= Date.now()) throw refused();
    const chosenEmail = email ?? row.email ?? null;
    if (chosenEmail && (await emailTaken(this.db, chosenEmail))) throw new ConflictError('email', `${chosenEmail} already has an account`);
    const personId = newId('pe');
    const at = nowIso();
    const claimed = await this.db.transaction().execute(async (trx) => {
      if (!(await claimInvitation(trx, row.id, personId, at))) return false;
      await insertPerson(trx, { id: personId, name, email: chosenEmail, owner: false, createdAt: at });
      await upsertRole(trx, row.workspace_id, personId, row.role as WorkspaceRole, at);
      return true;
    });
    if (!claimed) throw refused();
    return toPerson((await activePerson(this.db, personId))!, row.role);
  }

  /** The acting person as the audit log names them (TEAM-3). */
  private async auditActor(actor: Actor): Promise<AuditActor> {
    const row = await activePerson(this.db, actor.personId);
    return { kind: 'person', id: actor.personId, name: row?.name ?? actor.personId };
  }

  /** Ends every browser session, sign-in code, SSE ticket and open stream of a person. */
  private async endAccess(personId: string): Promise<void> {
    await this.sessions.endEverythingOf(personId);
    await this.revocations.announce({ personId });
  }

  private async activeOrThrow(personId: string) {
    const person = await activePerson(this.db, personId);
    if (!person) throw new NotFoundError('person', personId, 'personId');
    return person;
  }
}

function toInvitation(row: { id: string; workspace_id: string; role: string; email: string | null; invited_by: string; created_at: string; expires_at: string; used_at: string | null }): Invitation {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    role: row.role as WorkspaceRole,
    email: row.email,
    invitedBy: row.invited_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}
