import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors/conflict-error.js';
import { ValidationError } from '../../src/errors/validation-error.js';
import type { CheckoutRunner } from '../../src/git/checkout-runner.js';
import { CommandSandbox } from '../../src/sandbox/command-sandbox.js';
import {
  checkpointWorktree,
  ensureWorktree as ensureWithRecords,
  listCheckpoints,
  memoryCheckoutRecords,
  removeWorktree as removeWithRecords,
  syncWorktreeBranch,
  type CheckoutRecord,
  type CheckoutRecords,
  type EnsureWorktreeOptions,
  type RemoveWorktreeOptions,
} from '../../src/git/git-worktrees.js';
import { makeTempDir } from '../support/tool-test-support.js';

const IDENTITY = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false'];

function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env };
  delete env.GIT_DIR;
  delete env.GIT_WORK_TREE;
  delete env.GIT_INDEX_FILE;
  return execFileSync('git', [...IDENTITY, ...args], { cwd, env, encoding: 'utf8' }).trim();
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

let base: { path: string; cleanup: () => Promise<void> };
let repo: string;
let worktreesDir: string;
let firstCommit: string;
let records: CheckoutRecords;
/** Git in a checkout runs in the host's sandbox when it has one (the same path the server takes). */
const sandbox = new CommandSandbox({ sandbox: 'auto' });

function runnerFor(record: CheckoutRecord): CheckoutRunner {
  return sandbox.checkoutRunner({ worktreePath: join(worktreesDir, record.conversationId), sharedObjectsDir: record.sourceObjectsDir, workspaceDir: worktreesDir });
}

const ensureWorktree = (options: EnsureWorktreeOptions) => ensureWithRecords({ records, ...options });
async function removeWorktree(options: RemoveWorktreeOptions) {
  const record = await records.get(options.conversationId);
  return removeWithRecords({ records, ...(record ? { runner: runnerFor(record) } : {}), ...options });
}

