import type { Kysely, Selectable } from 'kysely';
import type { InstalledSkill } from '../../schemas/skill.js';
import type { InstalledSkillTable, WorkspaceSchema } from '../workspace-schema.js';
import { reusableQuery } from '../reusable-query.js';
import { pinnedRead, type ConfigPin } from '../pinned-config-reads.js';

export function toInstalledSkill(row: Selectable<InstalledSkillTable>): InstalledSkill {
  return {
    name: row.name,
    sourceId: row.source_id,
    source: row.source_url,
    sourceType: row.source_type,
    skillPath: row.skill_path,
    ref: row.ref,
    commit: row.commit_sha,
    computedHash: row.computed_hash,
    scanVerdict: row.scan_verdict as InstalledSkill['scanVerdict'],
    rulesVersion: row.rules_version,
    reportId: row.report_id,
    overrideId: row.override_id,
    installedAt: row.installed_at,
  };
}

export async function listInstalledSkills(db: Kysely<WorkspaceSchema>): Promise<InstalledSkill[]> {
  return (await db.selectFrom('installed_skills').selectAll().orderBy('name').execute()).map(toInstalledSkill);
}

/** Read for each of an agent's skills on every run: compiled once per database. */
const installedSkillByName = reusableQuery((db, name: string) => db.selectFrom('installed_skills').selectAll().where('name', '=', name));

export async function findInstalledSkill(db: Kysely<WorkspaceSchema>, name: string): Promise<InstalledSkill | null> {
  const [row] = await installedSkillByName(db, name);
  return row ? toInstalledSkill(row) : null;
}

/** The installed rows of `names` (those installed), by name: one read for all of an agent's skills. */
export async function findInstalledSkills(db: Kysely<WorkspaceSchema>, names: readonly string[], pin?: ConfigPin): Promise<Map<string, InstalledSkill>> {
  if (names.length === 0) return new Map();
  // `pin`: kept across runs while the configuration's version holds (see pinnedRead); NUL cannot be in a skill name.
  return pinnedRead(pin, db, `installed-skills:${names.join('\0')}`, async () => {
    const rows = await db.selectFrom('installed_skills').selectAll().where('name', 'in', names).execute();
    return new Map(rows.map((row) => [row.name, toInstalledSkill(row)]));
  });
}

/** Inserts or replaces the row of one installed skill. */
export async function upsertInstalledSkill(db: Kysely<WorkspaceSchema>, skill: InstalledSkill): Promise<void> {
  const values = {
    name: skill.name,
    source_id: skill.sourceId,
    source_url: skill.source,
    source_type: skill.sourceType,
    skill_path: skill.skillPath,
    ref: skill.ref,
    commit_sha: skill.commit,
    computed_hash: skill.computedHash,
    scan_verdict: skill.scanVerdict,
    rules_version: skill.rulesVersion,
    report_id: skill.reportId,
    override_id: skill.overrideId,
    installed_at: skill.installedAt,
  };
  await db
    .insertInto('installed_skills')
    .values(values)
    .onConflict((conflict) => conflict.column('name').doUpdateSet(values))
    .execute();
}
