import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { CheckoutRunner } from '../../git/checkout-runner.js';
import type { RefSyncResult } from '../../git/sync-checkout.js';
import type { CommandSandbox } from '../../sandbox/command-sandbox.js';
import { findCheckout, findLinkedCheckouts, insertCheckoutOnce } from '../../store/repositories/checkout-repository.js';
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
import { statOrNull } from '../../worktree/stat-or-null.js';

/** A linked repository's branch brought over after a run (SKL-4), or why it was not. */
export type LinkedSyncResult = RefSyncResult & { repository: string };

/** What became of a linked repository's checkout asked to go (SKL-4): removed as {@link removeWorktree} does, or refused and left untouched. */
export type LinkedRemoval = (RemovedWorktree & { refused: null }) | { path: string; removed: false; checkpointRef: null; archivedPath: null; refused: string };

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
  async removeLinked(workspaceId: string, key: string, name: string): Promise<LinkedRemoval | null> {
    const handle = await this.workspaces.handle(workspaceId);
    const records = databaseCheckoutRecords(handle.database.db);
    const recordKey = `${key}/repos/${name}`;
    const record = await records.get(recordKey);
    if (!record) return null;
    const worktreePath = join(handle.dir, 'worktrees', key);
    // The agent may have replaced `repos`, `repos/<name>` or its `.git` with a link out: git would then
    // run, and the folder be deleted, wherever it points. Nothing is touched through it.
    const state = await linkedCheckoutState(worktreePath, name);
    if (state.kind === 'refused') return { path: join(worktreePath, 'repos', name), removed: false, checkpointRef: null, archivedPath: null, refused: state.reason };
    const scoped: CheckoutRecords = { get: async () => ({ ...record, conversationId: name }), put: () => Promise.resolve() };
    const removed = await removeWorktree({ repoPath: record.repoPath, worktreesDir: join(worktreePath, 'repos'), conversationId: name, records: scoped, runner: await this.runner(workspaceId, record) });
    return { ...removed, refused: null };
  }

  /**
   * Brings each linked repository's checkout branch (`repos/<name>/` of the conversation's worktree)
   * into that repository as `refs/heads/cc/<key>` (SKL-4, SEC-3), like {@link sync} does for the
   * worktree itself: each is its own repository with its own record. A `repos`, `repos/<name>` or
   * `repos/<name>/.git` that is a link or not a directory is refused and named, and git never runs
   * through it. Empty when the worktree has no `repos` folder.
   */
  async syncLinked(workspaceId: string, key: string): Promise<LinkedSyncResult[]> {
    const handle = await this.workspaces.handle(workspaceId);
    const worktreePath = join(handle.dir, 'worktrees', key);
    // Checked after every writing run, and nearly always absent: one synchronous lstat.
    if (!statOrNull(join(worktreePath, 'repos'), 'noFollow')) return [];
    const results: LinkedSyncResult[] = [];
    for (const { name, record } of await findLinkedCheckouts(handle.database.db, key)) {
      const directory = join(worktreePath, 'repos', name);
      const ref = `refs/heads/${record.branch}`;
      const state = await linkedCheckoutState(worktreePath, name);
      if (state.kind === 'absent') continue;
      if (state.kind === 'refused') {
        results.push({ repository: name, synced: false, ref, reason: state.reason });
        continue;
      }
      const runner = await this.runner(workspaceId, record);
      const synced = await serializedCheckoutWork(directory, () => syncWorktreeBranch(record, runner)).catch((error: unknown): RefSyncResult => ({ synced: false, ref, reason: error instanceof Error ? error.message : String(error) }));
      results.push({ repository: name, ...synced });
    }
    return results;
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
   * change, so it is the one the database would give (no second read per turn).
   */
  async sync(workspaceId: string, key: string, known?: CheckoutRecord): Promise<RefSyncResult | null> {
    const record = known?.conversationId === key ? known : await this.record(workspaceId, key);
    if (!record) return null;
    const handle = await this.workspaces.handle(workspaceId);
    const directory = join(handle.dir, 'worktrees', key);
    const runner = await this.runner(workspaceId, record);
    return serializedCheckoutWork(directory, () => syncWorktreeBranch(record, runner, { worktreePath: directory }));
  }

  /**
   * Removes a conversation's checkout after bringing its branch over and checkpointing any uncommitted
   * work (HAR-7) — first each linked repository's checkout under `repos/<name>/`, into its own
   * repository ({@link removeLinked}; a refused one is named in `linked` and never followed: removing
   * the worktree then unlinks the link itself, never what it points to).
   */
  async remove(workspaceId: string, key: string, repoPath: string | null): Promise<RemovedWorktree & { linked: Array<{ repository: string } & LinkedRemoval> }> {
    const handle = await this.workspaces.handle(workspaceId);
    const records = databaseCheckoutRecords(handle.database.db);
    const linked: Array<{ repository: string } & LinkedRemoval> = [];
    for (const { name } of await findLinkedCheckouts(handle.database.db, key)) {
      const removal = await this.removeLinked(workspaceId, key, name);
      if (removal) linked.push({ repository: name, ...removal });
    }
    const record = await records.get(key);
    const removed = await removeWorktree({
      repoPath: record?.repoPath ?? repoPath,
      worktreesDir: join(handle.dir, 'worktrees'),
      conversationId: key,
      records,
      ...(record ? { runner: await this.runner(workspaceId, record) } : {}),
    });
    return { ...removed, linked };
  }
}

/**
 * Whether the server may run git in, or delete, the linked checkout `repos/<name>/` of a worktree
 * (SKL-4): refused when `repos` or `repos/<name>` is a link or not a directory, or
 * `repos/<name>/.git` is not a directory of its own (a link, or a `gitdir:` file naming another
 * repository); absent when the folder is not there (nothing to do).
 */
async function linkedCheckoutState(worktreePath: string, name: string): Promise<{ kind: 'plain' | 'absent' } | { kind: 'refused'; reason: string }> {
  const reposDir = join(worktreePath, 'repos');
  const directory = join(reposDir, name);
  const refused = (reason: string) => ({ kind: 'refused' as const, reason });
  const outer = await notPlainDirectory(reposDir);
  if (outer) return refused(outer);
  if (!(await lstat(directory).catch(() => null))) return { kind: 'absent' };
  const own = await notPlainDirectory(directory);
  if (own) return refused(own);
  const gitDir = await lstat(join(directory, '.git')).catch(() => null);
  if (!gitDir) return refused(`${directory} has no .git directory; the server does not run git in it`);
  if (!gitDir.isDirectory()) return refused(`${join(directory, '.git')} is ${gitDir.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; the server does not run git through it`);
  return { kind: 'plain' };
}

/** Why a path the server is about to create a checkout in is not a plain directory (a link or a file), or null (plain or absent). */
async function notPlainDirectory(path: string): Promise<string | null> {
  const stat = await lstat(path).catch(() => null);
  if (!stat || stat.isDirectory()) return null;
  return `${path} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; the server does not check out through it`;
}
