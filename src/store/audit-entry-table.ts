/**
 * TEAM-3: one row of an append-only audit log. The same shape lives in each workspace's own database
 * (acts on the workspace's rows, written in the act's own transaction) and in the registry (acts on
 * people: roles, invitations, tokens, sessions — also written in the act's transaction), so one
 * repository reads and writes both.
 */
export interface AuditEntryTable {
  id: string;
  /** Dotted kind of act, e.g. `policy.rule_added`, `approval.approved`, `person.role_changed`. */
  kind: string;
  /** person | agent | system */
  actor_kind: string;
  /** The person's or the agent's id; null for the system. */
  actor_id: string | null;
  /** The actor's name at the time of the act (a later rename does not rewrite history). */
  actor_name: string;
  /** The workspace the act concerns; null for acts on oneself alone (a personal token, a session). */
  workspace_id: string | null;
  space_id: string | null;
  conversation_id: string | null;
  /** What the act was about: `rule`, `approval`, `person`, … and its id. */
  subject_type: string | null;
  subject_id: string | null;
  summary: string;
  /** JSON object of further facts (never a secret: a key's provider, not its value). */
  details: string;
  created_at: string;
}
