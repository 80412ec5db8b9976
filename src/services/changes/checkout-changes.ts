import { ConflictError } from '../../errors/conflict-error.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import type { CheckoutRunner } from '../../git/checkout-runner.js';
import { SCRATCH_INDEX_TREE_LINES } from '../../git/git-worktrees.js';
import { parseDiffListing, type ListedFile } from './diff-listing.js';

/**
 * CHG-1: the git side of a conversation's changes. Every command runs in the conversation's checkout
 * through its {@link CheckoutRunner} (the checkout's sandbox: nothing the agent wrote into its git
 * config runs in the server), with external diff drivers and textconv off and literal pathspecs, so
 * a path named `:(glob)*` or `--output=x` is only a path. Object ids are the server's (checked hex);
 * paths go after `--`.
 */

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * Lists the changes from `$1` to `$2`, or to the checkout as it is now when `$2` is empty (tracked
 * changes, deletions and untracked files, written as a tree on a scratch index — the branch, the real
 * index and the files do not move). Prints the `to` object and how many files differ from the branch's
 * commit (`-` when `to` was given), a newline, then the NUL-separated listing.
 */
const LIST_SCRIPT = `set -e
git cat-file -e "$1^{commit}"
uncommitted=-
if [ -n "$2" ]; then to="$2"; else
${SCRATCH_INDEX_TREE_LINES}
to="$tree"
if [ -n "$head" ]; then uncommitted=$(git diff-tree -r -z --name-only "$head" "$tree" | tr -cd '\\000' | wc -c); fi
fi
printf '%s %s\\n' "$to" "$uncommitted"
git --literal-pathspecs diff-tree -r -z --raw --numstat --find-renames --no-abbrev --no-ext-diff --no-textconv "$1" "$to"
`;

/**
 * One unified diff from `$1` to `$2` (limited to the paths after them, if any), cut after `$3` bytes
 * by `head` inside the sandbox, so a huge file never travels whole. Both objects are checked first:
 * an unknown one fails the command rather than printing an empty diff.
 */
const DIFF_SCRIPT = `set -e
git cat-file -e "$1" 2>/dev/null || exit 3
git cat-file -e "$2" 2>/dev/null || exit 4
from="$1"; to="$2"; cap="$3"; shift 3
git --literal-pathspecs diff-tree -r -p --find-renames --no-color --no-ext-diff --no-textconv "$from" "$to" -- "$@" | head -c "$cap"
`;

/** Sizes of blobs, one line each (`<size>`, or `<id> missing`), read by one `cat-file --batch-check`. */
const SIZES_SCRIPT = `printf '%s\\n' "$@" | git cat-file --batch-check='%(objectsize)'`;

/** The most of one diff the server reads and sends: past it the diff is summarized, not sent whole. */
export const DIFF_MAX_BYTES = 256 * 1024;
export const DIFF_MAX_LINES = 4000;

function failed(what: string, result: { exitCode: number | null; stderr: string }): ConflictError {
  return new ConflictError('conversationId', `${what} failed in the conversation's checkout: ${result.stderr.trim().slice(0, 500) || `exit ${result.exitCode}`}`);
}

function assertObjectId(value: string, field: string): void {
  if (!OBJECT_ID.test(value)) throw new Error(`${field} is not an object id: ${JSON.stringify(value.slice(0, 80))}`);
}

/** The files changed from commit `from` to `to` (a commit), or to the checkout now (`to` null), and the object they were counted to. */
export async function listCheckoutChanges(runner: CheckoutRunner, from: string, to: string | null): Promise<{ to: string; uncommittedFiles: number | null; files: ListedFile[] }> {
  assertObjectId(from, 'from');
  if (to !== null) assertObjectId(to, 'to');
  const result = await runner(['sh', '-c', LIST_SCRIPT, 'cc-changes', from, to ?? '']);
  if (result.exitCode !== 0) throw failed('listing the changes', result);
  const output = result.stdout.toString('utf8');
  const newline = output.indexOf('\n');
  const [counted = '', uncommitted = ''] = output.slice(0, newline).trim().split(/\s+/);
  if (newline < 0 || !OBJECT_ID.test(counted)) throw failed('listing the changes', { exitCode: result.exitCode, stderr: `unexpected output ${JSON.stringify(output.slice(0, 120))}` });
  return { to: counted, uncommittedFiles: /^\d+$/.test(uncommitted) ? Number(uncommitted) : null, files: parseDiffListing(output.slice(newline + 1)) };
}

/** Sizes in bytes of the given blobs (unknown ones are left out). */
export async function blobSizes(runner: CheckoutRunner, blobs: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(blobs)];
  unique.forEach((blob) => assertObjectId(blob, 'blob'));
  const sizes = new Map<string, number>();
  if (unique.length === 0) return sizes;
  const result = await runner(['sh', '-c', SIZES_SCRIPT, 'cc-blob-sizes', ...unique]);
  if (result.exitCode !== 0) throw failed('reading file sizes', result);
  result.stdout
    .toString('utf8')
    .split('\n')
    .forEach((line, index) => {
      if (/^\d+$/.test(line) && unique[index]) sizes.set(unique[index], Number(line));
    });
  return sizes;
}

/** A diff as read: the text (cut at the byte or line cap, with the reason) and whether git called it binary. */
export interface CappedDiff {
  diff: string;
  binary: boolean;
  truncated: string | null;
  lines: number;
}

/** The unified diff from `from` to `to`, of the given paths (all when empty), cut at {@link DIFF_MAX_BYTES} and {@link DIFF_MAX_LINES}. */
export async function readCheckoutDiff(runner: CheckoutRunner, from: string, to: string, paths: readonly string[]): Promise<CappedDiff> {
  assertObjectId(from, 'from');
  assertObjectId(to, 'to');
  const result = await runner(['sh', '-c', DIFF_SCRIPT, 'cc-diff', from, to, String(DIFF_MAX_BYTES + 1), ...paths]);
  if (result.exitCode === 3) throw new NotFoundError('object', from, 'from');
  if (result.exitCode === 4) throw new NotFoundError('object', to, 'to');
  if (result.exitCode !== 0) throw failed('reading the diff', result);
  return capDiff(result.stdout);
}

/** Cuts a diff at the caps, on a line boundary, and says which cap cut it. */
export function capDiff(raw: Buffer): CappedDiff {
  let bytes = raw;
  let truncated: string | null = null;
  if (bytes.length > DIFF_MAX_BYTES) {
    // On the last whole line within the cap, so no character is split.
    const lastNewline = bytes.subarray(0, DIFF_MAX_BYTES).lastIndexOf(0x0a);
    bytes = bytes.subarray(0, lastNewline + 1);
    truncated = `over ${DIFF_MAX_BYTES} bytes`;
  }
  let text = bytes.toString('utf8');
  let lines = text.split('\n');
  if (lines.at(-1) === '') lines = lines.slice(0, -1);
  if (lines.length > DIFF_MAX_LINES) {
    lines = lines.slice(0, DIFF_MAX_LINES);
    text = `${lines.join('\n')}\n`;
    truncated = `over ${DIFF_MAX_LINES} lines`;
  }
  const binary = lines.some((line) => line.startsWith('Binary files ') || line === 'GIT binary patch');
  return { diff: text, binary, truncated, lines: lines.length };
}
