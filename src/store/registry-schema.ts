import type { AuditEntryTable } from './audit-entry-table.js';
import type { OidcIdentityTable, OidcPendingSignInTable, OidcSettingsTable } from './oidc-tables.js';
import type { BrowserSessionTable, SingleUseCodeTable } from './browser-session-tables.js';
import type { ClusterSecretTable } from './cluster-secret-table.js';

/** Tables of the registry database (one per data root): which workspaces exist, and the operators. */
export interface RegistrySchema {
  workspaces: WorkspaceTable;
  operators: OperatorTable;
  people: PersonTable;
  person_tokens: PersonTokenTable;
  workspace_members: WorkspaceMemberTable;
  invitations: InvitationTable;
  notification_settings: NotificationSettingsTable;
  notification_channels: NotificationChannelTable;
  notification_deliveries: NotificationDeliveryTable;
  notification_attempts: NotificationAttemptTable;
  oidc_settings: OidcSettingsTable;
  oidc_identities: OidcIdentityTable;
  oidc_pending_sign_ins: OidcPendingSignInTable;
  audit_entries: AuditEntryTable;
  browser_sessions: BrowserSessionTable;
  single_use_codes: SingleUseCodeTable;
  cluster_secrets: ClusterSecretTable;
}

export interface WorkspaceTable {
  id: string;
  name: string;
  data_dir: string;
  /** ISO time the background seeding finished; null while it is pending (re-run on start). */
  seeded_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface OperatorTable {
  id: string;
  name: string;
  /** sha256 of the bearer token; the token itself is only ever in the operator-token file. */
  token_hash: string;
  created_at: string;
}

/** TEAM-1: a person with an account. The first one (made on first start) is the owner. */
export interface PersonTable {
  id: string;
  name: string;
  email: string | null;
  avatar_url: string | null;
  /** 1 for the owner (manages people; every role in every workspace). Numbers: bigint on PostgreSQL. */
  is_owner: number | string;
  created_at: string;
  /** Set when the owner removed the person: every credential of theirs stops working. */
  removed_at: string | null;
}

/** A personal API token: only its sha256 is kept; a read-only one acts as a viewer everywhere. */
export interface PersonTokenTable {
  id: string;
  person_id: string;
  name: string;
  token_hash: string;
  read_only: number | string;
  created_at: string;
  revoked_at: string | null;
}

/** A person's role in one workspace (TEAM-2): admin, member or viewer. */
export interface WorkspaceMemberTable {
  workspace_id: string;
  person_id: string;
  role: string;
  created_at: string;
  updated_at: string;
}

/** A one-time invitation link into a workspace with a role; the code is kept by its hash only. */
export interface InvitationTable {
  id: string;
  code_hash: string;
  workspace_id: string;
  role: string;
  email: string | null;
  invited_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  used_by: string | null;
}

/** NTF-1: the server's notification settings (one row, id `server`); passwords and keys are write-only. */
export interface NotificationSettingsTable {
  id: string;
  public_url: string | null;
  /** 1 when the owner allows webhook and push targets on loopback or private addresses. */
  allow_private_targets: number | string;
  smtp_host: string | null;
  smtp_port: number | string | null;
  smtp_secure: number | string;
  smtp_user: string | null;
  smtp_password: string | null;
  smtp_from: string | null;
  vapid_public_key: string | null;
  vapid_private_key: string | null;
  updated_at: string;
}

/** One person's channel: `target` is the webhook URL, the email address or the push subscription (JSON). */
export interface NotificationChannelTable {
  id: string;
  person_id: string;
  kind: string;
  name: string;
  target: string;
  /** The webhook's signing secret (write-only); null for other kinds. */
  secret: string | null;
  /** JSON array of the notification kinds this channel receives. */
  events: string;
  created_at: string;
  updated_at: string;
}

/** One event sent (or being sent) to one channel; `status` is pending, delivered or failed. */
export interface NotificationDeliveryTable {
  id: string;
  channel_id: string;
  person_id: string;
  workspace_id: string | null;
  event_key: string;
  kind: string;
  title: string;
  link: string;
  status: string;
  attempts: number | string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** One attempt at a delivery: the delivery log a person reads in Settings. */
export interface NotificationAttemptTable {
  id: string;
  delivery_id: string;
  attempt: number | string;
  ok: number | string;
  http_status: number | string | null;
  error: string | null;
  at: string;
}
