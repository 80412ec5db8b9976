import type { Kysely } from 'kysely';
import type { Project } from '../../schemas/project.js';
import type { WorkspaceSchema } from '../workspace-schema.js';

type ProjectRow = { id: string; name: string; goal: string; team_id: string | null; orchestration_id: string | null; created_at: string; conversation_id: string | null; pipeline_run_id: string | null };

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    goal: row.goal,
    teamId: row.team_id,
    orchestrationId: row.orchestration_id,
    conversationId: row.conversation_id,
    pipelineRunId: row.pipeline_run_id,
    createdAt: row.created_at,
  };
}

function projectsQuery(db: Kysely<WorkspaceSchema>) {
  return db
    .selectFrom('projects')
    .leftJoin('orchestrations', 'orchestrations.id', 'projects.orchestration_id')
    .select(['projects.id', 'projects.name', 'projects.goal', 'projects.team_id', 'projects.orchestration_id', 'projects.created_at', 'orchestrations.conversation_id', 'orchestrations.pipeline_run_id']);
}

/** The workspace's projects, newest first, with their orchestration's conversation and run. */
export async function listProjects(db: Kysely<WorkspaceSchema>): Promise<Project[]> {
  return (await projectsQuery(db).orderBy('projects.created_at', 'desc').orderBy('projects.id', 'desc').limit(500).execute()).map(toProject);
}

export async function findProject(db: Kysely<WorkspaceSchema>, projectId: string): Promise<Project | null> {
  const row = await projectsQuery(db).where('projects.id', '=', projectId).executeTakeFirst();
  return row ? toProject(row) : null;
}
