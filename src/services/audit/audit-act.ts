import type { Kysely, Transaction } from 'kysely';
import { newId, nowIso } from '../../ids.js';
import type { AuditActor, AuditEntry } from '../../schemas/audit.js';
import { insertAuditEntry } from '../../store/repositories/audit-entry-repository.js';
import type { RegistrySchema } from '../../store/registry-schema.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/** What a service knows about an act it is about to write: the entry without its id and time. */
export interface AuditAct {
  kind: string;
  actor: AuditActor;
  workspaceId: string | null;
  spaceId?: string | null;
  conversationId?: string | null;
  subject?: { type: string; id: string } | null;
  summary: string;
  details?: Record<string, unknown>;
}

/** The entry for an act, stamped now; written by the caller inside the act's own transaction. */
export function auditEntryOf(act: AuditAct): AuditEntry {
  return {
    id: newId('aud'),
    kind: act.kind,
    actor: act.actor,
    workspaceId: act.workspaceId,
    spaceId: act.spaceId ?? null,
    conversationId: act.conversationId ?? null,
    subject: act.subject ?? null,
    summary: act.summary,
    details: act.details ?? {},
    createdAt: nowIso(),
  };
}

/** Acts the server does on its own (a timer, a recovery): nobody to name. */
export const SYSTEM_ACTOR: AuditActor = { kind: 'system', id: null, name: 'system' };

/**
 * Runs an act and its audit entry in one transaction (TEAM-3): the entry is written first, so an act
 * that fails afterwards takes its entry with it when it rolls back, and an entry that cannot be written
 * stops the act. Works on a workspace's database and on the registry alike.
 */
export async function withAuditEntry<Schema extends WorkspaceSchema | RegistrySchema, T>(db: Kysely<Schema>, act: AuditAct, work: (trx: Transaction<Schema>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await insertAuditEntry(trx as unknown as Kysely<WorkspaceSchema>, auditEntryOf(act));
    return work(trx);
  });
}
