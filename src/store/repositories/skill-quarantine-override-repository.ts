import type { Kysely, Selectable } from 'kysely';
import type { SkillOverride } from '../../schemas/skill.js';
import type { SkillQuarantineOverrideTable, WorkspaceSchema } from '../workspace-schema.js';

export function toSkillOverride(row: Selectable<SkillQuarantineOverrideTable>): SkillOverride {
  return { id: row.id, reportId: row.report_id, skillName: row.skill_name, computedHash: row.computed_hash, reason: row.reason, createdAt: row.created_at };
}

export async function insertSkillOverride(db: Kysely<WorkspaceSchema>, override: SkillOverride): Promise<void> {
  await db
    .insertInto('skill_quarantine_overrides')
    .values({ id: override.id, report_id: override.reportId, skill_name: override.skillName, computed_hash: override.computedHash, reason: override.reason, created_at: override.createdAt })
    .execute();
}

export async function listSkillOverrides(db: Kysely<WorkspaceSchema>): Promise<SkillOverride[]> {
  return (await db.selectFrom('skill_quarantine_overrides').selectAll().orderBy('created_at').orderBy('id').execute()).map(toSkillOverride);
}
