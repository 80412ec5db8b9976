/** Tables of the registry database (one per data root): which workspaces exist, and the operators. */
export interface RegistrySchema {
  workspaces: WorkspaceTable;
  operators: OperatorTable;
  people: PersonTable;
  person_tokens: PersonTokenTable;
  workspace_members: WorkspaceMemberTable;
  invitations: InvitationTable;
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
