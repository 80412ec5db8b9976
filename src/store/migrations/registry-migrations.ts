import { sql, type Kysely, type Migration } from 'kysely';

/** Registry migrations. Never edit a shipped one: add the next number. */
export const registryMigrations: Record<string, Migration> = {
  '0001_workspaces_and_operators': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspaces')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('data_dir', 'text', (column) => column.notNull())
        .addColumn('seeded_at', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await sql`create unique index workspaces_name_unique on workspaces (lower(name))`.execute(db);
      await db.schema
        .createTable('operators')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('token_hash', 'text', (column) => column.notNull().unique())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
};
