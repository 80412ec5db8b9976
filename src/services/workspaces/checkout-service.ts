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
   * (a deleted branch, a broken `.git`): the result says why nothing was brought over.
   */
  async sync(workspaceId: string, key: string): Promise<RefSyncResult | null> {
    const record = await this.record(workspaceId, key);
    if (!record) return null;
    const handle = await this.workspaces.handle(workspaceId);
    const directory = join(handle.dir, 'worktrees', key);
    const runner = await this.runner(workspaceId, record);
    return serializedCheckoutWork(directory, () => syncWorktreeBranch(record, runner));
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
