import type { Kysely, Selectable } from 'kysely';
import type { SkillSource } from '../../schemas/skill.js';
import type { SkillSourceTable, WorkspaceSchema } from '../workspace-schema.js';

export function toSkillSource(row: Selectable<SkillSourceTable>): SkillSource {
  return { id: row.id, url: row.url, sourceType: row.source_type, createdAt: row.created_at };
}

export async function listSkillSources(db: Kysely<WorkspaceSchema>): Promise<SkillSource[]> {
  return (await db.selectFrom('skill_sources').selectAll().orderBy('created_at').orderBy('id').execute()).map(toSkillSource);
}

export async function findSkillSource(db: Kysely<WorkspaceSchema>, id: string): Promise<SkillSource | null> {
  const row = await db.selectFrom('skill_sources').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toSkillSource(row) : null;
}

export async function findSkillSourceByUrl(db: Kysely<WorkspaceSchema>, url: string): Promise<SkillSource | null> {
  const row = await db.selectFrom('skill_sources').selectAll().where('url', '=', url).executeTakeFirst();
  return row ? toSkillSource(row) : null;
}

export async function insertSkillSource(db: Kysely<WorkspaceSchema>, source: SkillSource): Promise<void> {
  await db.insertInto('skill_sources').values({ id: source.id, url: source.url, source_type: source.sourceType, created_at: source.createdAt }).execute();
}

export async function deleteSkillSource(db: Kysely<WorkspaceSchema>, id: string): Promise<void> {
  await db.deleteFrom('skill_sources').where('id', '=', id).execute();
}
