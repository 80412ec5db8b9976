import type { ColumnType } from 'kysely';
import type { AutonomyLevel, Mode } from '../core/modes.js';
import type { Decision } from '../core/decisions.js';
import type { PlanNodeState } from '../core/plan/plan-progress.js';
import type { ApprovalStatus } from '../schemas/approval.js';
import type { Message } from '../schemas/message.js';
import type { PlanStatus } from '../schemas/plan.js';
import type { PolicyRule } from '../schemas/policy.js';
import type { RunLiveness, RunState } from '../schemas/run.js';
import type { SpaceKind } from '../schemas/space.js';
import type { AuditEntryTable } from './audit-entry-table.js';

/** Tables of one workspace's own database file (WS-1: its rows never land in another's file). */
export interface WorkspaceSchema {
  workspace_meta: WorkspaceMetaTable;
  agents: AgentTable;
  runs: RunTable;
  spaces: SpaceTable;
  conversations: ConversationTable;
  policy_rules: PolicyRuleTable;
  messages: MessageTable;
  message_attachments: MessageAttachmentTable;
  conversation_rewinds: ConversationRewindTable;
  turn_checkpoints: TurnCheckpointTable;
  run_events: RunEventTable;
  tool_calls: ToolCallTable;
  approvals: ApprovalTable;
  workspace_settings: WorkspaceSettingTable;
  plans: PlanTable;
  plan_nodes: PlanNodeTable;
  tickets: TicketTable;
  transport_sessions: TransportSessionTable;
  checkouts: CheckoutTable;
  reviews: ReviewTable;
  review_findings: ReviewFindingTable;
  review_gates: ReviewGateTable;
  review_gate_results: ReviewGateResultTable;
  review_axis_assessments: ReviewAxisAssessmentTable;
  ticket_comments: TicketCommentTable;
  orchestrations: OrchestrationTable;
  orchestration_revisions: OrchestrationRevisionTable;
  orchestration_steps: OrchestrationStepTable;
  orchestration_budget_reservations: OrchestrationBudgetReservationTable;
  orchestration_budget_waits: OrchestrationBudgetWaitTable;
  teams: TeamTable;
  team_members: TeamMemberTable;
  projects: ProjectTable;
  pipelines: PipelineTable;
  pipeline_triggers: PipelineTriggerTable;
  pipeline_webhook_deliveries: PipelineWebhookDeliveryTable;
  pipeline_runs: PipelineRunTable;
  pipeline_nodes: PipelineNodeTable;
  pipeline_node_attempts: PipelineNodeAttemptTable;
  pipeline_jobs: PipelineJobTable;
  skill_sources: SkillSourceTable;
  skill_scan_reports: SkillScanReportTable;
  installed_skills: InstalledSkillTable;
  skill_quarantine_overrides: SkillQuarantineOverrideTable;
  space_repositories: SpaceRepositoryTable;
  review_forge_links: ReviewForgeLinkTable;
  review_publications: ReviewPublicationTable;
  conversation_shares: ConversationShareTable;
  conversation_archives: ConversationArchiveTable;
  workspace_events: WorkspaceEventTable;
  run_commands: RunCommandTable;
  run_dispatches: RunDispatchTable;
  mcp_servers: McpServerTable;
  spend_limits: SpendLimitTable;
  model_call_costs: ModelCallCostTable;
  budget_alerts: BudgetAlertTable;
  conversation_publications: ConversationPublicationTable;
  conversation_merges: ConversationMergeTable;
  live_questions: LiveQuestionTable;
  live_agent_presence: LiveAgentPresenceTable;
  live_run_pauses: LiveRunPauseTable;
  live_operator_windows: LiveOperatorWindowTable;
  held_messages: HeldMessageTable;
  config_version: ConfigVersionTable;
  audit_entries: AuditEntryTable;
}

export interface WorkspaceMetaTable {
  key: string;
  value: string;
}

export interface AgentTable {
  id: string;
  workspace_id: string;
  name: string;
  title: string;
  persona: string;
  system_prompt: string | null;
  /** JSON array of skill names, de-duplicated case-insensitively (SKL-1). */
  skills: string;
  adapter_id: string | null;
  model_id: string | null;
  effort: string | null;
  context_size: number | null;
  silence_timeout_minutes: number | null;
  reports_to: string | null;
  /** JSON `{command, args}` of an `acp` agent (RLY-7, migration 0020); null when unset. */
  acp_command: string | null;
  created_at: string;
  updated_at: string;
}

