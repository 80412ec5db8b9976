import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { LIVE_FINDING_STATUSES, type FindingAnchor, type HunkMap } from '../../core/review/review-types.js';
import { VerdictView, type GateResult, type Review } from '../../schemas/review.js';
import type { ReviewGateResultTable, ReviewTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';

const parseHunkMap = jsonColumn<HunkMap>('reviews', 'hunk_map', z.record(z.string(), z.array(z.tuple([z.number(), z.number()]))));
const parseVerdict = jsonColumn('reviews', 'verdict_json', VerdictView);

/** The hunk map of a review's current round (REV-2 anchors are checked against it). */
export function hunkMapOf(row: Selectable<ReviewTable>): HunkMap {
  return parseHunkMap(row.hunk_map, row.id);
}

export async function insertReview(db: Kysely<WorkspaceSchema>, row: ReviewTable): Promise<void> {
  await db.insertInto('reviews').values(row).execute();
}

/** The columns a new review round replaces (REV-6 re-review). */
export type ReviewRoundPatch = Pick<ReviewTable, 'base_ref' | 'base_sha' | 'head_sha' | 'merge_base_sha' | 'round' | 'hunk_map' | 'diff' | 'review_md' | 'updated_at'>;

/**
 * Records a new round in one transaction: the review's head and diff move, its published verdict is
 * cleared, and every live finding gets the carry `carryOf` gives its anchor (null when unanchored).
 */
export async function recordReviewRound(
  db: Kysely<WorkspaceSchema>,
  reviewId: string,
  patch: ReviewRoundPatch,
  carryOf: (anchor: FindingAnchor | null) => string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('reviews')
      .set({ ...patch, verdict_json: null, finalized_by: null, finalized_at: null })
      .where('id', '=', reviewId)
      .execute();
    const live = await trx.selectFrom('review_findings').selectAll().where('review_id', '=', reviewId).where('status', 'in', [...LIVE_FINDING_STATUSES]).execute();
    for (const finding of live) {
      const anchor = finding.anchor_path !== null && finding.anchor_start !== null && finding.anchor_end !== null ? { path: finding.anchor_path, startLine: finding.anchor_start, endLine: finding.anchor_end } : null;
      await trx.updateTable('review_findings').set({ carry: carryOf(anchor), updated_at: patch.updated_at }).where('id', '=', finding.id).execute();
    }
  });
}

/** Publishes a verdict (REV-5: the latest publication wins). */
export async function setReviewVerdict(db: Kysely<WorkspaceSchema>, reviewId: string, verdict: VerdictView, finalizedBy: string, now: string): Promise<void> {
  await db.updateTable('reviews').set({ verdict_json: JSON.stringify(verdict), finalized_by: finalizedBy, finalized_at: now, updated_at: now }).where('id', '=', reviewId).execute();
}

/** The one mapper from a `reviews` row to the domain object (the diff text is served separately). */
export function toReview(workspaceId: string, row: Selectable<ReviewTable>): Review {
  const hunkMap = hunkMapOf(row);
  return {
    id: row.id,
    workspaceId,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    repoPath: row.repo_path,
    title: row.title,
    base: row.base_ref,
    head: row.head_ref,
    baseSha: row.base_sha,
    headSha: row.head_sha,
    mergeBaseSha: row.merge_base_sha,
    round: row.round,
    hunkMap,
    filesChanged: Object.keys(hunkMap).length,
    reviewMd: row.review_md,
    verdict: row.verdict_json ? parseVerdict(row.verdict_json, row.id) : null,
    finalizedBy: row.finalized_by,
    finalizedAt: row.finalized_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findReviewRow(db: Kysely<WorkspaceSchema>, reviewId: string): Promise<Selectable<ReviewTable> | null> {
  return (await db.selectFrom('reviews').selectAll().where('id', '=', reviewId).executeTakeFirst()) ?? null;
}

export async function findReviewRowByRepoHead(db: Kysely<WorkspaceSchema>, repoPath: string, headRef: string): Promise<Selectable<ReviewTable> | null> {
  return (await db.selectFrom('reviews').selectAll().where('repo_path', '=', repoPath).where('head_ref', '=', headRef).executeTakeFirst()) ?? null;
}

export async function findReviewRowBySpace(db: Kysely<WorkspaceSchema>, spaceId: string): Promise<Selectable<ReviewTable> | null> {
  return (await db.selectFrom('reviews').selectAll().where('space_id', '=', spaceId).orderBy('created_at', 'desc').executeTakeFirst()) ?? null;
}

export async function listReviewRows(db: Kysely<WorkspaceSchema>): Promise<Array<Selectable<ReviewTable>>> {
  return db.selectFrom('reviews').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
}

export function toGateResult(row: Selectable<ReviewGateResultTable>): GateResult {
  return {
    name: row.name,
    command: row.command,
    headSha: row.head_sha,
    status: row.status as GateResult['status'],
    exitCode: row.exit_code,
    output: row.output,
    ranAt: row.ran_at,
  };
}

export async function listGateResults(db: Kysely<WorkspaceSchema>, reviewId: string, headSha: string): Promise<GateResult[]> {
  return (await db.selectFrom('review_gate_results').selectAll().where('review_id', '=', reviewId).where('head_sha', '=', headSha).orderBy('name').execute()).map(toGateResult);
}

export async function putGateResult(db: Kysely<WorkspaceSchema>, reviewId: string, result: GateResult): Promise<void> {
  const row: ReviewGateResultTable = {
    review_id: reviewId,
    head_sha: result.headSha,
    name: result.name,
    command: result.command,
    status: result.status,
    exit_code: result.exitCode,
    output: result.output,
    ran_at: result.ranAt,
  };
  await db
    .insertInto('review_gate_results')
    .values(row)
    .onConflict((conflict) => conflict.columns(['review_id', 'head_sha', 'name']).doUpdateSet({ command: row.command, status: row.status, exit_code: row.exit_code, output: row.output, ran_at: row.ran_at }))
    .execute();
}

export async function listGateConfigs(db: Kysely<WorkspaceSchema>, repoPath: string): Promise<Array<{ name: string; command: string }>> {
  return db.selectFrom('review_gates').select(['name', 'command']).where('repo_path', '=', repoPath).orderBy('name').execute();
}

/** Replaces a repository's gate commands in one transaction. */
export async function replaceGateConfigs(db: Kysely<WorkspaceSchema>, repoPath: string, gates: ReadonlyArray<{ name: string; command: string }>, now: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('review_gates').where('repo_path', '=', repoPath).execute();
    if (gates.length > 0) await trx.insertInto('review_gates').values(gates.map((gate) => ({ repo_path: repoPath, name: gate.name, command: gate.command, created_at: now }))).execute();
  });
}
