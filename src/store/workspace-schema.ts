/** Tables of one workspace's own database file (WS-1: its rows never land in another's file). */
export interface WorkspaceSchema {
  workspace_meta: WorkspaceMetaTable;
  agents: AgentTable;
  runs: RunTable;
  spaces: SpaceTable;
  conversations: ConversationTable;
  policy_rules: PolicyRuleTable;
  messages: MessageTable;
  run_events: RunEventTable;
  tool_calls: ToolCallTable;
  approvals: ApprovalTable;
  workspace_settings: WorkspaceSettingTable;
  plans: PlanTable;
  plan_nodes: PlanNodeTable;
  tickets: TicketTable;
  transport_sessions: TransportSessionTable;
  checkouts: CheckoutTable;
  skill_sources: SkillSourceTable;
  skill_scan_reports: SkillScanReportTable;
  installed_skills: InstalledSkillTable;
  skill_quarantine_overrides: SkillQuarantineOverrideTable;
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
  created_at: string;
  updated_at: string;
}

export interface RunTable {
  id: string;
  agent_id: string;
  space_id: string | null;
  conversation_id: string | null;
  parent_run_id: string | null;
  state: string;
  liveness: string;
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
}

export interface SpaceTable {
  id: string;
  name: string;
  /** `room` for ordinary spaces, `pullRequest` for PR review spaces (created in review, MODE-6). */
  kind: string;
  mode: string;
  autonomy: string;
  default_agent_id: string | null;
  repo_path: string | null;
  created_at: string;
  updated_at: string;
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
}

export interface PolicyRuleTable {
  id: string;
  scope: string;
  /** The space, agent or workspace id the rule belongs to. */
  scope_id: string;
  /** `class`, `command` or `fingerprint`. */
  match_kind: string;
  match_value: string;
  decision: string;
  note: string | null;
  created_at: string;
}

export interface MessageTable {
  id: string;
  conversation_id: string;
  run_id: string | null;
  /** `user`, `assistant`, or `system` (visible lines such as the PLAN-6 failure line). */
  role: string;
  /** `operator`, `agent` or `system`. */
  author_kind: string;
  author_id: string | null;
  mode: string | null;
  picker: string | null;
  content: string;
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
  status: string;
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
  status: string;
  /** JSON of the submitted graph. */
  submission: string;
  /** JSON array of validation violations (empty for a valid plan). */
  errors: string;
  /** JSON of the compiled blueprint, set on approval. */
  blueprint: string | null;
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
  state: string;
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
