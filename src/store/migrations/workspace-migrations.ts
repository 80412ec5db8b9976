import type { Kysely, Migration } from 'kysely';

/** Per-workspace migrations. Never edit a shipped one: add the next number. */
export const workspaceMigrations: Record<string, Migration> = {
  '0001_agents_and_runs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspace_meta')
        .addColumn('key', 'text', (column) => column.primaryKey())
        .addColumn('value', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('agents')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull().unique())
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('persona', 'text', (column) => column.notNull())
        .addColumn('system_prompt', 'text')
        .addColumn('skills', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('adapter_id', 'text')
        .addColumn('model_id', 'text')
        .addColumn('effort', 'text')
        .addColumn('context_size', 'integer')
        .addColumn('silence_timeout_minutes', 'integer')
        .addColumn('reports_to', 'text', (column) => column.references('agents.id').onDelete('set null'))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('runs')
        .addColumn('id', 'text', (column) => column.primaryKey())
        // No foreign key: run history outlives a deleted agent (no data is ever lost).
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('space_id', 'text')
        .addColumn('conversation_id', 'text')
        .addColumn('parent_run_id', 'text')
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('liveness', 'text', (column) => column.notNull())
        .addColumn('deliverable_failed', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('started_at', 'text')
        .addColumn('ended_at', 'text')
        .execute();
      await db.schema.createIndex('runs_by_agent').on('runs').columns(['agent_id', 'created_at']).execute();
      await db.schema.createIndex('runs_by_state').on('runs').column('state').execute();
    },
  },
};
