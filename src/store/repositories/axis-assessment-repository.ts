import type { Kysely, Selectable } from 'kysely';
import type { AxisAssessment } from '../../schemas/review.js';
import type { ReviewAxisAssessmentTable, WorkspaceSchema } from '../workspace-schema.js';

export function toAxisAssessment(row: Selectable<ReviewAxisAssessmentTable>): AxisAssessment {
  return {
    id: row.id,
    reviewId: row.review_id,
    headSha: row.head_sha,
    axis: row.axis,
    assessment: row.assessment === 'fail' ? 'fail' : 'pass',
    basis: row.basis,
    assessor: { kind: row.assessor_kind === 'agent' ? 'agent' : 'operator', id: row.assessor_id },
    by: row.assessor_name,
    runId: row.run_id,
    createdAt: row.created_at,
  };
}

export async function insertAxisAssessment(db: Kysely<WorkspaceSchema>, row: ReviewAxisAssessmentTable): Promise<void> {
  await db.insertInto('review_axis_assessments').values(row).execute();
}

/** A review's assessments of one head, oldest first (every head's when `headSha` is omitted). */
export async function listAxisAssessments(db: Kysely<WorkspaceSchema>, reviewId: string, headSha?: string): Promise<AxisAssessment[]> {
  let query = db.selectFrom('review_axis_assessments').selectAll().where('review_id', '=', reviewId);
  if (headSha !== undefined) query = query.where('head_sha', '=', headSha);
  return (await query.orderBy('created_at').orderBy('id').execute()).map(toAxisAssessment);
}