export interface RunTable {
  id: string;
  agent_id: string;
  space_id: string | null;
  conversation_id: string | null;
  parent_run_id: string | null;
  state: RunState;
  liveness: RunLiveness;
  /** 1 when the run ended without its mode's output verb (PLAN-6); state stays `completed`. */
  deliverable_failed: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  mode: string | null;
  autonomy: string | null;
  model: string | null;
  /** Delegation/subagent depth: 0 for a top-level run. */
  depth: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  cost_usd: number | null;
  /** Which sandbox backend wrapped the run (or the SBX-2 fallback), for adapters that use one. */
  sandbox: string | null;
  /** JSON `InheritedRules` (SEC-9): the rules of the runs that started this one; null for none. */
  inherited_rules: string | null;
  /**
   * 1 once a message was held for this run's end (HAR-5, set by the hold after its row is stored): the
   * statement that ends the run returns it, so a run nobody waits for is not followed by a claim.
   */
  messages_held: ColumnType<number, number | undefined, number>;
}

export interface SpaceTable {
  id: string;
  name: string;
  /** `room` for ordinary spaces, `pullRequest` for PR review spaces (created in review, MODE-6). */
  kind: SpaceKind;
  mode: Mode;
  autonomy: AutonomyLevel;
  default_agent_id: string | null;
  repo_path: string | null;
  created_at: string;
  updated_at: string;
  /** When it was archived (migration 0034); null while it shows in the sidebar. */
  archived_at: string | null;
}

export interface ConversationTable {
  id: string;
  space_id: string;
  /** Set on branches; a branch shares its space's mode like any conversation (MODE-1). */
  parent_conversation_id: string | null;
  branched_from_message_id: string | null;
  title: string;
  goal: string | null;
  created_at: string;
  updated_at: string;
  /** When it was archived (migration 0034); null while it shows in the sidebar. */
  archived_at: string | null;
}

export interface PolicyRuleTable {
  id: string;
  scope: PolicyRule['scope'];
  /** The space, agent or workspace id the rule belongs to. */
  scope_id: string;
  /** `class`, `command`, `domain` or `fingerprint`. */
  match_kind: PolicyRule['match']['kind'];
  match_value: string;
  decision: Decision;
  note: string | null;
  created_at: string;
  /** TEAM-3: the person who added the rule (by hand or by remembering a choice); null for older rules. */
  created_by: string | null;
}

export interface MessageTable {
  id: string;
  conversation_id: string;
  run_id: string | null;
  /** `user`, `assistant`, or `system` (visible lines such as the PLAN-6 failure line). */
  role: Message['role'];
  /** `operator`, `agent` or `system`. */
  author_kind: Message['authorKind'];
  author_id: string | null;
  mode: string | null;
  picker: string | null;
  content: string;
  created_at: string;
  /** CTX-3: the rewind that archived this message (null: in the history). */
  rewound_by: string | null;
}

/** CTX-3: a conversation rewound to before one of its messages; what followed is archived, never deleted. */
export interface ConversationRewindTable {
  id: string;
  conversation_id: string;
  /** The first message archived: the rewind returned to just before it. */
  message_id: string;
  /** The turn checkpoint the checkout returned to (null: the conversation had none, only the history moved). */
  checkpoint_commit: string | null;
  /** `refs/cc-checkpoints/…` holding the checkout as it was before the rewind. */
  archive_ref: string | null;
  archived_messages: number;
  operator_id: string;
  created_at: string;
  restored_at: string | null;
  /** The checkout as it was before the restore. */
  restore_archive_ref: string | null;
}

/** CTX-3: the checkout's state as a turn began, committed inside the checkout. */
export interface TurnCheckpointTable {
  run_id: string;
  conversation_id: string;
  commit_sha: string;
  created_at: string;
}