beforeEach(async () => {
  base = await makeTempDir('cc-git-');
  repo = join(base.path, 'repo');
  worktreesDir = join(base.path, 'worktrees');
  records = memoryCheckoutRecords();
  await mkdir(repo);
  git(repo, 'init', '--quiet', '--initial-branch=main');
  await writeFile(join(repo, 'a.txt'), 'original\n');
  await writeFile(join(repo, 'b.txt'), 'to be deleted\n');
  await writeFile(join(repo, '.gitignore'), '*.log\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'first');
  firstCommit = git(repo, 'rev-parse', 'HEAD');
  await writeFile(join(repo, 'a.txt'), 'second version\n');
  git(repo, 'commit', '--quiet', '-am', 'second');
});

afterEach(async () => {
  await base.cleanup();
});

describe('ensureWorktree (HAR-7, SEC-3)', () => {
  it('creates a checkout of its own on branch cc/<conversationId> from HEAD, records it, and reuses it', async () => {
    const refsBefore = git(repo, 'for-each-ref');
    const created = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_1' });
    expect(created).toMatchObject({ path: join(worktreesDir, 'conv_1'), kind: 'git', branch: 'cc/conv_1', created: true });
    expect(created.checkout).toMatchObject({ conversationId: 'conv_1', repoPath: repo, branch: 'cc/conv_1', baseSha: git(repo, 'rev-parse', 'main'), remotes: [] });
    expect(await records.get('conv_1')).toEqual(created.checkout);
    expect(await readFile(join(created.path, 'a.txt'), 'utf8')).toBe('second version\n');
    expect(git(created.path, 'rev-parse', 'HEAD')).toBe(git(repo, 'rev-parse', 'main'));
    expect(git(created.path, 'symbolic-ref', '--short', 'HEAD')).toBe('cc/conv_1');
    // The checkout's git metadata is its own; the source's objects are shared, not copied.
    expect(git(created.path, 'rev-parse', '--path-format=absolute', '--git-common-dir')).toBe(join(created.path, '.git'));
    expect((await readFile(join(created.path, '.git', 'objects', 'info', 'alternates'), 'utf8')).trim()).toBe(created.checkout!.sourceObjectsDir);
    // Making it changed nothing in the user's repository: no branch, no registered worktree.
    expect(git(repo, 'for-each-ref')).toBe(refsBefore);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('conv_1');

    await writeFile(join(created.path, 'work.txt'), 'in progress');
    const reused = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_1' });
    expect(reused).toEqual({ ...created, created: false });
    expect(await readFile(join(created.path, 'work.txt'), 'utf8')).toBe('in progress');
  });

  it('starts from baseRef when given', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv-base', baseRef: firstCommit });
    expect(git(worktree.path, 'rev-parse', 'HEAD')).toBe(firstCommit);
    expect(await readFile(join(worktree.path, 'a.txt'), 'utf8')).toBe('original\n');
  });

  it('refuses unsafe conversation ids and bad base refs', async () => {
    await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: '../escape' })).rejects.toBeInstanceOf(ValidationError);
    await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: '-x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'c1', baseRef: '--orphan' })).rejects.toBeInstanceOf(ValidationError);
    await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'c1', baseRef: 'no-such-branch' })).rejects.toMatchObject({
      field: 'baseRef',
    });
  });

  it('copies the source repository\'s remotes into the checkout and records them', async () => {
    const remote = join(base.path, 'remote.git');
    git(base.path, 'init', '--quiet', '--bare', remote);
    git(repo, 'remote', 'add', 'origin', remote);
    const created = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_remotes' });
    expect(created.checkout!.remotes.map((entry) => [entry.name, entry.forwardUrl])).toEqual([['origin', remote]]);
    expect(git(created.path, 'remote', 'get-url', 'origin')).toBe(remote);
    expect(git(created.path, 'remote')).toBe('origin');
  });

  it('brings the conversation branch into the user\'s repository as cc/<conversationId>, and nothing else', async () => {
    const created = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_sync' });
    const mainBefore = git(repo, 'rev-parse', 'main');
    // Nothing new yet: the branch appears at its base.
    expect(await syncWorktreeBranch(created.checkout!, runnerFor(created.checkout!))).toEqual({ synced: true, ref: 'refs/heads/cc/conv_sync', sha: mainBefore });
    await writeFile(join(created.path, 'agent.txt'), 'agent work\n');
    git(created.path, 'add', 'agent.txt');
    git(created.path, 'commit', '--quiet', '-m', 'agent commit');
    git(created.path, 'update-ref', 'refs/heads/main', git(created.path, 'rev-parse', 'HEAD'));
    const synced = await syncWorktreeBranch(created.checkout!, runnerFor(created.checkout!));
    expect(synced).toEqual({ synced: true, ref: 'refs/heads/cc/conv_sync', sha: git(created.path, 'rev-parse', 'HEAD') });
    expect(git(repo, 'log', '-1', '--format=%s', 'cc/conv_sync')).toBe('agent commit');
    expect(git(repo, 'rev-parse', 'main')).toBe(mainBefore);
    // Reset onto its base (a commit the user's repository has): the branch follows without a bundle of new objects.
    git(created.path, 'reset', '--quiet', '--hard', mainBefore);
    expect(await syncWorktreeBranch(created.checkout!, runnerFor(created.checkout!))).toMatchObject({ synced: true, sha: mainBefore });
    expect(git(repo, 'rev-parse', 'cc/conv_sync')).toBe(mainBefore);
    git(created.path, 'reset', '--quiet', '--hard', 'HEAD@{1}');
    expect(await syncWorktreeBranch(created.checkout!, runnerFor(created.checkout!))).toMatchObject({ synced: true });
    expect(git(repo, 'log', '-1', '--format=%s', 'cc/conv_sync')).toBe('agent commit');
    // A deleted branch is reported, not thrown.
    git(created.path, 'checkout', '--quiet', '--detach');
    git(created.path, 'branch', '-D', 'cc/conv_sync');
    expect(await syncWorktreeBranch(created.checkout!, runnerFor(created.checkout!))).toMatchObject({ synced: false });
    expect(git(repo, 'log', '-1', '--format=%s', 'cc/conv_sync')).toBe('agent commit');
  });

  it("retires a worktree an earlier version made in the user's repository: archived, unregistered, its branch continued", async () => {
    const legacy = join(worktreesDir, 'legacy');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'cc/legacy', legacy);
    await writeFile(join(legacy, 'old.txt'), 'committed before the upgrade\n');
    git(legacy, 'add', 'old.txt');
    git(legacy, 'commit', '--quiet', '-m', 'legacy work');
    await writeFile(join(legacy, 'pending.txt'), 'uncommitted\n');
    const created = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'legacy' });
    expect(created.created).toBe(true);
    expect(await readFile(join(created.path, 'old.txt'), 'utf8')).toBe('committed before the upgrade\n');
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('legacy');
    const [archived] = await readdir(join(worktreesDir, '.archive'));
    expect(archived).toMatch(/^legacy-legacy-/);
    expect(await readFile(join(worktreesDir, '.archive', archived!, 'pending.txt'), 'utf8')).toBe('uncommitted\n');
  });

  it('refuses to take over a non-empty folder that is not its worktree', async () => {
    await mkdir(join(worktreesDir, 'taken'), { recursive: true });
    await writeFile(join(worktreesDir, 'taken', 'keep.txt'), 'mine');
    await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'taken' })).rejects.toBeInstanceOf(ConflictError);
    expect(await readFile(join(worktreesDir, 'taken', 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('gives a space without a repository a plain folder', async () => {
    const folder = await ensureWorktree({ repoPath: null, worktreesDir, conversationId: 'plain' });
    expect(folder).toEqual({ path: join(worktreesDir, 'plain'), kind: 'folder', branch: null, created: true, checkout: null });
    expect((await stat(folder.path)).isDirectory()).toBe(true);
    expect((await ensureWorktree({ worktreesDir, conversationId: 'plain' })).created).toBe(false);
  });

  it('serializes concurrent calls for one conversation', async () => {
    const results = await Promise.all([1, 2, 3].map(() => ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'racy' })));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(results.map((result) => result.checkout)).toEqual([results[0]!.checkout, results[0]!.checkout, results[0]!.checkout]);
  });
});

