import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors/conflict-error.js';
import { ValidationError } from '../../src/errors/validation-error.js';
import { checkpointWorktree, ensureWorktree, listCheckpoints, removeWorktree } from '../../src/tools/git-worktrees.js';
import { makeTempDir } from './tool-test-support.js';

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

beforeEach(async () => {
  base = await makeTempDir('cc-git-');
  repo = join(base.path, 'repo');
  worktreesDir = join(base.path, 'worktrees');
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

describe('ensureWorktree (HAR-7)', () => {
  it('creates a worktree on branch cc/<conversationId> from HEAD, and reuses it', async () => {
    const created = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_1' });
    expect(created).toEqual({ path: join(worktreesDir, 'conv_1'), kind: 'git', branch: 'cc/conv_1', created: true });
    expect(await readFile(join(created.path, 'a.txt'), 'utf8')).toBe('second version\n');
    expect(git(repo, 'rev-parse', 'cc/conv_1')).toBe(git(repo, 'rev-parse', 'main'));
    expect(git(created.path, 'symbolic-ref', '--short', 'HEAD')).toBe('cc/conv_1');

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

  it('refuses to take over a non-empty folder that is not its worktree', async () => {
    await mkdir(join(worktreesDir, 'taken'), { recursive: true });
    await writeFile(join(worktreesDir, 'taken', 'keep.txt'), 'mine');
    await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'taken' })).rejects.toBeInstanceOf(ConflictError);
    expect(await readFile(join(worktreesDir, 'taken', 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('gives a space without a repository a plain folder', async () => {
    const folder = await ensureWorktree({ repoPath: null, worktreesDir, conversationId: 'plain' });
    expect(folder).toEqual({ path: join(worktreesDir, 'plain'), kind: 'folder', branch: null, created: true });
    expect((await stat(folder.path)).isDirectory()).toBe(true);
    expect((await ensureWorktree({ worktreesDir, conversationId: 'plain' })).created).toBe(false);
  });

  it('serializes concurrent calls for one conversation', async () => {
    const results = await Promise.all([1, 2, 3].map(() => ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'racy' })));
    expect(results.filter((result) => result.created)).toHaveLength(1);
  });
});

describe('removeWorktree never loses work', () => {
  it('checkpoints uncommitted and untracked changes to a ref before removing, without moving the branch', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_2' });
    await writeFile(join(worktree.path, 'a.txt'), 'edited but not committed\n');
    await mkdir(join(worktree.path, 'notes'));
    await writeFile(join(worktree.path, 'notes', 'untracked.md'), 'brand new file\n');
    await writeFile(join(worktree.path, 'staged.txt'), 'staged only\n');
    git(worktree.path, 'add', 'staged.txt');
    await unlink(join(worktree.path, 'b.txt'));
    await writeFile(join(worktree.path, 'debug.log'), 'ignored\n');
    const branchBefore = git(repo, 'rev-parse', 'cc/conv_2');

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

    expect(git(repo, 'rev-parse', 'cc/conv_2')).toBe(branchBefore);
    expect(git(repo, 'rev-parse', 'main')).toBe(branchBefore);
    expect(await exists(worktree.path)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('conv_2');
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
    const first = await checkpointWorktree(worktree.path, 'conv_4', now);
    const statusBefore = git(worktree.path, 'status', '--porcelain');
    await writeFile(join(worktree.path, 'x.txt'), 'two');
    const second = await checkpointWorktree(worktree.path, 'conv_4', now);
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

  it('prunes a worktree whose folder vanished', async () => {
    const worktree = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'gone' });
    await rm(worktree.path, { recursive: true, force: true });
    expect((await removeWorktree({ repoPath: repo, worktreesDir, conversationId: 'gone' })).removed).toBe(false);
    expect((await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'gone' })).created).toBe(true);
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
