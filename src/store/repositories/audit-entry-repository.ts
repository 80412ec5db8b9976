import type { Kysely } from 'kysely';
import type { AuditEntry } from '../../schemas/audit.js';
import type { AuditEntryTable } from '../audit-entry-table.js';
import type { RegistrySchema } from '../registry-schema.js';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** The one table both databases share: a workspace's and the registry's Kysely narrowed to it. */
type AuditDatabase = Kysely<{ audit_entries: AuditEntryTable }>;

function auditTable(db: unknown): AuditDatabase {
  return db as AuditDatabase;
}

export function toAuditEntry(row: AuditEntryTable): AuditEntry {
  return {
    id: row.id,
    kind: row.kind,
    actor: { kind: row.actor_kind as AuditEntry['actor']['kind'], id: row.actor_id, name: row.actor_name },
    workspaceId: row.workspace_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    subject: row.subject_type && row.subject_id ? { type: row.subject_type, id: row.subject_id } : null,
    summary: row.summary,
    details: JSON.parse(row.details) as Record<string, unknown>,
    createdAt: row.created_at,
  };
}

/** Appends one entry; pass the act's transaction so the entry and the act commit or roll back together. */
export async function insertAuditEntry(db: Kysely<WorkspaceSchema> | Kysely<RegistrySchema>, entry: AuditEntry): Promise<void> {
  await auditTable(db)
    .insertInto('audit_entries')
    .values({
      id: entry.id,
      kind: entry.kind,
      actor_kind: entry.actor.kind,
      actor_id: entry.actor.id,
      actor_name: entry.actor.name,
      workspace_id: entry.workspaceId,
      space_id: entry.spaceId,
      conversation_id: entry.conversationId,
      subject_type: entry.subject?.type ?? null,
      subject_id: entry.subject?.id ?? null,
      summary: entry.summary,
      details: JSON.stringify(entry.details),
      created_at: entry.createdAt,
    })
    .execute();
}

/** What one read of the log asks: the filters, the position after which to continue, and how many. */
export interface AuditSelection {
  personId?: string;
  /** An exact kind (`policy.rule_added`) or a family (`policy`: every `policy.…`). */
  kind?: string;
  spaceId?: string;
  from?: string;
  to?: string;
  /** Continue strictly after (older than) this entry. */
  before?: { createdAt: string; id: string };
  /** Registry only: the workspace's own entries, and those of its people that name no workspace. */
  workspace?: { id: string; memberIds: readonly string[] };
  limit: number;
}

/** Entries newest first, by (created_at, id), matching every filter given. */
export async function selectAuditEntries(db: Kysely<WorkspaceSchema> | Kysely<RegistrySchema>, selection: AuditSelection): Promise<AuditEntry[]> {
  let query = auditTable(db).selectFrom('audit_entries').selectAll();
  if (selection.personId !== undefined) query = query.where('actor_id', '=', selection.personId);
  if (selection.kind !== undefined) {
    const kind = selection.kind;
    query = kind.includes('.') && !kind.endsWith('.') ? query.where('kind', '=', kind) : query.where('kind', 'like', `${kind.replace(/\.$/, '')}.%`);
  }
  if (selection.spaceId !== undefined) query = query.where('space_id', '=', selection.spaceId);
  // Times compare as ISO strings; the filter values are normalized to the store's UTC form first.
  if (selection.from !== undefined) query = query.where('created_at', '>=', selection.from);
  if (selection.to !== undefined) query = query.where('created_at', '<', selection.to);
  const before = selection.before;
  if (before) query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]));
  const workspace = selection.workspace;
  if (workspace) {
    query = query.where((eb) =>
      eb.or([
        eb('workspace_id', '=', workspace.id),
        ...(workspace.memberIds.length > 0 ? [eb.and([eb('workspace_id', 'is', null), eb('actor_id', 'in', [...workspace.memberIds])])] : []),
      ]),
    );
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(selection.limit).execute();
  return rows.map(toAuditEntry);
}