/** TOOL-3: a file attached to an operator's message; `content` holds its bytes. */
export interface MessageAttachmentTable {
  id: string;
  conversation_id: string;
  message_id: string;
  /** Order within the message, from 0. */
  position: number;
  name: string;
  /** `image` or `text`. */
  kind: string;
  media_type: string;
  size_bytes: number;
  sha256: string;
  content: Uint8Array;
  created_at: string;
}

export interface RunEventTable {
  run_id: string;
  sequence: number;
  type: string;
  data: string;
  at: string;
}

export interface ToolCallTable {
  id: string;
  run_id: string;
  name: string;
  input: string;
  output: string | null;
  is_error: number | null;
  executed: number;
  decision: string | null;
  /** JSON `{scope, ruleId}` of the policy decision (every decision says who decided). */
  decided_by: string | null;
  classes: string | null;
  started_at: string;
  ended_at: string | null;
}

export interface ApprovalTable {
  id: string;
  /** `tool`, `plan_exit`, `plan`, `orchestration`, `question` … */
  kind: string;
  /** `pending`, `approved`, `rejected`, `expired`. */
  status: ApprovalStatus;
  /** 1 for approvals that survive restarts (POL-7); tool-call gates are not durable. */
  durable: number;
  run_id: string | null;
  agent_id: string | null;
  space_id: string | null;
  conversation_id: string | null;
  title: string;
  request: string;
  decided_by: string | null;
  reason: string | null;
  remember: number;
  created_at: string;
  decided_at: string | null;
}

export interface WorkspaceSettingTable {
  key: string;
  value: string;
}

export interface PlanTable {
  id: string;
  conversation_id: string;
  space_id: string | null;
  /** The agent that wrote the plan; it also executes it (PLAN-8). */
  agent_id: string;
  run_id: string | null;
  /** 1, 2, … per conversation: a resubmission makes a new version. */
  version: number;
  goal: string;
  /** proposed, approved, rejected, superseded, executing, completed, failed, cancelled. */
  status: PlanStatus;
  /** JSON of the submitted graph. */
  submission: string;
  /** JSON array of validation violations (empty for a valid plan). */
  errors: string;
  /** JSON of the compiled blueprint, set on approval. */
  blueprint: string | null;
  /** JSON of the cost estimate frozen with the approval (TRUTH-3, migration 0024); null before approval or for older plans. */
  approved_estimate: string | null;
  decided_by: string | null;
  reason: string | null;
  created_at: string;
  decided_at: string | null;
  updated_at: string;
}

export interface PlanNodeTable {
  plan_id: string;
  key: string;
  ticket_id: string;
  /** pending, ready, running, done, failed, cancelled, blocked. */
  state: PlanNodeState;
  run_id: string | null;
  assignee_agent_id: string | null;
  attempts: number;
  error: string | null;
  started_at: string | null;
  ended_at: string | null;
}

export interface TicketTable {
  id: string;
  plan_id: string | null;
  node_key: string | null;
  title: string;
  description: string;
  status: string;
  depends_on: string;
  assignee_agent_id: string | null;
  created_at: string;
  updated_at: string;
  /** Added by 0006: the project it belongs to, the review/finding it came from, who made it. */
  project_id?: string | null;
  review_id?: string | null;
  finding_id?: string | null;
  created_by_kind?: string | null;
  created_by_id?: string | null;
  /** Set for tickets an orchestration made (0007, ORC-4). */
  orchestration_id?: string | null;
  /** The person who owns it (0033, AG-4), instead of an agent. */
  assignee_person_id?: string | null;
}

export interface TransportSessionTable {
  conversation_id: string;
  agent_id: string;
  adapter_id: string;
  session_id: string;
  updated_at: string;
}

/**
 * What the server recorded when it made a conversation's checkout (SEC-3): sandbox mounts and push
 * targets come from these rows only, never from files inside the checkout.
 */
export interface CheckoutTable {
  /** The conversation id, or a one-shot run's id when it has no conversation. */
  conversation_id: string;
  repo_path: string;
  source_git_dir: string;
  source_objects_dir: string;
  branch: string;
  base_sha: string;
  /** JSON array of the source repository's push remotes ({ id, name, url, forwardUrl }). */
  remotes_json: string;
  created_at: string;
}

