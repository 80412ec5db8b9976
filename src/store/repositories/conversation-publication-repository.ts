import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ConversationMerge, ConversationPublication } from '../../schemas/publish.js';
import type { ConversationMergeTable, ConversationPublicationTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';

const PUBLICATION_STATUSES = ['awaitingApproval', 'publishing', 'published', 'rejected', 'failed'] as const;
export type PublicationStatus = (typeof PUBLICATION_STATUSES)[number];
const parseStatus = enumColumn('conversation_publications', 'status', PUBLICATION_STATUSES);
const parseKind = enumColumn('conversation_merges', 'kind', ['fastForward', 'mergeCommit'] as const);

export function toConversationPublication(row: Selectable<ConversationPublicationTable>): ConversationPublication {
  return {
    conversationId: row.conversation_id,
    provider: row.provider,
    owner: row.owner,
    repo: row.repo,
    remoteName: row.remote_name,
    headBranch: row.head_branch,
    baseBranch: row.base_branch,
    title: row.title,
    body: row.body,
    status: parseStatus(row.status, row.conversation_id),
    approvalId: row.approval_id,
    error: row.error,
    // PostgreSQL answers a bigint as a string.
    number: row.number === null ? null : Number(row.number),
    webUrl: row.web_url,
    prState: row.pr_state,
    headSha: row.head_sha,
    requestedBy: row.requested_by,
    publishedAt: row.published_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toConversationMerge(row: Selectable<ConversationMergeTable>): ConversationMerge {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    targetBranch: row.target_branch,
    kind: parseKind(row.kind, row.id),
    previousSha: row.previous_sha,
    sourceSha: row.source_sha,
    mergedSha: row.merged_sha,
    operatorId: row.operator_id,
    createdAt: row.created_at,
  };
}

/** The stored row itself (with the lease of the last push, which the API does not show). */
export async function findPublicationRow(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<Selectable<ConversationPublicationTable> | null> {
  return (await db.selectFrom('conversation_publications').selectAll().where('conversation_id', '=', conversationId).executeTakeFirst()) ?? null;
}

export async function findConversationPublication(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<ConversationPublication | null> {
  const row = await findPublicationRow(db, conversationId);
  return row ? toConversationPublication(row) : null;
}

/** Inserts the conversation's first publication; false when one exists already (the caller then moves it). */
export async function insertPublication(db: Kysely<WorkspaceSchema>, row: ConversationPublicationTable): Promise<boolean> {
  const inserted = await db
    .insertInto('conversation_publications')
    .values(row)
    .onConflict((conflict) => conflict.column('conversation_id').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * Moves a publication from one of `from` to what `changes` says, in one statement: only one caller
 * wins a claim (two approvals, a double click), the others see false.
 */
export async function movePublication(
  db: Kysely<WorkspaceSchema>,
  conversationId: string,
  from: readonly PublicationStatus[],
  changes: Updateable<ConversationPublicationTable>,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('conversation_publications')
    .set({ ...changes, updated_at: now })
    .where('conversation_id', '=', conversationId)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertMerge(db: Kysely<WorkspaceSchema>, row: ConversationMergeTable): Promise<void> {
  await db.insertInto('conversation_merges').values(row).execute();
}

export async function listMerges(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<ConversationMerge[]> {
  const rows = await db.selectFrom('conversation_merges').selectAll().where('conversation_id', '=', conversationId).orderBy('created_at', 'asc').execute();
  return rows.map(toConversationMerge);
}
