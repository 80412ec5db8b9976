import { findTeamRoster } from '../../store/repositories/team-repository.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { TeamDirectory } from './node-executors.js';

/**
 * The team directory `team.dispatch` resolves teams through (PIPE-1): the workspace's `teams` /
 * `team_members` tables, which the orchestration materializer fills (ORC-4). The manager is the
 * team's lead — for an orchestration's team, the orchestrator the hires report to (AG-7).
 */
export function workspaceTeamDirectory(workspaces: WorkspaceService): TeamDirectory {
  return async (workspaceId, teamId) => {
    const roster = await findTeamRoster((await workspaces.handle(workspaceId)).database.db, teamId);
    if (!roster) return null;
    return { memberAgentIds: roster.members.map((member) => member.agentId), managerAgentId: roster.managerAgentId };
  };
}
