import type { Kysely, Selectable } from 'kysely';
import { PUBLICATION_STATUSES, type ForgeLink, type ReviewPublication } from '../../schemas/review.js';
import type { ReviewForgeLinkTable, ReviewPublicationTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';

const parseStatus = enumColumn('review_publications', 'status', PUBLICATION_STATUSES);
const parseEvent = enumColumn('review_publications', 'event', ['APPROVE', 'REQUEST_CHANGES', 'COMMENT'] as const);

export function toForgeLink(row: Selectable<ReviewForgeLinkTable>): ForgeLink {
  return { provider: row.provider, owner: row.owner, repo: row.repo, number: row.number, webUrl: row.web_url };
}

export function toPublication(row: Selectable<ReviewPublicationTable>): ReviewPublication {
  return {
    id: row.id,
    reviewId: row.review_id,
    headSha: row.head_sha,
    status: parseStatus(row.status, row.id),
    event: parseEvent(row.event, row.id),
    approvalId: row.approval_id,
    forgeReviewId: row.forge_review_id,
    commentCount: row.comment_count,
    error: row.error,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Records (or keeps) the pull request a review came from; a review's link never changes. */
export async function putForgeLink(db: Kysely<WorkspaceSchema>, row: ReviewForgeLinkTable): Promise<void> {
  await db.insertInto('review_forge_links').values(row).onConflict((conflict) => conflict.column('review_id').doNothing()).execute();
}

export async function findForgeLink(db: Kysely<WorkspaceSchema>, reviewId: string): Promise<ForgeLink | null> {
  const row = await db.selectFrom('review_forge_links').selectAll().where('review_id', '=', reviewId).executeTakeFirst();
  return row ? toForgeLink(row) : null;
}

/** The publication of one head, or the review's latest when `headSha` is omitted. */
export async function findPublication(db: Kysely<WorkspaceSchema>, reviewId: string, headSha?: string): Promise<ReviewPublication | null> {
  let query = db.selectFrom('review_publications').selectAll().where('review_id', '=', reviewId);
  if (headSha !== undefined) query = query.where('head_sha', '=', headSha);
  const row = await query.orderBy('created_at', 'desc').executeTakeFirst();
  return row ? toPublication(row) : null;
}

export async function findPublicationById(db: Kysely<WorkspaceSchema>, publicationId: string): Promise<ReviewPublication | null> {
  const row = await db.selectFrom('review_publications').selectAll().where('id', '=', publicationId).executeTakeFirst();
  return row ? toPublication(row) : null;
}

/** Inserts a publication unless one exists for the same review and head (the unique index decides); returns the stored one. */
export async function claimPublication(db: Kysely<WorkspaceSchema>, row: ReviewPublicationTable): Promise<{ publication: ReviewPublication; created: boolean }> {
  const inserted = await db
    .insertInto('review_publications')
    .values(row)
    .onConflict((conflict) => conflict.columns(['review_id', 'head_sha']).doNothing())
    .executeTakeFirst();
  const created = Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  return { publication: (await findPublication(db, row.review_id, row.head_sha))!, created };
}

export type PublicationPatch = Partial<Pick<ReviewPublicationTable, 'status' | 'event' | 'approval_id' | 'forge_review_id' | 'comment_count' | 'error' | 'requested_by'>>;

/** Moves a publication on, only from one of `from` (so two deciders cannot both send). Returns whether it moved. */
export async function movePublication(db: Kysely<WorkspaceSchema>, publicationId: string, from: readonly string[], patch: PublicationPatch, now: string): Promise<boolean> {
  const result = await db
    .updateTable('review_publications')
    .set({ ...patch, updated_at: now })
    .where('id', '=', publicationId)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
