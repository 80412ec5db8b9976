import type { Kysely, Selectable } from 'kysely';
import { SkillScanRecord } from '../../schemas/skill.js';
import type { SkillScanReportTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';

const parseReport = jsonColumn('skill_scan_reports', 'report_json', SkillScanRecord.shape.report);

export function toSkillScanRecord(row: Selectable<SkillScanReportTable>): SkillScanRecord {
  return {
    id: row.id,
    sourceId: row.source_id,
    skillName: row.skill_name,
    skillPath: row.skill_path,
    commit: row.commit_sha,
    computedHash: row.computed_hash,
    report: parseReport(row.report_json, row.id),
    createdAt: row.created_at,
  };
}

export async function insertSkillScan(db: Kysely<WorkspaceSchema>, record: SkillScanRecord): Promise<void> {
  await db
    .insertInto('skill_scan_reports')
    .values({
      id: record.id,
      source_id: record.sourceId,
      skill_name: record.skillName,
      skill_path: record.skillPath,
      commit_sha: record.commit,
      computed_hash: record.computedHash,
      verdict: record.report.verdict,
      rules_version: record.report.rulesVersion,
      report_json: JSON.stringify(record.report),
      created_at: record.createdAt,
    })
    .execute();
}

export async function findSkillScan(db: Kysely<WorkspaceSchema>, id: string): Promise<SkillScanRecord | null> {
  const row = await db.selectFrom('skill_scan_reports').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toSkillScanRecord(row) : null;
}

export async function listSkillScans(db: Kysely<WorkspaceSchema>, limit = 100): Promise<SkillScanRecord[]> {
  return (await db.selectFrom('skill_scan_reports').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(toSkillScanRecord);
}
