import { copyFile, mkdir, mkdtemp, readdir, realpath, rename, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { ConflictError } from '../errors/conflict-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { GitCommandError } from './git-command-error.js';
import { runGit, tryGit } from './run-git.js';

/** Branch prefix of conversation worktrees: `cc/<conversationId>`. */
export const WORKTREE_BRANCH_PREFIX = 'cc/';
/** Ref namespace of checkpoints: `refs/cc-checkpoints/<conversationId>/<timestamp>`. */
export const CHECKPOINT_REF_PREFIX = 'refs/cc-checkpoints/';
/** Folder inside `worktreesDir` where removed plain (non-git) folders are kept. */
export const ARCHIVE_DIR_NAME = '.archive';

/** Identity of checkpoint commits, so they work in a repository with no `user.name` configured. */
const CHECKPOINT_IDENTITY: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'Control Center',
  GIT_AUTHOR_EMAIL: 'control-center@localhost',
  GIT_COMMITTER_NAME: 'Control Center',
  GIT_COMMITTER_EMAIL: 'control-center@localhost',
};

const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export interface EnsureWorktreeOptions {
  /** The space's repository; `null`/absent for a space without one (a plain folder is made). */
  repoPath?: string | null;
  /** Directory holding one worktree per conversation. */
  worktreesDir: string;
  /** Names the folder and the branch; letters, digits, `_` and `-` only. */
  conversationId: string;
  /** What a new branch starts from (default `HEAD` of the repository). Ignored when the branch exists. */
  baseRef?: string;
}

export interface ConversationWorktree {
  /** Absolute path of the worktree (the tools' root). */
  path: string;
  kind: 'git' | 'folder';
  /** `cc/<conversationId>` for a git worktree, `null` for a folder. */
  branch: string | null;
  /** False when an existing worktree was reused. */
  created: boolean;
}

export interface RemoveWorktreeOptions {
  repoPath?: string | null;
  worktreesDir: string;
  conversationId: string;
  /** Clock for the checkpoint/archive name (tests). */
  now?: Date;
}

export interface RemovedWorktree {
  path: string;
  /** False when there was nothing to remove. */
  removed: boolean;
  /** The ref holding the uncommitted state, when there was any (git worktrees). */
  checkpointRef: string | null;
  /** Where a non-empty plain folder was moved instead of being deleted. */
  archivedPath: string | null;
}

function assertConversationId(conversationId: string): void {
  if (!CONVERSATION_ID.test(conversationId)) {
    throw new ValidationError('conversationId', `conversationId ${JSON.stringify(conversationId)} must be 1-128 letters, digits, "_" or "-", starting with a letter or digit`);
  }
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function realOrSelf(path: string): Promise<string> {
  return realpath(path).catch(() => resolvePath(path));
}

/** `20250102T030405678Z`: sortable, and legal in a ref name (no `:`). */
function compactTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '');
}

/** Serializes work per key inside this process, so two calls for one conversation cannot race. */
const inFlight = new Map<string, Promise<unknown>>();
async function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = inFlight.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(work);
  inFlight.set(key, next);
  try {
    return await next;
  } finally {
    if (inFlight.get(key) === next) inFlight.delete(key);
  }
}

/** Real paths of the worktrees git knows for `repoPath`, with whether their folder is gone ("prunable"). */
async function registeredWorktrees(repoPath: string): Promise<{ path: string; prunable: boolean }[]> {
  const { stdout } = await runGit(['worktree', 'list', '--porcelain'], { cwd: repoPath });
  const worktrees: { path: string; prunable: boolean }[] = [];
  for (const block of stdout.split('\n\n')) {
    const lines = block.split('\n');
    const head = lines.find((line) => line.startsWith('worktree '));
    if (!head) continue;
    const path = head.slice('worktree '.length);
    worktrees.push({ path: await realOrSelf(path), prunable: lines.some((line) => line.startsWith('prunable')) || !(await pathExists(path)) });
  }
  return worktrees;
}

