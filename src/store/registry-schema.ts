/** Tables of the registry database (one per data root): which workspaces exist, and the operators. */
export interface RegistrySchema {
  workspaces: WorkspaceTable;
  operators: OperatorTable;
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
