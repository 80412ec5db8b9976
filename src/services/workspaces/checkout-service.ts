import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { CheckoutRunner } from '../../git/checkout-runner.js';
import type { RefSyncResult } from '../../git/sync-checkout.js';
import type { CommandSandbox } from '../../sandbox/command-sandbox.js';
import { findCheckout, insertCheckoutOnce } from '../../store/repositories/checkout-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import {
  ensureWorktree,
  removeWorktree,
  serializedCheckoutWork,
  syncWorktreeBranch,
  type CheckoutRecord,
  type CheckoutRecords,
  type ConversationWorktree,
  type RemovedWorktree,
} from '../../git/git-worktrees.js';
import type { WorkspaceService } from './workspace-service.js';

/** The workspace database's `checkouts` table as {@link CheckoutRecords}. */
export function databaseCheckoutRecords(db: Kysely<WorkspaceSchema>): CheckoutRecords {
  return { get: (conversationId) => findCheckout(db, conversationId), put: (record) => insertCheckoutOnce(db, record) };
}

/**
 * The conversations' checkouts (HAR-7, SEC-3): made and recorded once per conversation, mounted from
 * the record only, and brought back into the user's repository by the server as `cc/<conversation>`
 * after every run that could write, or on demand ({@link CheckoutService.sync}).
 */
export class CheckoutService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly sandbox: CommandSandbox,
  ) {}

  /** The checkout a run works in (made on first use). `key` is the conversation id, or the run's own id. */
  async ensure(workspaceId: string, key: string, repoPath: string | null): Promise<ConversationWorktree> {
    const handle = await this.workspaces.handle(workspaceId);
    return ensureWorktree({ repoPath, worktreesDir: join(handle.dir, 'worktrees'), conversationId: key, records: databaseCheckoutRecords(handle.database.db) });
  }

  /**
   * Checks out each repository a space links under `repos/<name>/` of the conversation's worktree
   * (SKL-4), made and recorded once like the worktree itself (record key `<key>/repos/<name>`, branch
   * `cc/<key>` in the linked repository). A `repos` or `repos/<name>` the agent replaced with a link
   * or a file is never followed: that repository is skipped and named in `refused`.
   */
  async ensureLinked(workspaceId: string, key: string, worktreePath: string, links: ReadonlyArray<{ name: string; repoPath: string }>): Promise<{ ready: string[]; refused: Array<{ name: string; reason: string }> }> {
    const handle = await this.workspaces.handle(workspaceId);
    const records = databaseCheckoutRecords(handle.database.db);
    const ready: string[] = [];
    const refused: Array<{ name: string; reason: string }> = [];
    const reposDir = join(worktreePath, 'repos');
    for (const link of links) {
      const problem = (await notPlainDirectory(reposDir)) ?? (await notPlainDirectory(join(reposDir, link.name)));
      if (problem) {
        refused.push({ name: link.name, reason: problem });
        continue;
      }
      const recordKey = `${key}/repos/${link.name}`;
      const scoped: CheckoutRecords = {
        get: async () => {
          const record = await records.get(recordKey);
          return record ? { ...record, conversationId: link.name } : null;
        },
        put: (record) => records.put({ ...record, conversationId: recordKey }),
      };
      try {
        await ensureWorktree({ repoPath: link.repoPath, worktreesDir: reposDir, conversationId: link.name, branchKey: key, records: scoped });
        ready.push(link.name);
      } catch (error) {
        refused.push({ name: link.name, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return { ready, refused };
  }

  /**
   * Removes the checkout of a linked repository (`repos/<name>/` of the conversation's worktree) when
   * the space unlinks it (SKL-4), like {@link remove}: its branch is brought over and uncommitted work
   * checkpointed into that repository first (HAR-7). Null when it was never checked out.
   */
  async removeLinked(workspaceId: string, key: string, name: string): Promise<RemovedWorktree | null> {
    const handle = await this.workspaces.handle(workspaceId);
    const records = databaseCheckoutRecords(handle.database.db);
    const recordKey = `${key}/repos/${name}`;
    const record = await records.get(recordKey);
    if (!record) return null;
    const scoped: CheckoutRecords = { get: async () => ({ ...record, conversationId: name }), put: () => Promise.resolve() };
    return removeWorktree({ repoPath: record.repoPath, worktreesDir: join(handle.dir, 'worktrees', key, 'repos'), conversationId: name, records: scoped, runner: await this.runner(workspaceId, record) });
  }

  /** The server's record of a conversation's checkout, or null (no repository, or none made yet). */
  async record(workspaceId: string, key: string): Promise<CheckoutRecord | null> {
    const handle = await this.workspaces.handle(workspaceId);
    return databaseCheckoutRecords(handle.database.db).get(key);
  }

  /** Runs git in a checkout inside its sandbox (see {@link CommandSandbox.checkoutRunner}). */
  async runner(workspaceId: string, record: CheckoutRecord): Promise<CheckoutRunner> {
    const handle = await this.workspaces.handle(workspaceId);
    return this.sandbox.checkoutRunner({ worktreePath: join(handle.dir, 'worktrees', record.conversationId), sharedObjectsDir: record.sourceObjectsDir, workspaceDir: handle.dir });
  }

  /**
   * Brings the checkout's branch into the user's repository as `refs/heads/cc/<key>` (SEC-3). Null
   * when the conversation has no git checkout. Never throws for what the agent did to its checkout
   * (a deleted branch, a broken `.git`): the result says why nothing was brought over. `known`: the
   * record the caller already holds (a run's, from {@link ensure}); records are written once and never
   * change, so it is the one the database would give (issue 11: no second read per turn).
   */
  async sync(workspaceId: string, key: string, known?: CheckoutRecord): Promise<RefSyncResult | null> {
    const record = known?.conversationId === key ? known : await this.record(workspaceId, key);
    if (!record) return null;
    const handle = await this.workspaces.handle(workspaceId);
    const directory = join(handle.dir, 'worktrees', key);
    const runner = await this.runner(workspaceId, record);
    return serializedCheckoutWork(directory, () => syncWorktreeBranch(record, runner, { worktreePath: directory }));
  }

  /** Removes a conversation's checkout after bringing its branch over and checkpointing any uncommitted work (HAR-7). */
  async remove(workspaceId: string, key: string, repoPath: string | null): Promise<RemovedWorktree> {
    const handle = await this.workspaces.handle(workspaceId);
    const records = databaseCheckoutRecords(handle.database.db);
    const record = await records.get(key);
    return removeWorktree({
      repoPath: record?.repoPath ?? repoPath,
      worktreesDir: join(handle.dir, 'worktrees'),
      conversationId: key,
      records,
      ...(record ? { runner: await this.runner(workspaceId, record) } : {}),
    });
  }
}

/** Why a path the server is about to create a checkout in is not a plain directory (a link or a file), or null (plain or absent). */
async function notPlainDirectory(path: string): Promise<string | null> {
  const stat = await lstat(path).catch(() => null);
  if (!stat || stat.isDirectory()) return null;
  return `${path} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; the server does not check out through it`;
}
