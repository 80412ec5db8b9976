import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** A team as `team.dispatch` needs it: who gets the prompt, and who manages (PIPE-1). */
export interface TeamRoster {
  id: string;
  name: string;
  /** The team's lead (for an orchestration's team: the orchestrator, AG-7's `reportsTo`). */
  managerAgentId: string | null;
  /** Members by role key (one row per agent, even when it fills several roles). */
  members: Array<{ agentId: string; roleKey: string | null; roleTitle: string | null; hired: boolean }>;
}

/** The team and its members, or null when the workspace has no such team. */
export async function findTeamRoster(db: Kysely<WorkspaceSchema>, teamId: string): Promise<TeamRoster | null> {
  const team = await db.selectFrom('teams').selectAll().where('id', '=', teamId).executeTakeFirst();
  if (!team) return null;
  // A stable order (by role key, then agent) on SQLite and PostgreSQL alike.
  const rows = await db.selectFrom('team_members').selectAll().where('team_id', '=', teamId).orderBy('role_key').orderBy('agent_id').execute();
  return {
    id: team.id,
    name: team.name,
    managerAgentId: team.lead_agent_id,
    members: rows.map((row) => ({ agentId: row.agent_id, roleKey: row.role_key, roleTitle: row.role_title, hired: row.hired === 1 })),
  };
}
