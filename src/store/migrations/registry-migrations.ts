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
  /**
   * TEAM-1: people are principals with accounts. The operators of 0001 become people (the owner), and
   * their token hash becomes the owner's first personal token, so the operator-token file keeps
   * working. Roles are per workspace; invitations are one-time links kept by their hash.
   */
  '0002_people_roles_tokens_invitations': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('people')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('email', 'text')
        .addColumn('avatar_url', 'text')
        .addColumn('is_owner', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('removed_at', 'text')
        .execute();
      // Unique among everyone ever added (a removed person's email is not silently reused for a new account).
      await sql`create unique index people_email_unique on people (lower(email))`.execute(db);
      await db.schema
        .createTable('person_tokens')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('token_hash', 'text', (column) => column.notNull().unique())
        .addColumn('read_only', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('person_tokens_person').on('person_tokens').column('person_id').execute();
      await db.schema
        .createTable('workspace_members')
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('role', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'person_id'])
        .execute();
      await db.schema.createIndex('workspace_members_person').on('workspace_members').column('person_id').execute();
      await db.schema
        .createTable('invitations')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('code_hash', 'text', (column) => column.notNull().unique())
        .addColumn('workspace_id', 'text', (column) => column.notNull())
        .addColumn('role', 'text', (column) => column.notNull())
        .addColumn('email', 'text')
        .addColumn('invited_by', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('expires_at', 'text', (column) => column.notNull())
        .addColumn('used_at', 'text')
        .addColumn('used_by', 'text')
        .execute();
      await sql`insert into people (id, name, email, avatar_url, is_owner, created_at, removed_at)
        select id, name, null, null, 1, created_at, null from operators`.execute(db);
      await sql`insert into person_tokens (id, person_id, name, token_hash, read_only, created_at, revoked_at)
        select 'ptk_' || id, id, 'operator token', token_hash, 0, created_at, null from operators`.execute(db);
    },
  },
};