describe('removeWorktree never loses work', () => {
  it('checkpoints uncommitted and untracked changes to a ref in the user\'s repository before removing, without moving the branch', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_2' });
    await writeFile(join(worktree.path, 'a.txt'), 'edited but not committed\n');
    await mkdir(join(worktree.path, 'notes'));
    await writeFile(join(worktree.path, 'notes', 'untracked.md'), 'brand new file\n');
    await writeFile(join(worktree.path, 'staged.txt'), 'staged only\n');
    git(worktree.path, 'add', 'staged.txt');
    await unlink(join(worktree.path, 'b.txt'));
    await writeFile(join(worktree.path, 'debug.log'), 'ignored\n');
    const branchBefore = git(worktree.path, 'rev-parse', 'cc/conv_2');

    const now = new Date('2025-03-04T05:06:07.089Z');
    const removed = await removeWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_2', now });

    expect(removed.removed).toBe(true);
    expect(removed.checkpointRef).toBe('refs/cc-checkpoints/conv_2/20250304T050607089Z');
    const ref = removed.checkpointRef as string;
    expect(git(repo, 'show', `${ref}:a.txt`)).toBe('edited but not committed');
    expect(git(repo, 'show', `${ref}:notes/untracked.md`)).toBe('brand new file');
    expect(git(repo, 'show', `${ref}:staged.txt`)).toBe('staged only');
    const files = git(repo, 'ls-tree', '-r', '--name-only', ref).split('\n');
    expect(files).not.toContain('b.txt');
    expect(files).not.toContain('debug.log');
    expect(git(repo, 'rev-parse', `${ref}^`)).toBe(branchBefore);

    // The branch was brought over as it was (the checkpoint is a ref of its own, not a commit on it).
    expect(git(repo, 'rev-parse', 'cc/conv_2')).toBe(branchBefore);
    expect(git(repo, 'rev-parse', 'main')).toBe(branchBefore);
    expect(await exists(worktree.path)).toBe(false);
    expect(await listCheckpoints(repo, 'conv_2')).toEqual([ref]);
    // The main checkout was not touched either.
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('removes a clean worktree without a checkpoint, keeps the branch, and recreates from it', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_3' });
    await writeFile(join(worktree.path, 'committed.txt'), 'kept on the branch\n');
    git(worktree.path, 'add', '-A');
    git(worktree.path, 'commit', '--quiet', '-m', 'agent work');
    const removed = await removeWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_3' });
    expect(removed).toMatchObject({ removed: true, checkpointRef: null });
    expect(await listCheckpoints(repo, 'conv_3')).toEqual([]);

    const again = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_3' });
    expect(again.created).toBe(true);
    expect(await readFile(join(again.path, 'committed.txt'), 'utf8')).toBe('kept on the branch\n');
  });

  it('two checkpoints in the same millisecond get distinct refs', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_4' });
    await writeFile(join(worktree.path, 'x.txt'), 'one');
    const now = new Date('2025-01-01T00:00:00.000Z');
    const runner = runnerFor(worktree.checkout!);
    const first = await checkpointWorktree(worktree.checkout!, runner, now);
    const statusBefore = git(worktree.path, 'status', '--porcelain');
    await writeFile(join(worktree.path, 'x.txt'), 'two');
    const second = await checkpointWorktree(worktree.checkout!, runner, now);
    expect(first).not.toBe(second);
    expect(git(repo, 'show', `${first}:x.txt`)).toBe('one');
    expect(git(repo, 'show', `${second}:x.txt`)).toBe('two');
    // Checkpointing leaves the worktree's own index alone.
    expect(statusBefore).toBe('?? x.txt');
    expect(git(worktree.path, 'status', '--porcelain')).toBe('?? x.txt');
  });

  it('reports nothing to remove, and refuses to delete a folder that is not its worktree', async () => {
    expect(await removeWorktree({ repoPath: repo, worktreesDir, conversationId: 'never' })).toMatchObject({ removed: false, checkpointRef: null });
    await mkdir(join(worktreesDir, 'stranger'), { recursive: true });
    await writeFile(join(worktreesDir, 'stranger', 'precious.txt'), 'x');
    await expect(removeWorktree({ repoPath: repo, worktreesDir, conversationId: 'stranger' })).rejects.toBeInstanceOf(ConflictError);
    expect(await exists(join(worktreesDir, 'stranger', 'precious.txt'))).toBe(true);
  });

  it('makes a checkout whose folder vanished again from its record', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'gone' });
    await rm(worktree.path, { recursive: true, force: true });
    expect((await removeWorktree({ repoPath: repo, worktreesDir, conversationId: 'gone' })).removed).toBe(false);
    const again = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'gone' });
    expect(again).toMatchObject({ created: true, checkout: worktree.checkout });
    expect(git(again.path, 'symbolic-ref', '--short', 'HEAD')).toBe('cc/gone');
  });

  it('a commit whose branch the agent deleted is still kept, in a checkpoint', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'orphan' });
    await writeFile(join(worktree.path, 'lost.txt'), 'would be lost\n');
    git(worktree.path, 'add', 'lost.txt');
    git(worktree.path, 'commit', '--quiet', '-m', 'detached work');
    git(worktree.path, 'checkout', '--quiet', '--detach');
    git(worktree.path, 'branch', '-D', 'cc/orphan');
    const removed = await removeWorktree({ repoPath: repo, worktreesDir, conversationId: 'orphan' });
    expect(removed.checkpointRef).toMatch(/^refs\/cc-checkpoints\/orphan\//);
    expect(git(repo, 'show', `${removed.checkpointRef}:lost.txt`)).toBe('would be lost');
  });

  it('archives a non-empty plain folder instead of deleting it', async () => {
    const folder = await ensureWorktree({ worktreesDir, conversationId: 'plain' });
    await writeFile(join(folder.path, 'notes.md'), 'keep me');
    const removed = await removeWorktree({ worktreesDir, conversationId: 'plain', now: new Date('2025-02-03T04:05:06.007Z') });
    expect(removed.archivedPath).toBe(join(worktreesDir, '.archive', 'plain-20250203T040506007Z'));
    expect(await readFile(join(removed.archivedPath as string, 'notes.md'), 'utf8')).toBe('keep me');
    expect(await exists(folder.path)).toBe(false);

    await ensureWorktree({ worktreesDir, conversationId: 'empty' });
    expect(await removeWorktree({ worktreesDir, conversationId: 'empty' })).toMatchObject({ removed: true, archivedPath: null });
    expect(await readdir(worktreesDir)).toEqual(['.archive']);
  });
});
