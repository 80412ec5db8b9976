import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';
import { createAuditEntriesTable } from './create-audit-entries-table.js';

/** The tables a run's preparation may keep reads of (see 0039_config_version). */
export const CONFIG_TABLES = ['agents', 'workspace_settings', 'spaces', 'space_repositories', 'mcp_servers', 'installed_skills'] as const;

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
  '0002_spaces_conversations_policy_rules': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('spaces')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        // MODE-1: one mode column per space, shared by every conversation in it.
        .addColumn('mode', 'text', (column) => column.notNull().check(sql`mode in ('chat', 'review', 'plan', 'orchestrate')`))
        .addColumn('autonomy', 'text', (column) =>
          column.notNull().check(sql`autonomy in ('proposeOnly', 'askFirst', 'actWithApproval', 'actFreely')`),
        )
        .addColumn('default_agent_id', 'text')
        .addColumn('repo_path', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('conversations')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('space_id', 'text', (column) => column.notNull().references('spaces.id').onDelete('cascade'))
        .addColumn('parent_conversation_id', 'text', (column) => column.references('conversations.id'))
        .addColumn('branched_from_message_id', 'text')
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('goal', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('conversations_by_space').on('conversations').columns(['space_id', 'created_at']).execute();
      await db.schema
        .createTable('policy_rules')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('scope', 'text', (column) => column.notNull().check(sql`scope in ('space', 'agent', 'workspace')`))
        .addColumn('scope_id', 'text', (column) => column.notNull())
        .addColumn('match_kind', 'text', (column) => column.notNull())
        .addColumn('match_value', 'text', (column) => column.notNull())
        .addColumn('decision', 'text', (column) => column.notNull().check(sql`decision in ('allow', 'ask', 'deny')`))
        .addColumn('note', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('policy_rules_by_scope').on('policy_rules').columns(['scope', 'scope_id']).execute();
    },
  },
  '0003_messages_run_logs_approvals_settings': {
    async up(db: Kysely<unknown>) {
      for (const [column, type] of [
        ['mode', 'text'],
        ['autonomy', 'text'],
        ['model', 'text'],
        ['depth', 'integer'],
        ['input_tokens', 'integer'],
        ['output_tokens', 'integer'],
        ['cache_read_tokens', 'integer'],
        ['cache_write_tokens', 'integer'],
        ['cost_usd', 'real'],
        ['sandbox', 'text'],
      ] as const) {
        await db.schema.alterTable('runs').addColumn(column, type).execute();
      }
      await db.schema
        .createTable('messages')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('run_id', 'text')
        .addColumn('role', 'text', (column) => column.notNull())
        .addColumn('author_kind', 'text', (column) => column.notNull())
        .addColumn('author_id', 'text')
        // RLY-1: the mode selected when the message was sent.
        .addColumn('mode', 'text')
        .addColumn('picker', 'text')
        .addColumn('content', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('messages_by_conversation').on('messages').columns(['conversation_id', 'created_at']).execute();
      await db.schema
        .createTable('run_events')
        .addColumn('run_id', 'text', (column) => column.notNull())
        .addColumn('sequence', 'integer', (column) => column.notNull())
        .addColumn('type', 'text', (column) => column.notNull())
        .addColumn('data', 'text', (column) => column.notNull())
        .addColumn('at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('run_events_pk', ['run_id', 'sequence'])
        .execute();
      await db.schema
        .createTable('tool_calls')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('run_id', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('input', 'text', (column) => column.notNull())
        .addColumn('output', 'text')
        .addColumn('is_error', 'integer')
        .addColumn('executed', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('decision', 'text')
        .addColumn('decided_by', 'text')
        .addColumn('classes', 'text')
        .addColumn('started_at', 'text', (column) => column.notNull())
        .addColumn('ended_at', 'text')
        .execute();
      await db.schema.createIndex('tool_calls_by_run').on('tool_calls').columns(['run_id', 'started_at']).execute();
      await db.schema
        .createTable('approvals')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('durable', 'integer', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('agent_id', 'text')
        .addColumn('space_id', 'text')
        .addColumn('conversation_id', 'text')
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('request', 'text', (column) => column.notNull())
        .addColumn('decided_by', 'text')
        .addColumn('reason', 'text')
        .addColumn('remember', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('decided_at', 'text')
        .execute();
      await db.schema.createIndex('approvals_by_status').on('approvals').columns(['status', 'created_at']).execute();
      await db.schema
        .createTable('workspace_settings')
        .addColumn('key', 'text', (column) => column.primaryKey())
        .addColumn('value', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0004_plans_tickets_sessions': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('plans')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('space_id', 'text')
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('version', 'integer', (column) => column.notNull())
        .addColumn('goal', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('submission', 'text', (column) => column.notNull())
        .addColumn('errors', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('blueprint', 'text')
        .addColumn('decided_by', 'text')
        .addColumn('reason', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('decided_at', 'text')
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('plans_by_conversation').on('plans').columns(['conversation_id', 'version']).execute();
      await db.schema
        .createTable('plan_nodes')
        .addColumn('plan_id', 'text', (column) => column.notNull().references('plans.id').onDelete('cascade'))
        .addColumn('key', 'text', (column) => column.notNull())
        .addColumn('ticket_id', 'text', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('assignee_agent_id', 'text')
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('started_at', 'text')
        .addColumn('ended_at', 'text')
        .addPrimaryKeyConstraint('plan_nodes_pk', ['plan_id', 'key'])
        .execute();
      await db.schema
        .createTable('tickets')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('plan_id', 'text')
        .addColumn('node_key', 'text')
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('description', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('depends_on', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('assignee_agent_id', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('transport_sessions')
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('adapter_id', 'text', (column) => column.notNull())
        .addColumn('session_id', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('transport_sessions_pk', ['conversation_id', 'agent_id', 'adapter_id'])
        .execute();
    },
  },
  '0005_checkouts': {
    async up(db: Kysely<unknown>) {
      // SEC-3: the facts of each conversation's checkout, recorded once when the server makes it.
      await db.schema
        .createTable('checkouts')
        .addColumn('conversation_id', 'text', (column) => column.primaryKey())
        .addColumn('repo_path', 'text', (column) => column.notNull())
        .addColumn('source_git_dir', 'text', (column) => column.notNull())
        .addColumn('source_objects_dir', 'text', (column) => column.notNull())
        .addColumn('branch', 'text', (column) => column.notNull())
        .addColumn('base_sha', 'text', (column) => column.notNull())
        .addColumn('remotes_json', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0006_reviews_findings_tickets': {
    async up(db: Kysely<unknown>) {
      // REV-1..5: one review per repository + head ref; re-reviews bump its round in place.
      await db.schema
        .createTable('reviews')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('space_id', 'text', (column) => column.notNull())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('repo_path', 'text', (column) => column.notNull())
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('base_ref', 'text', (column) => column.notNull())
        .addColumn('head_ref', 'text', (column) => column.notNull())
        .addColumn('base_sha', 'text', (column) => column.notNull())
        .addColumn('head_sha', 'text', (column) => column.notNull())
        .addColumn('merge_base_sha', 'text', (column) => column.notNull())
        .addColumn('round', 'integer', (column) => column.notNull().defaultTo(1))
        .addColumn('hunk_map', 'text', (column) => column.notNull())
        .addColumn('diff', 'text', (column) => column.notNull())
        .addColumn('review_md', 'text')
        .addColumn('verdict_json', 'text')
        .addColumn('finalized_by', 'text')
        .addColumn('finalized_at', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('reviews_by_repo_head').unique().on('reviews').columns(['repo_path', 'head_ref']).execute();
      await db.schema.createIndex('reviews_by_space').on('reviews').columns(['space_id']).execute();
      // Priority and confidence are nullable on purpose: the REV-3 read boundary drops such rows and counts them.
      await db.schema
        .createTable('review_findings')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('review_id', 'text', (column) => column.notNull().references('reviews.id').onDelete('cascade'))
        .addColumn('round', 'integer', (column) => column.notNull())
        .addColumn('type', 'text', (column) => column.notNull())
        .addColumn('priority', 'text')
        .addColumn('confidence', 'real')
        .addColumn('body', 'text', (column) => column.notNull())
        .addColumn('anchor_path', 'text')
        .addColumn('anchor_start', 'integer')
        .addColumn('anchor_end', 'integer')
        .addColumn('axis', 'text')
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('carry', 'text', (column) => column.notNull().defaultTo('new'))
        .addColumn('author_kind', 'text', (column) => column.notNull())
        .addColumn('author_id', 'text', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('confirmed_by', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('status_reason', 'text')
        .addColumn('status_by', 'text')
        .addColumn('resolved_round', 'integer')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('review_findings_by_review').on('review_findings').columns(['review_id', 'created_at']).execute();
      await db.schema
        .createTable('review_gates')
        .addColumn('repo_path', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('command', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('review_gates_pk', ['repo_path', 'name'])
        .execute();
      await db.schema
        .createTable('review_gate_results')
        .addColumn('review_id', 'text', (column) => column.notNull().references('reviews.id').onDelete('cascade'))
        .addColumn('head_sha', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('command', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('exit_code', 'integer')
        .addColumn('output', 'text', (column) => column.notNull())
        .addColumn('ran_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('review_gate_results_pk', ['review_id', 'head_sha', 'name'])
        .execute();
      // Tickets as a service: who made them and what they came from.
      await db.schema.alterTable('tickets').addColumn('project_id', 'text').execute();
      await db.schema.alterTable('tickets').addColumn('review_id', 'text').execute();
      await db.schema.alterTable('tickets').addColumn('finding_id', 'text').execute();
      await db.schema.alterTable('tickets').addColumn('created_by_kind', 'text').execute();
      await db.schema.alterTable('tickets').addColumn('created_by_id', 'text').execute();
      await db.schema
        .createTable('ticket_comments')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('ticket_id', 'text', (column) => column.notNull().references('tickets.id').onDelete('cascade'))
        .addColumn('author_kind', 'text', (column) => column.notNull())
        .addColumn('author_id', 'text', (column) => column.notNull())
        .addColumn('body', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0007_orchestrations': {
    async up(db: Kysely<unknown>) {
      // ORC-1..4: proposals (one row per orchestration, every revision kept), the materializer's
      // durable steps, and what it creates: teams with their members, projects, tickets linked back.
      await db.schema
        .createTable('orchestrations')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text')
        .addColumn('space_id', 'text')
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('goal', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('latest_revision', 'integer', (column) => column.notNull())
        .addColumn('approved_revision', 'integer')
        .addColumn('approved_keys', 'text')
        .addColumn('decided_by', 'text')
        .addColumn('reason', 'text')
        .addColumn('team_id', 'text')
        .addColumn('project_id', 'text')
        .addColumn('pipeline_run_id', 'text')
        .addColumn('max_usd', 'real')
        .addColumn('spent_usd', 'real', (column) => column.notNull().defaultTo(0))
        .addColumn('budget_paused', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('decided_at', 'text')
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('orchestrations_by_conversation').on('orchestrations').columns(['conversation_id', 'created_at']).execute();
      await db.schema
        .createTable('orchestration_revisions')
        .addColumn('orchestration_id', 'text', (column) => column.notNull().references('orchestrations.id').onDelete('cascade'))
        .addColumn('revision', 'integer', (column) => column.notNull())
        .addColumn('proposal', 'text', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('orchestration_revisions_pk', ['orchestration_id', 'revision'])
        .execute();
      await db.schema
        .createTable('orchestration_steps')
        .addColumn('orchestration_id', 'text', (column) => column.notNull().references('orchestrations.id').onDelete('cascade'))
        .addColumn('step', 'text', (column) => column.notNull())
        .addColumn('result', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('orchestration_steps_pk', ['orchestration_id', 'step'])
        .execute();
      await db.schema
        .createTable('teams')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('lead_agent_id', 'text')
        .addColumn('orchestration_id', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('team_members')
        .addColumn('team_id', 'text', (column) => column.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('role_key', 'text')
        .addColumn('role_title', 'text')
        .addColumn('hired', 'integer', (column) => column.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'agent_id'])
        .execute();
      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('goal', 'text', (column) => column.notNull())
        .addColumn('team_id', 'text')
        .addColumn('orchestration_id', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      // tickets.project_id is added by 0006.
      await db.schema.alterTable('tickets').addColumn('orchestration_id', 'text').execute();
    },
  },
  '0008_pipelines': {
    async up(db: Kysely<unknown>) {
      // PIPE-1: pipelines (definitions), their durable runs, node states, attempts with idempotency
      // keys (at most once for side effects), the embedded job queue, triggers and webhook deliveries.
      await db.schema
        .createTable('pipelines')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('definition', 'text', (column) => column.notNull())
        .addColumn('warnings', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('source', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('pipeline_triggers')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('pipeline_id', 'text', (column) => column.notNull().references('pipelines.id').onDelete('cascade'))
        .addColumn('type', 'text', (column) => column.notNull())
        .addColumn('config', 'text', (column) => column.notNull())
        // The webhook's HMAC secret: stored server-side, shown once at creation, never returned again.
        .addColumn('secret', 'text')
        .addColumn('last_fired_at', 'text')
        .execute();
      await db.schema.createIndex('pipeline_triggers_by_type').on('pipeline_triggers').columns(['type', 'pipeline_id']).execute();
      await db.schema
        .createTable('pipeline_webhook_deliveries')
        .addColumn('pipeline_id', 'text', (column) => column.notNull())
        .addColumn('signature', 'text', (column) => column.notNull())
        .addColumn('received_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('pipeline_webhook_deliveries_pk', ['pipeline_id', 'signature'])
        .execute();
      await db.schema
        .createTable('pipeline_runs')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('pipeline_id', 'text')
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('definition', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('trigger', 'text', (column) => column.notNull())
        .addColumn('source', 'text', (column) => column.notNull())
        .addColumn('idempotency_key', 'text', (column) => column.unique())
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('ended_at', 'text')
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('pipeline_runs_by_pipeline').on('pipeline_runs').columns(['pipeline_id', 'created_at']).execute();
      await db.schema.createIndex('pipeline_runs_by_status').on('pipeline_runs').column('status').execute();
      await db.schema
        .createTable('pipeline_nodes')
        .addColumn('run_id', 'text', (column) => column.notNull().references('pipeline_runs.id').onDelete('cascade'))
        .addColumn('key', 'text', (column) => column.notNull())
        .addColumn('type', 'text', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('output', 'text')
        .addColumn('error', 'text')
        .addColumn('agent_run_id', 'text')
        .addColumn('approval_id', 'text')
        .addColumn('started_at', 'text')
        .addColumn('ended_at', 'text')
        .addPrimaryKeyConstraint('pipeline_nodes_pk', ['run_id', 'key'])
        .execute();
      await db.schema
        .createTable('pipeline_node_attempts')
        .addColumn('idempotency_key', 'text', (column) => column.primaryKey())
        .addColumn('run_id', 'text', (column) => column.notNull())
        .addColumn('node_key', 'text', (column) => column.notNull())
        .addColumn('attempt', 'integer', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('output', 'text')
        .addColumn('error', 'text')
        .addColumn('started_at', 'text', (column) => column.notNull())
        .addColumn('ended_at', 'text')
        .execute();
      await db.schema.createIndex('pipeline_node_attempts_by_node').on('pipeline_node_attempts').columns(['run_id', 'node_key', 'attempt']).execute();
      await db.schema
        .createTable('pipeline_jobs')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('queue', 'text', (column) => column.notNull())
        .addColumn('payload', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('dedupe_key', 'text', (column) => column.unique())
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (column) => column.notNull())
        .addColumn('backoff_ms', 'integer', (column) => column.notNull())
        .addColumn('run_at', 'integer', (column) => column.notNull())
        .addColumn('locked_by', 'text')
        .addColumn('locked_until', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('pipeline_jobs_claimable').on('pipeline_jobs').columns(['queue', 'status', 'run_at']).execute();
    },
  },
  '0009_skills': {
    async up(db: Kysely<unknown>) {
      // SKL-3: operator-registered skill sources. Per workspace: a source, its installs and the
      // lock they pin belong to one workspace's skills/ folder and skills-lock.json.
      await db.schema
        .createTable('skill_sources')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('url', 'text', (column) => column.notNull().unique())
        .addColumn('source_type', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      // SKL-3: every scan, kept whatever its outcome (the report the operator reads and overrides).
      await db.schema
        .createTable('skill_scan_reports')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('source_id', 'text')
        .addColumn('skill_name', 'text', (column) => column.notNull())
        .addColumn('skill_path', 'text', (column) => column.notNull())
        .addColumn('commit_sha', 'text', (column) => column.notNull())
        .addColumn('computed_hash', 'text', (column) => column.notNull())
        .addColumn('verdict', 'text', (column) => column.notNull())
        .addColumn('rules_version', 'text', (column) => column.notNull())
        .addColumn('report_json', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      // SKL-3: what is installed under skills/<name>/ (the lock file is rendered from these rows).
      await db.schema
        .createTable('installed_skills')
        .addColumn('name', 'text', (column) => column.primaryKey())
        .addColumn('source_id', 'text', (column) => column.notNull())
        .addColumn('source_url', 'text', (column) => column.notNull())
        .addColumn('source_type', 'text', (column) => column.notNull())
        .addColumn('skill_path', 'text', (column) => column.notNull())
        .addColumn('ref', 'text')
        .addColumn('commit_sha', 'text', (column) => column.notNull())
        .addColumn('computed_hash', 'text', (column) => column.notNull())
        .addColumn('scan_verdict', 'text', (column) => column.notNull())
        .addColumn('rules_version', 'text', (column) => column.notNull())
        .addColumn('report_id', 'text', (column) => column.notNull())
        .addColumn('override_id', 'text')
        .addColumn('installed_at', 'text', (column) => column.notNull())
        .execute();
      // SKL-3: an operator's explicit decision to install a quarantined report's exact content.
      await db.schema
        .createTable('skill_quarantine_overrides')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('report_id', 'text', (column) => column.notNull())
        .addColumn('skill_name', 'text', (column) => column.notNull())
        .addColumn('computed_hash', 'text', (column) => column.notNull())
        .addColumn('reason', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0010_space_repositories': {
    async up(db) {
      // SKL-4: repositories a space links besides its own, each checked out under repos/<name>/ of a conversation's worktree.
      await db.schema
        .createTable('space_repositories')
        .addColumn('space_id', 'text', (column) => column.notNull().references('spaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('repo_path', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('space_repositories_pk', ['space_id', 'name'])
        .execute();
    },
  },
  '0012_review_forge': {
    async up(db: Kysely<unknown>) {
      // A review opened from a forge pull request remembers where it came from, so its
      // verdict can be published back to that pull request.
      await db.schema
        .createTable('review_forge_links')
        .addColumn('review_id', 'text', (column) => column.primaryKey())
        .addColumn('provider', 'text', (column) => column.notNull())
        .addColumn('owner', 'text', (column) => column.notNull())
        .addColumn('repo', 'text', (column) => column.notNull())
        .addColumn('number', 'integer', (column) => column.notNull())
        .addColumn('web_url', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      // One publication per review and head SHA: publishing twice never posts twice.
      await db.schema
        .createTable('review_publications')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('review_id', 'text', (column) => column.notNull())
        .addColumn('head_sha', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('event', 'text', (column) => column.notNull())
        .addColumn('approval_id', 'text')
        .addColumn('forge_review_id', 'text')
        .addColumn('comment_count', 'integer', (column) => column.notNull())
        .addColumn('error', 'text')
        .addColumn('requested_by', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('review_publications_review_head').unique().on('review_publications').columns(['review_id', 'head_sha']).execute();
    },
  },
  '0013_pipeline_run_generation': {
    // PLAN-8 on the engine: a stopped run can be re-opened; each re-opening is a new generation so its
    // node jobs get fresh queue dedupe keys (the first generation's keys are already used).
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('pipeline_runs')
        .addColumn('generation', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  },
  '0014_orchestration_plans_and_budget': {
    // PLAN-7 on ORC-4: an approved plan is recorded as an orchestration (plan_id links it back).
    // ORC-4's maxUsd: what nodes in flight hold of the cap and which runs wait for room are rows, so
    // a restart (or another process) neither loses nor double-counts a reservation; a budget pause
    // asks the operator through an Inbox approval (budget_approval_id), whose approval lets exactly
    // one held node run over the cap (budget_grant_node).
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('orchestrations').addColumn('plan_id', 'text').execute();
      await db.schema.alterTable('orchestrations').addColumn('budget_approval_id', 'text').execute();
      await db.schema.alterTable('orchestrations').addColumn('budget_grant_node', 'text').execute();
      await db.schema.createIndex('orchestrations_by_plan').on('orchestrations').column('plan_id').execute();
      await db.schema
        .createTable('orchestration_budget_reservations')
        .addColumn('orchestration_id', 'text', (column) => column.notNull().references('orchestrations.id').onDelete('cascade'))
        .addColumn('pipeline_run_id', 'text', (column) => column.notNull())
        .addColumn('node_key', 'text', (column) => column.notNull())
        .addColumn('reserved_usd', 'real', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('orchestration_budget_reservations_pk', ['orchestration_id', 'pipeline_run_id', 'node_key'])
        .execute();
      await db.schema
        .createTable('orchestration_budget_waits')
        .addColumn('orchestration_id', 'text', (column) => column.notNull().references('orchestrations.id').onDelete('cascade'))
        .addColumn('pipeline_run_id', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('orchestration_budget_waits_pk', ['orchestration_id', 'pipeline_run_id'])
        .execute();
    },
  },
  '0015_conversation_shares_archives': {
    // RLY-3: read-only share links of a conversation. Only a hash of the token is stored, so a copy of
    // the database file opens no share; a revoked link keeps its row (revoked_at) for the record.
    // RLY-6: relay_tool's archive action; a separate table so the conversation row and its readers
    // stay unchanged.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('conversation_shares')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('token_hash', 'text', (column) => column.notNull())
        .addColumn('created_by', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('conversation_shares_token_hash').unique().on('conversation_shares').column('token_hash').execute();
      await db.schema
        .createTable('conversation_archives')
        .addColumn('conversation_id', 'text', (column) => column.primaryKey())
        .addColumn('archived_by_kind', 'text', (column) => column.notNull())
        .addColumn('archived_by_id', 'text', (column) => column.notNull())
        .addColumn('archived_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0019_cluster_events_and_run_commands': {
    // On PostgreSQL several processes serve one workspace. Its live events are committed
    // here (the source of truth for SSE replay across processes; `id` is assigned under a
    // per-workspace lock so ids commit in order), and run controls addressed to a run another process
    // executes are written here for the owner to act on. The embedded SQLite server writes neither.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspace_events')
        .addColumn('id', 'integer', (column) => column.primaryKey())
        .addColumn('type', 'text', (column) => column.notNull())
        .addColumn('data', 'text', (column) => column.notNull())
        .addColumn('at', 'text', (column) => column.notNull())
        .addColumn('origin', 'text', (column) => column.notNull())
        .addColumn('committed_at_ms', 'integer', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('run_commands')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('target', 'text', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('body', 'text', (column) => column.notNull())
        .addColumn('origin', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('result', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0020_agent_acp_command': {
    // RLY-7: an agent on the `acp` adapter names the ACP agent it runs (JSON `{command, args}`, see
    // src/schemas/agent-acp-command.ts). Null: the server's configured ACP command table applies.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('agents').addColumn('acp_command', 'text').execute();
    },
  },
  '0021_run_dispatches': {
    // An API process records a run `queued` and then puts it on the runs queue — two
    // writes to two places. The run's job payload is committed with the run row, here, and deleted
    // once the enqueue succeeded; a row left behind (the process died in between) is re-enqueued by
    // a worker's sweep after a grace period. The embedded SQLite server never writes it.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('run_dispatches')
        .addColumn('run_id', 'text', (column) => column.primaryKey())
        .addColumn('payload', 'text', (column) => column.notNull())
        .addColumn('recorded_at_ms', 'integer', (column) => column.notNull())
        .execute();
    },
  },
  '0022_run_inherited_rules': {
    // SEC-9: a run started by another run (relay_tool, task, delegate_task) carries that run's rule
    // scopes as a ceiling. Stored with the run so a queued run, a worker and a restart all read it.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').addColumn('inherited_rules', 'text').execute();
    },
  },
  '0023_review_axis_assessments': {
    // TRUTH-3: a reviewer's axis is pass only with evidence. An explicit assessment (pass or fail,
    // with what was checked) is recorded per axis and per head: one about an older head says nothing
    // about the current one.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('review_axis_assessments')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('review_id', 'text', (column) => column.notNull())
        .addColumn('head_sha', 'text', (column) => column.notNull())
        .addColumn('axis', 'text', (column) => column.notNull())
        .addColumn('assessment', 'text', (column) => column.notNull())
        .addColumn('basis', 'text', (column) => column.notNull())
        .addColumn('assessor_kind', 'text', (column) => column.notNull())
        .addColumn('assessor_id', 'text', (column) => column.notNull())
        .addColumn('assessor_name', 'text', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('review_axis_assessments_review_head').on('review_axis_assessments').columns(['review_id', 'head_sha']).execute();
    },
  },
  '0024_plan_approved_estimate': {
    // TRUTH-3: the cost estimate a plan was approved at, kept with the approval (JSON of the API's
    // PlanCostEstimate). Recomputing it later from a grown run history showed a different figure than
    // the one the operator approved. Null for plans approved before this column existed.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('plans').addColumn('approved_estimate', 'text').execute();
    },
  },
  '0025_runs_by_conversation': {
    // CTX-1: a turn's history is rebuilt from the conversation's runs and their recorded events, so
    // the runs of one conversation are found through an index instead of a scan of every run.
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('runs_by_conversation').on('runs').columns(['conversation_id', 'created_at']).execute();
    },
  },
  '0028_message_attachments_and_rewinds': {
    // TOOL-3: images and text files an operator attaches to a message, kept with the workspace's other
    // records (the bytes as a blob: a worker on another machine reads them from the same database).
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('message_attachments')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('message_id', 'text', (column) => column.notNull())
        .addColumn('position', 'integer', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('media_type', 'text', (column) => column.notNull())
        .addColumn('size_bytes', 'integer', (column) => column.notNull())
        .addColumn('sha256', 'text', (column) => column.notNull())
        .addColumn('content', 'blob', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('message_attachments_conversation').on('message_attachments').columns(['conversation_id', 'message_id', 'position']).execute();
      // CTX-3: a rewind archives the messages from a turn on (`rewound_by` names the rewind); nothing is deleted.
      await db.schema.alterTable('messages').addColumn('rewound_by', 'text').execute();
      await db.schema
        .createTable('conversation_rewinds')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('message_id', 'text', (column) => column.notNull())
        .addColumn('checkpoint_commit', 'text')
        .addColumn('archive_ref', 'text')
        .addColumn('archived_messages', 'integer', (column) => column.notNull())
        .addColumn('operator_id', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('restored_at', 'text')
        .addColumn('restore_archive_ref', 'text')
        .execute();
      // CTX-3: the checkout's state as each turn began (a commit in the checkout, `refs/cc-turns/<conversation>/<run>`).
      await db.schema
        .createTable('turn_checkpoints')
        .addColumn('run_id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('commit_sha', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('turn_checkpoints_conversation').on('turn_checkpoints').columns(['conversation_id', 'created_at']).execute();
    },
  },
  '0027_mcp_servers': {
    // TOOL-2: operators' MCP servers per workspace, with the tools they listed and the effect classes
    // the operator assigned per tool (see McpServerTable). The names are unique: they are part of the
    // tool names agents call.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('mcp_servers')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull().unique())
        .addColumn('transport', 'text', (column) => column.notNull())
        .addColumn('command', 'text')
        .addColumn('args', 'text', (column) => column.notNull())
        .addColumn('network', 'text')
        .addColumn('read_only_paths', 'text', (column) => column.notNull())
        .addColumn('url', 'text')
        .addColumn('secrets', 'text', (column) => column.notNull())
        .addColumn('agents', 'text', (column) => column.notNull())
        .addColumn('call_timeout_seconds', 'integer', (column) => column.notNull())
        .addColumn('max_output_bytes', 'integer', (column) => column.notNull())
        .addColumn('tools', 'text')
        .addColumn('tool_effects', 'text', (column) => column.notNull())
        .addColumn('tools_listed_at', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0029_spend_limits': {
    // BUD-1: spend limits per agent and per workspace, the spend of every model call (tokens by kind,
    // so a changed price can be applied again) and the alerts and budget decisions they raise.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('spend_limits')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('agent_id', 'text')
        .addColumn('period', 'text', (column) => column.notNull())
        .addColumn('limit_usd', 'real', (column) => column.notNull())
        .addColumn('soft_threshold', 'real', (column) => column.notNull())
        .addColumn('once_limit_usd', 'real')
        .addColumn('once_period_key', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('model_call_costs')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('run_id', 'text', (column) => column.notNull())
        .addColumn('agent_id', 'text', (column) => column.notNull())
        .addColumn('provider', 'text')
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('input_tokens', 'integer', (column) => column.notNull())
        .addColumn('output_tokens', 'integer', (column) => column.notNull())
        .addColumn('cache_read_tokens', 'integer', (column) => column.notNull())
        .addColumn('cache_write_tokens', 'integer', (column) => column.notNull())
        .addColumn('cost_usd', 'real', (column) => column.notNull())
        .addColumn('priced', 'integer', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      // A period's total is summed once per process (then kept running): by time, and by agent and time.
      await db.schema.createIndex('model_call_costs_by_time').on('model_call_costs').columns(['created_at']).execute();
      await db.schema.createIndex('model_call_costs_by_agent').on('model_call_costs').columns(['agent_id', 'created_at']).execute();
      await db.schema
        .createTable('budget_alerts')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('limit_id', 'text', (column) => column.notNull())
        .addColumn('agent_id', 'text')
        .addColumn('period', 'text', (column) => column.notNull())
        .addColumn('period_key', 'text', (column) => column.notNull())
        .addColumn('run_id', 'text')
        .addColumn('spent_usd', 'real', (column) => column.notNull())
        .addColumn('limit_usd', 'real', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .addColumn('decided_limit_usd', 'real')
        .addColumn('decided_by', 'text')
        .addColumn('decided_at', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('budget_alerts_by_limit').on('budget_alerts').columns(['limit_id', 'period_key', 'kind']).execute();
    },
  },
  '0030_conversation_publications_and_merges': {
    // CHG-2: where a conversation's work went. One pull request per conversation (re-publishing
    // updates it), with the title and body the operator approved, and every local merge of its branch.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('conversation_publications')
        .addColumn('conversation_id', 'text', (column) => column.primaryKey())
        .addColumn('provider', 'text', (column) => column.notNull())
        .addColumn('owner', 'text', (column) => column.notNull())
        .addColumn('repo', 'text', (column) => column.notNull())
        .addColumn('remote_name', 'text', (column) => column.notNull())
        .addColumn('head_branch', 'text', (column) => column.notNull())
        .addColumn('base_branch', 'text', (column) => column.notNull())
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('body', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('approval_id', 'text')
        .addColumn('error', 'text')
        .addColumn('number', 'integer')
        .addColumn('web_url', 'text')
        .addColumn('pr_state', 'text')
        .addColumn('head_sha', 'text')
        .addColumn('pushed_sha', 'text')
        .addColumn('requested_by', 'text', (column) => column.notNull())
        .addColumn('published_at', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('conversation_merges')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('target_branch', 'text', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('previous_sha', 'text', (column) => column.notNull())
        .addColumn('source_sha', 'text', (column) => column.notNull())
        .addColumn('merged_sha', 'text', (column) => column.notNull())
        .addColumn('operator_id', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('conversation_merges_conversation').on('conversation_merges').columns(['conversation_id', 'created_at']).execute();
    },
  },
  /** TEAM-3: a policy rule records the person who added it (by hand, or by remembering a choice); null before people existed. */
  '0031_policy_rule_authors': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('policy_rules').addColumn('created_by', 'text').execute();
    },
  },
  /** TEAM-3: the workspace's audit log, one append-only row per consequential act, written in the act's transaction. */
  '0032_audit_entries': {
    async up(db: Kysely<unknown>) {
      await createAuditEntriesTable(db);
    },
  },
  /** AG-4: a ticket may be owned by a person of the workspace (a registry person id) instead of an agent; null otherwise. */
  '0033_ticket_person_owners': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('tickets').addColumn('assignee_person_id', 'text').execute();
    },
  },
  /**
   * UI: spaces and conversations can be archived — hidden from the sidebar behind "Show archived",
   * never deleted (their runs, approvals and spend stay readable). Null while not archived.
   */
  '0034_archived_spaces_and_conversations': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('spaces').addColumn('archived_at', 'text').execute();
      await db.schema.alterTable('conversations').addColumn('archived_at', 'text').execute();
    },
  },
  /**
   * NF-SCALE: what a page shows of work in progress, readable through any process on one database.
   * On PostgreSQL the first three are written in the transaction that commits the event announcing
   * the change (a reader never sees the event without the row, nor the row before the event); an
   * operator's window is written by the process that heard from it, with the time it did. The
   * embedded SQLite server keeps all of this in memory and writes none of them.
   */
  '0035_shared_live_state': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('live_questions')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('run_id', 'text', (column) => column.notNull())
        .addColumn('data', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('live_questions_by_run').on('live_questions').column('run_id').execute();
      await db.schema
        .createTable('live_agent_presence')
        .addColumn('agent_id', 'text', (column) => column.primaryKey())
        .addColumn('run_id', 'text')
        .addColumn('data', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('live_run_pauses')
        .addColumn('run_id', 'text', (column) => column.primaryKey())
        .addColumn('paused_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('live_operator_windows')
        .addColumn('client_id', 'text', (column) => column.primaryKey())
        .addColumn('operator_id', 'text', (column) => column.notNull())
        .addColumn('space_id', 'text')
        .addColumn('conversation_id', 'text')
        .addColumn('since', 'text', (column) => column.notNull())
        .addColumn('last_seen_ms', 'integer', (column) => column.notNull())
        .execute();
    },
  },
  /**
   * HAR-5: a message sent while a turn that cannot be steered runs waits for that turn to end. It is
   * stored before the POST answers, so a restart (or the process that took it dying) loses nothing;
   * whoever claims it (claimed_by/claimed_at) starts it, and deletes it only once its turn started.
   */
  '0038_held_messages': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('held_messages')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('conversation_id', 'text', (column) => column.notNull())
        .addColumn('awaited_run_id', 'text', (column) => column.notNull())
        .addColumn('text', 'text', (column) => column.notNull())
        .addColumn('agent_id', 'text')
        .addColumn('operator_id', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_at', 'text')
        .execute();
      await db.schema.createIndex('held_messages_by_awaited_run').on('held_messages').column('awaited_run_id').execute();
    },
  },
  /**
   * NF-SCALE: a run's preparation reads the agent, the settings, the space, its repositories, the MCP
   * servers and the installed skills. They change only when someone edits them, so a process keeps
   * what it read, keyed by `config_version.version`, which a trigger bumps in the transaction of
   * every write to those tables — whatever process, code path or tool writes them. The one dialect
   * branch of the migrations: trigger syntax differs (SQLite has row triggers with a body;
   * PostgreSQL calls a function, pinned to this workspace's schema).
   */
  '0039_config_version': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('config_version')
        .addColumn('id', 'integer', (column) => column.primaryKey().check(sql`id = 1`))
        .addColumn('version', 'integer', (column) => column.notNull())
        .execute();
      await sql`insert into config_version (id, version) values (1, 0)`.execute(db);
      if (db.getExecutor().adapter instanceof PostgresAdapter) {
        await sql`create function bump_config_version() returns trigger language plpgsql set search_path from current as $$ begin update config_version set version = version + 1; return null; end $$`.execute(db);
        for (const table of CONFIG_TABLES) {
          await sql`create trigger ${sql.raw(`${table}_bump_config_version`)} after insert or update or delete on ${sql.table(table)} for each statement execute function bump_config_version()`.execute(db);
        }
        return;
      }
      for (const table of CONFIG_TABLES) {
        for (const change of ['insert', 'update', 'delete']) {
          await sql`create trigger ${sql.raw(`${table}_${change}_bumps_config_version`)} after ${sql.raw(change)} on ${sql.table(table)} begin update config_version set version = version + 1; end`.execute(db);
        }
      }
    },
  },
  /**
   * HAR-5, NF-SCALE: a run says whether a message waits for its end, so every process that hears a
   * run end claims held messages only when one does (one statement less per turn in each of them).
   * Messages already held when the column is added mark their runs here; a process of an older
   * release sets no flag but claims on every end it hears (its events do not say; see FollowUpTurns).
   */
  '0040_run_messages_held': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').addColumn('messages_held', 'integer', (column) => column.notNull().defaultTo(0)).execute();
      await sql`update runs set messages_held = 1 where id in (select awaited_run_id from held_messages)`.execute(db);
    },
  },
};
