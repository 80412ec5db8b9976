import type { Kysely, Selectable } from 'kysely';
import { partitionFindings } from '../../core/review/read-finding.js';
import { z } from 'zod';
import { Principal, type Finding } from '../../schemas/review.js';
import type { ReviewFindingTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';

const parseConfirmedBy = jsonColumn('review_findings', 'confirmed_by', z.array(Principal));

/** The one mapper from a `review_findings` row (already past the REV-3 boundary) to the domain object. */
export function toFinding(row: Selectable<ReviewFindingTable> & { priority: string; confidence: number }): Finding {
  return {
    id: row.id,
    reviewId: row.review_id,
    round: row.round,
    type: row.type as Finding['type'],
    priority: row.priority as Finding['priority'],
    confidence: row.confidence,
    body: row.body,
    anchor: row.anchor_path !== null && row.anchor_start !== null && row.anchor_end !== null ? { path: row.anchor_path, startLine: row.anchor_start, endLine: row.anchor_end } : null,
    axis: row.axis,
    status: row.status as Finding['status'],
    carry: row.carry as Finding['carry'],
    author: { kind: row.author_kind as 'agent' | 'operator', id: row.author_id },
    runId: row.run_id,
    confirmedBy: parseConfirmedBy(row.confirmed_by, row.id),
    statusReason: row.status_reason,
    statusBy: row.status_by,
    resolvedRound: row.resolved_round,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A review's findings read through the REV-3 boundary: rows lacking a priority or confidence, or with
 * either out of range, are dropped and counted instead of reaching the verdict.
 */
export async function readFindings(db: Kysely<WorkspaceSchema>, reviewId: string): Promise<{ findings: Finding[]; dropped: number }> {
  const rows = await db.selectFrom('review_findings').selectAll().where('review_id', '=', reviewId).orderBy('created_at').orderBy('id').execute();
  const { kept, dropped } = partitionFindings(rows);
  return { findings: kept.map(toFinding), dropped };
}

export async function findFindingRow(db: Kysely<WorkspaceSchema>, findingId: string): Promise<Selectable<ReviewFindingTable> | null> {
  return (await db.selectFrom('review_findings').selectAll().where('id', '=', findingId).executeTakeFirst()) ?? null;
}

export async function insertFinding(db: Kysely<WorkspaceSchema>, row: ReviewFindingTable): Promise<void> {
  await db.insertInto('review_findings').values(row).execute();
}

export async function updateFindingRow(
  db: Kysely<WorkspaceSchema>,
  findingId: string,
  change: Partial<Pick<ReviewFindingTable, 'status' | 'confirmed_by' | 'status_reason' | 'status_by' | 'resolved_round' | 'carry' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('review_findings').set(change).where('id', '=', findingId).execute();
}
