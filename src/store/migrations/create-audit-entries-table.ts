import type { Kysely } from 'kysely';

/**
 * TEAM-3: the audit log's table, the same in a workspace's database and in the registry (see
 * AuditEntryTable). Shared by two shipped migrations, so it never changes: a later change is a new
 * migration. Newest-first reads page by (created_at, id); the filters by person and by kind each
 * have an index that keeps that order.
 */
export async function createAuditEntriesTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('actor_kind', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text', (column) => column.notNull())
    .addColumn('workspace_id', 'text')
    .addColumn('space_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('subject_type', 'text')
    .addColumn('subject_id', 'text')
    .addColumn('summary', 'text', (column) => column.notNull())
    .addColumn('details', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('audit_entries_by_time').on('audit_entries').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('audit_entries_by_actor').on('audit_entries').columns(['actor_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_entries_by_kind').on('audit_entries').columns(['kind', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_entries_by_workspace').on('audit_entries').columns(['workspace_id', 'created_at', 'id']).execute();
}
