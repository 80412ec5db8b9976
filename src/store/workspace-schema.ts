/** Tables of one workspace's own database file (WS-1: its rows never land in another's file). */
export interface WorkspaceSchema {
  workspace_meta: WorkspaceMetaTable;
  agents: AgentTable;
  runs: RunTable;
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
}
