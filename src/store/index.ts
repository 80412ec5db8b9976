export { RegistryStore } from './registry-store.js';
export { WorkspaceDatabase, WORKSPACE_DB_FILE } from './workspace-database.js';
export type { RegistrySchema, WorkspaceTable, OperatorTable } from './registry-schema.js';
export type { WorkspaceSchema, AgentTable, RunTable } from './workspace-schema.js';
