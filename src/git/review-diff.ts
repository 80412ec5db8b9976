import { parseHunkMap } from '../core/review/hunk-map.js';
import type { HunkMap } from '../core/review/review-types.js';
import { ValidationError } from '../errors/validation-error.js';
import { assertGitOperand } from './git-operand.js';
import { runGit, tryGit } from './run-git.js';

/** What a reviewer is given about a change (REV-1): three SHAs, the diff and its hunk map, REVIEW.md. */
export interface ReviewDiff {
  baseSha: string;
  headSha: string;
  mergeBaseSha: string;
  diff: string;
  hunkMap: HunkMap;
  reviewMd: string | null;
}

/** Longest REVIEW.md handed to reviewers; the rest is cut with a note. */
const REVIEW_MD_MAX = 64 * 1024;

/**
 * Resolves a ref a caller supplied to the commit it names. Refs are hostile input (SEC-2): checked as
 * a git operand (no leading `-`, no control characters) and passed after `--end-of-options`; a ref
 * that names no commit is a 400 naming the field.
 */
export async function resolveCommit(repoPath: string, ref: string, field: string): Promise<string> {
  assertGitOperand(ref, field);
  if (/\s/.test(ref) || ref.includes('..') || ref.includes(':')) throw new ValidationError(field, `${field} ${JSON.stringify(ref.slice(0, 200))} is not a single ref or commit`);
  const resolved = await tryGit(['rev-parse', '--verify', '--quiet'], { cwd: repoPath, operands: [`${ref}^{commit}`] });
  const sha = resolved?.stdout.trim();
  if (!sha || !/^[0-9a-f]{40,64}$/.test(sha)) throw new ValidationError(field, `${field} ${JSON.stringify(ref.slice(0, 200))} does not name a commit in ${repoPath}`);
  return sha;
}

/**
 * The change `base...head` as reviewers see it: the diff from the merge base to head (what the
 * branch adds, not what base gained since), computed by the server's hardened git with external
 * diff drivers and textconv off, renames off (every path is the head-side path), and the hunk map.
 */
export async function computeReviewDiff(repoPath: string, base: string, head: string): Promise<ReviewDiff> {
  const baseSha = await resolveCommit(repoPath, base, 'base');
  const headSha = await resolveCommit(repoPath, head, 'head');
  const mergeBase = await tryGit(['merge-base'], { cwd: repoPath, operands: [baseSha, headSha] });
  const mergeBaseSha = mergeBase?.stdout.trim();
  if (!mergeBaseSha) throw new ValidationError('base', `base ${JSON.stringify(base)} and head ${JSON.stringify(head)} share no history`);
  const { stdout: diff } = await runGit(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--unified=3'], { cwd: repoPath, operands: [mergeBaseSha, headSha] });
  const reviewMd = await tryGit(['cat-file', 'blob'], { cwd: repoPath, operands: [`${headSha}:REVIEW.md`] });
  const text = reviewMd?.stdout ?? null;
  return {
    baseSha,
    headSha,
    mergeBaseSha,
    diff,
    hunkMap: parseHunkMap(diff),
    reviewMd: text === null ? null : text.length > REVIEW_MD_MAX ? `${text.slice(0, REVIEW_MD_MAX)}\n[REVIEW.md cut at ${REVIEW_MD_MAX} characters]` : text,
  };
}