/** A pull-request review (REV-1): one per repository + head ref; a re-review bumps `round`. */
export interface ReviewTable {
  id: string;
  space_id: string;
  conversation_id: string;
  repo_path: string;
  title: string;
  base_ref: string;
  head_ref: string;
  base_sha: string;
  head_sha: string;
  merge_base_sha: string;
  round: number;
  /** JSON {@link HunkMap}: file → changed head-side line ranges. */
  hunk_map: string;
  diff: string;
  review_md: string | null;
  /** JSON of the published verdict (REV-5: only once finalized). */
  verdict_json: string | null;
  finalized_by: string | null;
  finalized_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A finding (review node, REV-2). Priority/confidence nullable: REV-3 drops such rows on read. */
export interface ReviewFindingTable {
  id: string;
  review_id: string;
  round: number;
  type: string;
  priority: string | null;
  confidence: number | null;
  body: string;
  anchor_path: string | null;
  anchor_start: number | null;
  anchor_end: number | null;
  axis: string | null;
  status: string;
  /** `new`, `stillOpen` or `notVerifiable`: what the latest re-review made of it. */
  carry: string;
  author_kind: string;
  author_id: string;
  run_id: string | null;
  /** JSON array of `{kind, id}` principals that confirmed it. */
  confirmed_by: string;
  status_reason: string | null;
  status_by: string | null;
  resolved_round: number | null;
  created_at: string;
  updated_at: string;
}

/** A gated axis: a command configured per repository, run by the server in the sandbox (REV-4). */
export interface ReviewGateTable {
  repo_path: string;
  name: string;
  command: string;
  created_at: string;
}

/** An explicit assessment of one axis of one head by a reviewer or a person (TRUTH-3). */
export interface ReviewAxisAssessmentTable {
  id: string;
  review_id: string;
  head_sha: string;
  axis: string;
  /** `pass` or `fail`. */
  assessment: string;
  basis: string;
  assessor_kind: string;
  assessor_id: string;
  /** The agent's name (or `operator`) when it assessed: shown with the axis. */
  assessor_name: string;
  run_id: string | null;
  created_at: string;
}

export interface ReviewGateResultTable {
  review_id: string;
  head_sha: string;
  name: string;
  command: string;
  /** `pass`, `fail` or `notRun`. */
  status: string;
  exit_code: number | null;
  output: string;
  ran_at: string;
}

export interface TicketCommentTable {
  id: string;
  ticket_id: string;
  author_kind: string;
  author_id: string;
  body: string;
  created_at: string;
}

/** One orchestration (ORC-1..4); its proposals are the revisions. */
export interface OrchestrationTable {
  id: string;
  conversation_id: string | null;
  space_id: string | null;
  /** The orchestrator: the agent that proposed it. Hires report to it (AG-7's exception). */
  agent_id: string;
  run_id: string | null;
  goal: string;
  /** proposed, approved, executing, synthesizing, completed, failed, cancelled, rejected. */
  status: string;
  latest_revision: number;
  approved_revision: number | null;
  /** JSON array of the approved sub-ticket keys (the whole set when the operator chose no subset). */
  approved_keys: string | null;
  decided_by: string | null;
  reason: string | null;
  team_id: string | null;
  project_id: string | null;
  pipeline_run_id: string | null;
  max_usd: number | null;
  spent_usd: number;
  /** 1 while the pipeline waits for the operator because spending would exceed max_usd. */
  budget_paused: number;
  error: string | null;
  created_at: string;
  decided_at: string | null;
  updated_at: string;
  /** The plan this orchestration records (0014, PLAN-7): set for plans, null for proposals. */
  plan_id?: string | null;
  /** The pending Inbox approval of a budget pause (0014, ORC-4). */
  budget_approval_id?: string | null;
  /** The held node the operator let run over the cap by approving that approval (0014). */
  budget_grant_node?: string | null;
}

/** What one admitted node in flight holds of its orchestration's maxUsd (0014, ORC-4). */
export interface OrchestrationBudgetReservationTable {
  orchestration_id: string;
  pipeline_run_id: string;
  node_key: string;
  reserved_usd: number;
  created_at: string;
}

/** A run with nodes held only until a sibling in flight gives budget back (0014, ORC-4). */
export interface OrchestrationBudgetWaitTable {
  orchestration_id: string;
  pipeline_run_id: string;
  created_at: string;
}

export interface OrchestrationRevisionTable {
  orchestration_id: string;
  revision: number;
  /** JSON of the validated proposal. */
  proposal: string;
  run_id: string | null;
  created_at: string;
}

/** A materializer step that has completed, with its result (JSON), so a resumed run skips it. */
export interface OrchestrationStepTable {
  orchestration_id: string;
  step: string;
  result: string;
  created_at: string;
}

export interface TeamTable {
  id: string;
  name: string;
  lead_agent_id: string | null;
  orchestration_id: string | null;
  created_at: string;
}

export interface TeamMemberTable {
  team_id: string;
  agent_id: string;
  role_key: string | null;
  role_title: string | null;
  hired: number;
}

export interface ProjectTable {
  id: string;
  name: string;
  goal: string;
  team_id: string | null;
  orchestration_id: string | null;
  created_at: string;
}

/** PIPE-1: a stored pipeline definition (from the API or a workspace file). */
export interface PipelineTable {
  id: string;
  name: string;
  /** JSON of the validated PipelineDefinition. */
  definition: string;
  /** JSON array of the validator's warnings (MODE-5). */
  warnings: string;
  /** JSON: {kind: 'api'} | {kind: 'file', path} | {kind: 'orchestration', id}. */
  source: string;
  created_at: string;
  updated_at: string;
}

export interface PipelineTriggerTable {
  id: string;
  pipeline_id: string;
  /** schedule, webhook, event (manual needs no row). */
  type: string;
  /** JSON of the trigger as declared. */
  config: string;
  secret: string | null;
  last_fired_at: string | null;
}

/** Accepted webhook signatures, so a replayed delivery is refused. */
export interface PipelineWebhookDeliveryTable {
  pipeline_id: string;
  signature: string;
  received_at: string;
}

export interface PipelineRunTable {
  id: string;
  pipeline_id: string | null;
  name: string;
  /** JSON snapshot of the definition the run executes (later edits never change a run). */
  definition: string;
  /** running, completed, failed, cancelled. */
  status: string;
  /** JSON: {type, payload?}. */
  trigger: string;
  /** JSON: {kind: 'api' | 'file' | 'orchestration' | …, id?}. */
  source: string;
  idempotency_key: string | null;
  error: string | null;
  created_at: string;
  ended_at: string | null;
  updated_at: string;
  /** Incremented each time a stopped run is re-opened (migration 0013); part of its node jobs' dedupe keys. */
  generation: number;
}

export interface PipelineNodeTable {
  run_id: string;
  key: string;
  type: string;
  /** pending, queued, running, waiting, done, failed, skipped, cancelled, blocked. */
  state: string;
  attempts: number;
  output: string | null;
  error: string | null;
  agent_run_id: string | null;
  approval_id: string | null;
  started_at: string | null;
  ended_at: string | null;
}

/** One attempt of one node; its primary key is the idempotency key side effects carry. */
export interface PipelineNodeAttemptTable {
  idempotency_key: string;
  run_id: string;
  node_key: string;
  attempt: number;
  /** running, succeeded, failed, interrupted. */
  state: string;
  output: string | null;
  error: string | null;
  started_at: string;
  ended_at: string | null;
}

/** The embedded job queue (SQLite); a PostgreSQL queue backs the same interface later. */
export interface PipelineJobTable {
  id: string;
  queue: string;
  payload: string;
  /** queued, claimed, done, dead. */
  status: string;
  dedupe_key: string | null;
  attempts: number;
  max_attempts: number;
  backoff_ms: number;
  /** Epoch milliseconds. */
  run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** SKL-3: a Git repository the operator registered as a skill source. */
export interface SkillSourceTable {
  id: string;
  url: string;
  source_type: string;
  created_at: string;
}

/** SKL-3: one scan of one skill folder at one commit, whatever its outcome. */
export interface SkillScanReportTable {
  id: string;
  source_id: string | null;
  skill_name: string;
  skill_path: string;
  commit_sha: string;
  computed_hash: string;
  verdict: string;
  rules_version: string;
  /** The full ScanReport as JSON. */
  report_json: string;
  created_at: string;
}

/** SKL-3: a skill installed under `skills/<name>/`; `skills-lock.json` is rendered from these rows. */
export interface InstalledSkillTable {
  name: string;
  source_id: string;
  source_url: string;
  source_type: string;
  skill_path: string;
  ref: string | null;
  commit_sha: string;
  computed_hash: string;
  scan_verdict: string;
  rules_version: string;
  report_id: string;
  override_id: string | null;
  installed_at: string;
}

/** SKL-3: an operator's recorded override of a quarantine verdict, bound to the exact content hash. */
export interface SkillQuarantineOverrideTable {
  id: string;
  report_id: string;
  skill_name: string;
  computed_hash: string;
  reason: string;
  created_at: string;
}

/** SKL-4: a repository a space links, checked out under `repos/<name>/` of each conversation's worktree. */
export interface SpaceRepositoryTable {
  space_id: string;
  name: string;
  /** Absolute path of the user's repository (checked like a space's repoPath). */
  repo_path: string;
  created_at: string;
}

/** The forge pull request a review was opened from (GitHub first). */
export interface ReviewForgeLinkTable {
  review_id: string;
  provider: string;
  owner: string;
  repo: string;
  number: number;
  web_url: string;
  created_at: string;
}

/** The verdict published to the pull request, one row per review and head SHA (idempotent). */
export interface ReviewPublicationTable {
  id: string;
  review_id: string;
  head_sha: string;
  /** awaitingApproval | publishing | published | rejected | failed */
  status: string;
  /** APPROVE | REQUEST_CHANGES | COMMENT */
  event: string;
  approval_id: string | null;
  forge_review_id: string | null;
  comment_count: number;
  error: string | null;
  requested_by: string;
  created_at: string;
  updated_at: string;
}

/** RLY-3: a read-only share link of a conversation; the token itself is never stored, only its SHA-256. */
export interface ConversationShareTable {
  id: string;
  conversation_id: string;
  token_hash: string;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
}

/** RLY-6: a conversation archived (by relay_tool or an operator); archived conversations take no new messages from relay_tool. */
export interface ConversationArchiveTable {
  conversation_id: string;
  archived_by_kind: 'operator' | 'agent';
  archived_by_id: string;
  archived_at: string;
}
/** A committed live event (PostgreSQL only): `id` is the SSE event id every process serves. */
export interface WorkspaceEventTable {
  id: number;
  type: string;
  /** The event's JSON payload. */
  data: string;
  at: string;
  /** The process that published it (its own listener must not hand it to in-process reactions again). */
  origin: string;
  /** Epoch ms at commit, by the database clock: the start of the event-lag measure. */
  committed_at_ms: number;
}

/** A run control addressed to whichever process executes the run (PostgreSQL only). */
export interface RunCommandTable {
  id: string;
  /** The run id (cancel, pause, resume, steer) or question id (answer) the owner recognises. */
  target: string;
  kind: string;
  /** JSON: the command's arguments (steer text, answers). */
  body: string;
  origin: string;
  /** pending → taken (an owner acts) → done | failed; pending → unclaimed when no owner answers. */
  status: string;
  /** JSON: the owner's error (status code, field, message) when it refused. */
  result: string | null;
  created_at: string;
}

/** A queued run's job payload until its enqueue is confirmed (migration 0021). */
export interface RunDispatchTable {
  run_id: string;
  /** JSON: the `QueuedRun` the runs queue carries. */
  payload: string;
  /** Epoch ms when the run was recorded: the sweep re-enqueues rows older than its grace period. */
  recorded_at_ms: number;
}

/**
 * TOOL-2: an operator's MCP server. `args`, `read_only_paths` and `agents` are JSON arrays; `secrets`
 * is a JSON object of environment variables (stdio) or headers (http), never read back by the API;
 * `tools` is the JSON list the server gave when last listed (with each description's scan); and
 * `tool_effects` the operator's classes per tool name, kept across listings.
 */
export interface McpServerTable {
  id: string;
  name: string;
  transport: string;
  command: string | null;
  args: string;
  network: string | null;
  read_only_paths: string;
  url: string | null;
  secrets: string;
  agents: string;
  call_timeout_seconds: number;
  max_output_bytes: number;
  tools: string | null;
  tool_effects: string;
  tools_listed_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * BUD-1: a spend limit in USD on an agent (`agent_id` set) or on the whole workspace (`agent_id`
 * null), per UTC day or month. `once_limit_usd` replaces `limit_usd` only for the period
 * `once_period_key` names (an operator's "raise the limit once" decision).
 */
export interface SpendLimitTable {
  id: string;
  agent_id: string | null;
  period: string;
  limit_usd: number;
  soft_threshold: number;
  once_limit_usd: number | null;
  once_period_key: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * BUD-1: one model call's recorded spend, tokens by kind, so a changed price can be applied again.
 * `priced` is 0 when the catalog and the workspace's overrides had no price for the model.
 */
export interface ModelCallCostTable {
  id: string;
  run_id: string;
  agent_id: string;
  provider: string | null;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  priced: number;
  created_at: string;
}

/**
 * BUD-1: a spend limit's soft threshold reached (`kind` threshold, acknowledged by dismissing it) or
 * the limit itself reached (`kind` limit: a budget decision the operator takes in the Inbox).
 */
export interface BudgetAlertTable {
  id: string;
  kind: string;
  limit_id: string;
  agent_id: string | null;
  period: string;
  period_key: string;
  run_id: string | null;
  spent_usd: number;
  limit_usd: number;
  state: string;
  decided_limit_usd: number | null;
  decided_by: string | null;
  decided_at: string | null;
  created_at: string;
}

/**
 * CHG-2: a conversation's pull request. `status` is the last publish request's (awaitingApproval |
 * publishing | published | rejected | failed); `number`, `web_url`, `pr_state` and `head_sha` are the
 * forge's, once a publish went through; `pushed_sha` is the lease the next push starts from.
 */
export interface ConversationPublicationTable {
  conversation_id: string;
  provider: string;
  owner: string;
  repo: string;
  remote_name: string;
  head_branch: string;
  base_branch: string;
  title: string;
  body: string;
  status: string;
  approval_id: string | null;
  error: string | null;
  number: number | null;
  web_url: string | null;
  pr_state: string | null;
  head_sha: string | null;
  pushed_sha: string | null;
  requested_by: string;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

/** CHG-2: a conversation's branch merged into a branch of the user's repository by the server. */
export interface ConversationMergeTable {
  id: string;
  conversation_id: string;
  target_branch: string;
  /** fastForward | mergeCommit */
  kind: string;
  previous_sha: string;
  source_sha: string;
  merged_sha: string;
  operator_id: string;
  created_at: string;
}

/** A question card a run waits on (PostgreSQL: written with the `question.asked` event's commit, deleted with its answer's). */
export interface LiveQuestionTable {
  id: string;
  run_id: string;
  /** JSON: the question as its event carried it. */
  data: string;
  created_at: string;
}

/** The latest presence of an agent (AG-4), as its last `presence.updated` event carried it (PostgreSQL). */
export interface LiveAgentPresenceTable {
  agent_id: string;
  run_id: string | null;
  /** JSON: the presence as its event carried it. */
  data: string;
}

/** A run in progress that is paused (HAR-5, BUD-1): a row from `run.paused` until `run.resumed` or its end (PostgreSQL). */
export interface LiveRunPauseTable {
  run_id: string;
  paused_at: string;
}

/** Where an operator's browser window is looking (AG-4), and when a process last heard from it (PostgreSQL). */
export interface LiveOperatorWindowTable {
  client_id: string;
  operator_id: string;
  space_id: string | null;
  conversation_id: string | null;
  since: string;
  last_seen_ms: number;
}

/** A message waiting for a turn that cannot be steered to end (HAR-5); deleted once its own turn started. */
export interface HeldMessageTable {
  id: string;
  conversation_id: string;
  awaited_run_id: string;
  /** The text as the operator sent it (directives included): it is posted again, as it was. */
  text: string;
  /** The agent the message named by id; null: the conversation's default (or an @name in the text). */
  agent_id: string | null;
  operator_id: string;
  created_at: string;
  /** Which holder claimed it to start it, and when; null while it waits. */
  claimed_by: string | null;
  claimed_at: string | null;
}

/** One row (id 1): bumped by a trigger on every write to the tables a run's preparation keeps reads of (NF-SCALE). */
export interface ConfigVersionTable {
  id: number;
  version: number;
}