async function isRegistered(repoPath: string, directory: string): Promise<{ registered: boolean; prunable: boolean }> {
  const real = await realOrSelf(directory);
  const match = (await registeredWorktrees(repoPath)).find((worktree) => worktree.path === real || worktree.path === directory);
  return { registered: match !== undefined, prunable: match?.prunable ?? false };
}

async function resolveBase(repoPath: string, baseRef: string | undefined): Promise<string> {
  const ref = baseRef ?? 'HEAD';
  // A leading `-` would be read as an option; whitespace and control characters are never in a ref.
  const hasControlOrSpace = [...ref].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f);
  if (ref === '' || ref.startsWith('-') || hasControlOrSpace) throw new ValidationError('baseRef', `baseRef ${JSON.stringify(ref)} is not a valid ref`);
  const verified = await tryGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repoPath });
  if (!verified) throw new ValidationError('baseRef', `baseRef ${JSON.stringify(ref)} does not name a commit in ${repoPath}`);
  return verified.stdout.trim();
}

/**
 * Gives a conversation its own worktree (HAR-7): `git worktree add -b cc/<conversationId> <dir> <base>`
 * inside `worktreesDir`, or a reuse of the one already there. When the branch survives from an earlier
 * worktree of the same conversation, the new worktree checks it out again (its commits are the
 * conversation's work). A space without a repository gets a plain folder. Git hooks never run.
 */
export async function ensureWorktree(options: EnsureWorktreeOptions): Promise<ConversationWorktree> {
  assertConversationId(options.conversationId);
  const directory = resolvePath(options.worktreesDir, options.conversationId);
  return serialized(directory, async () => {
    await mkdir(options.worktreesDir, { recursive: true });
    if (!options.repoPath) {
      const existed = await pathExists(directory);
      await mkdir(directory, { recursive: true });
      return { path: directory, kind: 'folder', branch: null, created: !existed };
    }
    const repoPath = resolvePath(options.repoPath);
    const branch = `${WORKTREE_BRANCH_PREFIX}${options.conversationId}`;
    const state = await isRegistered(repoPath, directory);
    if (state.registered && !state.prunable) return { path: directory, kind: 'git', branch, created: false };
    if (state.registered) await runGit(['worktree', 'prune'], { cwd: repoPath });
    if (await pathExists(directory)) {
      // `git worktree add` accepts an empty folder; anything else there is not ours to overwrite.
      if ((await readdir(directory)).length > 0) {
        throw new ConflictError('conversationId', `${directory} exists and is not a worktree of ${repoPath}; refusing to reuse it`);
      }
    }
    const branchExists = await tryGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repoPath });
    if (branchExists) {
      await runGit(['worktree', 'add', directory, branch], { cwd: repoPath });
    } else {
      const base = await resolveBase(repoPath, options.baseRef);
      await runGit(['worktree', 'add', '-b', branch, directory, base], { cwd: repoPath });
    }
    return { path: directory, kind: 'git', branch, created: true };
  });
}

/** Absolute path of a git-internal file of the worktree at `cwd` (its index, for example). */
async function gitPath(cwd: string, name: string): Promise<string> {
  const { stdout } = await runGit(['rev-parse', '--path-format=absolute', '--git-path', name], { cwd });
  return stdout.trim();
}

/**
 * Commits the complete state of a worktree — tracked changes, deletions and untracked files, not
 * ignored ones — to `refs/cc-checkpoints/<conversationId>/<timestamp>` and returns the ref. Works on a
 * temporary copy of the index, so neither the branch, nor the real index, nor the files move.
 */
