import { sql, type Kysely, type Migration } from 'kysely';
import { createAuditEntriesTable } from './create-audit-entries-table.js';

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
  /**
   * NTF-1: where each person hears about what waits for them. A channel (webhook, email, web push) is
   * one person's, with the event kinds it receives; its secret is write-only. Each delivery of one
   * event to one channel is a row (unique per channel and event, so a repeated event is sent once),
   * each attempt a row of its own (the delivery log). The server's SMTP account, VAPID keys and public
   * URL are one row the owner sets.
   */
  '0003_notifications': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_settings')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('public_url', 'text')
        .addColumn('allow_private_targets', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('smtp_host', 'text')
        .addColumn('smtp_port', 'integer')
        .addColumn('smtp_secure', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('smtp_user', 'text')
        .addColumn('smtp_password', 'text')
        .addColumn('smtp_from', 'text')
        .addColumn('vapid_public_key', 'text')
        .addColumn('vapid_private_key', 'text')
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('notification_channels')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('target', 'text', (column) => column.notNull())
        .addColumn('secret', 'text')
        .addColumn('events', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('notification_channels_person').on('notification_channels').column('person_id').execute();
      await db.schema
        .createTable('notification_deliveries')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('channel_id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('workspace_id', 'text')
        .addColumn('event_key', 'text', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('link', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .addUniqueConstraint('notification_deliveries_once', ['channel_id', 'event_key'])
        .execute();
      await db.schema.createIndex('notification_deliveries_person').on('notification_deliveries').columns(['person_id', 'created_at']).execute();
      await db.schema
        .createTable('notification_attempts')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('delivery_id', 'text', (column) => column.notNull())
        .addColumn('attempt', 'integer', (column) => column.notNull())
        .addColumn('ok', 'integer', (column) => column.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('error', 'text')
        .addColumn('at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('notification_attempts_delivery').on('notification_attempts').column('delivery_id').execute();
    },
  },
  /**
   * TEAM-1: OpenID Connect sign-in. The owner's provider settings (one row; the client secret is
   * write-only), provider accounts linked to people by issuer + subject (never by a claim the provider
   * lets users edit), and sign-ins under way, kept here so the provider's redirect may reach any API process.
   */
  '0004_oidc_sign_in': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('oidc_settings')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('enabled', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('provider_name', 'text', (column) => column.notNull())
        .addColumn('issuer_url', 'text')
        .addColumn('client_id', 'text')
        .addColumn('client_secret', 'text')
        .addColumn('scopes', 'text', (column) => column.notNull())
        .addColumn('groups_claim', 'text', (column) => column.notNull())
        .addColumn('role_mappings', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('oidc_identities')
        .addColumn('issuer', 'text', (column) => column.notNull())
        .addColumn('subject', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('last_sign_in_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('oidc_identities_pk', ['issuer', 'subject'])
        .execute();
      await db.schema.createIndex('oidc_identities_person').on('oidc_identities').column('person_id').execute();
      await db.schema
        .createTable('oidc_pending_sign_ins')
        .addColumn('state_hash', 'text', (column) => column.primaryKey())
        .addColumn('browser_hash', 'text', (column) => column.notNull())
        .addColumn('code_verifier', 'text', (column) => column.notNull())
        .addColumn('nonce', 'text', (column) => column.notNull())
        .addColumn('return_to', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('expires_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('oidc_pending_sign_ins_expiry').on('oidc_pending_sign_ins').column('expires_at').execute();
    },
  },
  /** TEAM-3: the audit log of acts on people (roles, invitations, tokens, sessions), written in each act's transaction. */
  '0005_audit_entries': {
    async up(db: Kysely<unknown>) {
      await createAuditEntriesTable(db);
    },
  },
  /**
   * TEAM-1/TEAM-2: browser sessions and single-use codes (sign-in codes, event-stream tickets) move
   * from one process's memory into the registry, so every API process knows them and a restart keeps
   * people signed in. Sessions that lived in memory before this are simply gone (people sign in again).
   */
  '0006_browser_sessions': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('browser_sessions')
        .addColumn('secret_hash', 'text', (column) => column.primaryKey())
        .addColumn('id', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('read_only', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('created_at', 'integer', (column) => column.notNull())
        .addColumn('expires_at', 'integer', (column) => column.notNull())
        .addColumn('last_seen_at', 'integer', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('browser_sessions_person').on('browser_sessions').columns(['person_id', 'id']).execute();
      await db.schema.createIndex('browser_sessions_expiry').on('browser_sessions').column('expires_at').execute();
      await db.schema
        .createTable('single_use_codes')
        .addColumn('code_hash', 'text', (column) => column.primaryKey())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('person_id', 'text', (column) => column.notNull())
        .addColumn('read_only', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('credential', 'text')
        .addColumn('created_at', 'integer', (column) => column.notNull())
        .addColumn('expires_at', 'integer', (column) => column.notNull())
        .addColumn('used_at', 'integer')
        .execute();
      await db.schema.createIndex('single_use_codes_person').on('single_use_codes').column('person_id').execute();
      await db.schema.createIndex('single_use_codes_expiry').on('single_use_codes').column('expires_at').execute();
    },
  },
  /**
   * Scale-out: the secret the processes of a deployment seal live events with when a notification
   * carries them (docs/scale-out.md). Created by the first process that needs it.
   */
  '0008_cluster_secrets': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('cluster_secrets')
        .addColumn('name', 'text', (column) => column.primaryKey())
        .addColumn('value', 'text', (column) => column.notNull())
        .addColumn('created_at', 'integer', (column) => column.notNull())
        .execute();
    },
  },
};
