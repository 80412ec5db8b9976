import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { CheckoutRecord } from '../../git/git-worktrees.js';
import type { CheckoutTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';
import { reusableQuery } from '../reusable-query.js';

const parseRemotes = jsonColumn(
  'checkouts',
  'remotes_json',
  z.array(z.object({ id: z.string(), name: z.string(), url: z.string(), forwardUrl: z.string() })),
);

/** The one mapper from a `checkouts` row (SEC-3): the facts recorded when the checkout was made. */
export function toCheckoutRecord(row: Selectable<CheckoutTable>): CheckoutRecord {
  return {
    conversationId: row.conversation_id,
    repoPath: row.repo_path,
    sourceGitDir: row.source_git_dir,
    sourceObjectsDir: row.source_objects_dir,
    branch: row.branch,
    baseSha: row.base_sha,
    remotes: parseRemotes(row.remotes_json, row.conversation_id),
    createdAt: row.created_at,
  };
}

/** Read on every run with a repository: compiled once per database. */
const checkoutByKey = reusableQuery((db, conversationId: string) => db.selectFrom('checkouts').selectAll().where('conversation_id', '=', conversationId));

export async function findCheckout(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<CheckoutRecord | null> {
  const [row] = await checkoutByKey(db, conversationId);
  return row ? toCheckoutRecord(row) : null;
}

/** Records a checkout once: a second insert for the same key keeps the first facts (SEC-3). */
export async function insertCheckoutOnce(db: Kysely<WorkspaceSchema>, record: CheckoutRecord): Promise<void> {
  await db
    .insertInto('checkouts')
    .values({
      conversation_id: record.conversationId,
      repo_path: record.repoPath,
      source_git_dir: record.sourceGitDir,
      source_objects_dir: record.sourceObjectsDir,
      branch: record.branch,
      base_sha: record.baseSha,
      remotes_json: JSON.stringify(record.remotes),
      created_at: record.createdAt,
    })
    .onConflict((conflict) => conflict.column('conversation_id').doNothing())
    .execute();
}

/**
 * The records of the linked repositories' checkouts inside a conversation's worktree (SKL-4): keys
 * `<key>/repos/<name>`, by name. (`_` is a LIKE wildcard and may be in `key`: the prefix is checked again.)
 */
export async function findLinkedCheckouts(db: Kysely<WorkspaceSchema>, key: string): Promise<Array<{ name: string; record: CheckoutRecord }>> {
  const prefix = `${key}/repos/`;
  const rows = await db.selectFrom('checkouts').selectAll().where('conversation_id', 'like', `${prefix}%`).orderBy('conversation_id').execute();
  return rows
    .filter((row) => row.conversation_id.startsWith(prefix) && !row.conversation_id.slice(prefix.length).includes('/'))
    .map((row) => ({ name: row.conversation_id.slice(prefix.length), record: toCheckoutRecord(row) }));
}
