import { ConflictError } from '../../errors/index.js';
import { SERVER_GIT_IDENTITY } from '../../git/checkout-runner.js';
import { GitCommandError } from '../../git/git-command-error.js';
import { runGit, tryGit } from '../../git/run-git.js';

export interface LocalMergeInput {
  /** The user's repository. */
  repoPath: string;
  /** The conversation's branch in it (`cc/<conversation>`) and the commit it is at. */
  sourceBranch: string;
  sourceSha: string;
  /** The branch to merge into, already checked as a branch name. */
  into: string;
  /** The target's commit as the operator saw it, when they sent one. */
  expectedSha?: string | undefined;
  ffOnly: boolean;
  /** The merge commit's message (server-written). */
  message: string;
}

export interface LocalMergeResult {
  kind: 'fastForward' | 'mergeCommit';
  previousSha: string;
  mergedSha: string;
}

/** The worktree of the user's repository that has `branch` checked out, or null. */
async function worktreeHolding(repoPath: string, branch: string): Promise<string | null> {
  const { stdout } = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repoPath });
  let path: string | null = null;
  for (const field of stdout.split('\0')) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    else if (field === `branch refs/heads/${branch}`) return path;
  }
  return null;
}

/** Tracked files with changes (staged or not) in a worktree; untracked files are git's to protect (it refuses to overwrite them). */
async function trackedChanges(worktreePath: string): Promise<string[]> {
  const { stdout } = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=none'], { cwd: worktreePath });
  return stdout
    .split('\0')
    .filter((entry) => /^[ MADRCUT?!]{2} /.test(entry))
    .map((entry) => entry.slice(3));
}

/**
 * Fast-forwards or merges the conversation's branch into `into` of the user's repository (CHG-2),
 * with the server's hardened git, never forced:
 * - a target that is not the commit the operator saw (`expectedSha`) is refused;
 * - a merge that does not apply cleanly is refused naming the conflicting files, nothing changed
 *   (the merge is computed on objects alone);
 * - the branch moves by compare-and-swap from the commit read at the start, so a commit made to it
 *   meanwhile makes the merge fail rather than be lost;
 * - when `into` is checked out in a worktree of the user's repository: a tree with changes to
 *   tracked files is refused and left alone; a clean one is fast-forwarded by git's own
 *   `merge --ff-only` to the prepared commit, which updates the files and refuses (changing nothing)
 *   when the branch moved or an untracked file would be overwritten.
 */
export async function mergeLocally(input: LocalMergeInput): Promise<LocalMergeResult> {
  const target = await tryGit(['rev-parse', '--verify', '--quiet'], { cwd: input.repoPath, operands: [`refs/heads/${input.into}^{commit}`] });
  if (!target) throw new ConflictError('into', `the repository has no branch ${input.into}`);
  const previousSha = target.stdout.trim();
  if (input.expectedSha && input.expectedSha !== previousSha) {
    throw new ConflictError('expectedSha', `${input.into} moved since you looked: it is at ${previousSha.slice(0, 12)}, not ${input.expectedSha.slice(0, 12)}; look again and merge again`);
  }
  if (await isAncestor(input.repoPath, input.sourceSha, previousSha)) throw new ConflictError('into', `${input.into} already contains ${input.sourceBranch} (${input.sourceSha.slice(0, 12)}); there is nothing to merge`);
  const worktree = await worktreeHolding(input.repoPath, input.into);
  if (worktree) {
    const changed = await trackedChanges(worktree);
    if (changed.length > 0) {
      throw new ConflictError('into', `${input.into} is checked out in ${worktree} with uncommitted changes to ${changed.length} tracked file(s) (${changed.slice(0, 10).join(', ')}); commit or stash them there, then merge again — the working tree was not touched`);
    }
  }
  let result: LocalMergeResult;
  if (await isAncestor(input.repoPath, previousSha, input.sourceSha)) {
    result = { kind: 'fastForward', previousSha, mergedSha: input.sourceSha };
  } else {
    if (input.ffOnly) throw new ConflictError('ffOnly', `${input.into} has commits ${input.sourceBranch} lacks, so it cannot be fast-forwarded; merge without --ff-only to make a merge commit`);
    const merged = await mergeOrConflicts(input.repoPath, previousSha, input.sourceSha);
    if ('conflicts' in merged) {
      throw new ConflictError('into', `${input.sourceBranch} does not merge cleanly into ${input.into}: ${merged.conflicts.length} conflicting file(s): ${merged.conflicts.slice(0, 50).join(', ')}; nothing was changed`);
    }
    const commit = await runGit(['commit-tree', merged.tree, '-p', previousSha, '-p', input.sourceSha, '-m', input.message], { cwd: input.repoPath, env: { ...SERVER_GIT_IDENTITY } });
    result = { kind: 'mergeCommit', previousSha, mergedSha: commit.stdout.trim() };
  }
  if (worktree) {
    try {
      await runGit(['merge', '--ff-only', '--quiet', '--no-edit', '--no-verify'], { cwd: worktree, env: { ...SERVER_GIT_IDENTITY }, operands: [result.mergedSha] });
    } catch (error) {
      const reason = error instanceof GitCommandError ? (error.stderr.trim().split('\n')[0] ?? '') : String(error);
      throw new ConflictError('into', `${input.into} is checked out in ${worktree} and git refused to bring it forward (${reason.slice(0, 300)}); nothing was changed`);
    }
    const now = (await runGit(['rev-parse', '--verify'], { cwd: input.repoPath, operands: [`refs/heads/${input.into}^{commit}`] })).stdout.trim();
    if (now !== result.mergedSha) throw new ConflictError('into', `${input.into} moved while it was being merged (now ${now.slice(0, 12)}); look again and merge again`);
    return result;
  }
  try {
    // The old value makes this a compare-and-swap: a commit made to the branch meanwhile is never lost.
    await runGit(['update-ref', '-m', `control-center: merge ${input.sourceBranch}`], { cwd: input.repoPath, operands: [`refs/heads/${input.into}`, result.mergedSha, previousSha] });
  } catch {
    throw new ConflictError('into', `${input.into} moved while it was being merged; look again and merge again`);
  }
  return result;
}

async function isAncestor(repoPath: string, ancestor: string, descendant: string): Promise<boolean> {
  return (await tryGit(['merge-base', '--is-ancestor'], { cwd: repoPath, operands: [ancestor, descendant] })) !== null;
}

/**
 * The merged tree, or the paths a three-way merge conflicts on: git's `merge-tree --write-tree`
 * works on objects only — no index, no working tree, nothing moved. Exit 1 is git's "conflicts",
 * with the tree id and then each conflicted path on stdout.
 */
async function mergeOrConflicts(repoPath: string, ours: string, theirs: string): Promise<{ tree: string } | { conflicts: string[] }> {
  const args = ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages'];
  try {
    const { stdout } = await runGit(args, { cwd: repoPath, operands: [ours, theirs] });
    return { tree: stdout.split('\0')[0]!.trim() };
  } catch (error) {
    if (!(error instanceof GitCommandError) || error.exitCode !== 1) throw error;
    const [, ...paths] = error.stdout.split('\0');
    return { conflicts: [...new Set(paths.map((path) => path.trim()).filter((path) => path !== ''))] };
  }
}