export async function checkpointWorktree(worktreePath: string, conversationId: string, now: Date = new Date()): Promise<string> {
  assertConversationId(conversationId);
  const scratch = await mkdtemp(join(tmpdir(), 'cc-checkpoint-'));
  try {
    const indexFile = join(scratch, 'index');
    const env = { GIT_INDEX_FILE: indexFile };
    const head = (await tryGit(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: worktreePath }))?.stdout.trim() || null;
    const realIndex = await gitPath(worktreePath, 'index');
    // Starting from a copy of the real index keeps git's stat cache, so only changed files are re-hashed.
    if (await pathExists(realIndex)) await copyFile(realIndex, indexFile);
    else if (head) await runGit(['read-tree', head], { cwd: worktreePath, env });
    await runGit(['add', '--all', '--', '.'], { cwd: worktreePath, env });
    const tree = (await runGit(['write-tree'], { cwd: worktreePath, env })).stdout.trim();
    const branch = (await tryGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: worktreePath }))?.stdout.trim() || '(detached)';
    const message = `Checkpoint of conversation ${conversationId} before its worktree was removed\n\nBranch: ${branch}\nAt: ${now.toISOString()}\n`;
    const commitArgs = ['commit-tree', tree, ...(head ? ['-p', head] : []), '-m', message];
    const commit = (await runGit(commitArgs, { cwd: worktreePath, env: CHECKPOINT_IDENTITY })).stdout.trim();
    const base = `${CHECKPOINT_REF_PREFIX}${conversationId}/${compactTimestamp(now)}`;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const ref = attempt === 0 ? base : `${base}-${attempt}`;
      // The empty old value makes update-ref fail if the ref exists: a checkpoint is never overwritten.
      const created = await tryGit(['update-ref', '-m', 'cc checkpoint', ref, commit, ''], { cwd: worktreePath });
      if (created) return ref;
    }
    throw new GitCommandError(['update-ref', base], null, 'could not find a free checkpoint ref name');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** True when the worktree has tracked changes or untracked (not ignored) files. */
export async function hasUncommittedChanges(worktreePath: string): Promise<boolean> {
  const { stdout } = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none'], { cwd: worktreePath });
  return stdout.length > 0;
}

/** Checkpoint refs of a conversation, oldest first. */
export async function listCheckpoints(repoPath: string, conversationId: string): Promise<string[]> {
  assertConversationId(conversationId);
  const { stdout } = await runGit(['for-each-ref', '--format=%(refname)', `${CHECKPOINT_REF_PREFIX}${conversationId}/`], { cwd: repoPath });
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/**
 * Removes a conversation's worktree without ever losing work (HAR-7): when it has uncommitted changes
 * or untracked files, they are first committed to a checkpoint ref ({@link checkpointWorktree}), and
 * only then is the worktree removed. The branch `cc/<conversationId>` is kept, with its commits. Files
 * matched by `.gitignore` are not checkpointed (build output, dependencies). A plain folder that is not
 * empty is moved to `<worktreesDir>/.archive/` instead of being deleted.
 */
export async function removeWorktree(options: RemoveWorktreeOptions): Promise<RemovedWorktree> {
  assertConversationId(options.conversationId);
  const directory = resolvePath(options.worktreesDir, options.conversationId);
  const now = options.now ?? new Date();
  return serialized(directory, async () => {
    const nothing: RemovedWorktree = { path: directory, removed: false, checkpointRef: null, archivedPath: null };
    if (!options.repoPath) {
      if (!(await pathExists(directory))) return nothing;
      if ((await readdir(directory)).length === 0) {
        await rmdir(directory);
        return { ...nothing, removed: true };
      }
      const archiveDir = join(options.worktreesDir, ARCHIVE_DIR_NAME);
      await mkdir(archiveDir, { recursive: true });
      const archivedPath = join(archiveDir, `${options.conversationId}-${compactTimestamp(now)}`);
      await rename(directory, archivedPath);
      return { ...nothing, removed: true, archivedPath };
    }
    const repoPath = resolvePath(options.repoPath);
    const state = await isRegistered(repoPath, directory);
    if (!state.registered || state.prunable) {
      if (state.prunable) await runGit(['worktree', 'prune'], { cwd: repoPath });
      if (await pathExists(directory)) {
        throw new ConflictError('conversationId', `${directory} is not a worktree of ${repoPath}; refusing to delete it`);
      }
      return nothing;
    }
    const checkpointRef = (await hasUncommittedChanges(directory)) ? await checkpointWorktree(directory, options.conversationId, now) : null;
    // --force: the changes are safe in the checkpoint, and git would otherwise refuse a dirty worktree.
    await runGit(['worktree', 'remove', '--force', directory], { cwd: repoPath });
    await runGit(['worktree', 'prune'], { cwd: repoPath });
    return { ...nothing, removed: true, checkpointRef };
  });
}
