import type { CheckoutRunner } from './checkout-runner.js';
import { SERVER_GIT_IDENTITY } from './checkout-runner.js';
import { SCRATCH_INDEX_TREE_LINES } from './git-worktrees.js';

/**
 * CTX-3: the checkout's state as each turn began, and the way back to it. Both run inside the
 * checkout's sandbox (`CommandSandbox.checkoutRunner`), so nothing the agent wrote into the checkout's
 * git config runs in the server.
 */

/** Ref namespace of turn checkpoints, in the conversation's own checkout: `refs/cc-turns/<conversation>/<run>`. */
export const TURN_REF_PREFIX = 'refs/cc-turns/';

/**
 * Commits the checkout's whole state — tracked changes, deletions, untracked files, not ignored ones —
 * on a scratch index, parented on HEAD, and keeps it under `$1`; prints the commit. The branch, the
 * real index and the files do not move.
 */
const TURN_CHECKPOINT_SCRIPT = `set -e
${SCRATCH_INDEX_TREE_LINES}
message=$(printf 'Checkpoint before turn %s\\n' "$2")
if [ -n "$head" ]; then commit=$(git commit-tree "$tree" -p "$head" -m "$message"); else commit=$(git commit-tree "$tree" -m "$message"); fi
git update-ref -m 'cc turn checkpoint' "$1" "$commit"
printf '%s\\n' "$commit"
`;

/**
 * Puts a checkpoint back: the files become the checkpoint's (files made since are removed, ignored
 * ones are left alone), the branch returns to the commit the checkpoint was made on, and what was
 * uncommitted then is uncommitted again.
 */
const RESTORE_SCRIPT = `set -e
git cat-file -e "$1^{commit}"
git reset -q --hard "$1"
git clean -fdq
parent=$(git rev-parse --verify --quiet "$1^" || true)
if [ -n "$parent" ]; then git reset -q --soft "$parent"; git reset -q; fi
`;

const SHA = /^[0-9a-f]{40,64}$/;

/** Commits the checkout's state before a turn; returns the commit, or throws with git's reason. */
export async function checkpointTurn(runner: CheckoutRunner, conversationId: string, runId: string): Promise<string> {
  const ref = `${TURN_REF_PREFIX}${conversationId}/${runId}`;
  const made = await runner(['sh', '-c', TURN_CHECKPOINT_SCRIPT, 'cc-turn-checkpoint', ref, runId], SERVER_GIT_IDENTITY);
  const commit = made.stdout.toString('utf8').trim();
  if (made.exitCode !== 0 || !SHA.test(commit)) throw new Error(`turn checkpoint failed: ${made.stderr.toString().trim().slice(0, 500) || `exit ${made.exitCode}`}`);
  return commit;
}

/** Returns the checkout to a checkpoint commit (a turn's, or an archive's); throws with git's reason. */
export async function restoreCheckpoint(runner: CheckoutRunner, commit: string): Promise<void> {
  if (!SHA.test(commit)) throw new Error(`not a commit: ${commit}`);
  const done = await runner(['sh', '-c', RESTORE_SCRIPT, 'cc-restore-checkpoint', commit], SERVER_GIT_IDENTITY);
  if (done.exitCode !== 0) throw new Error(`restoring ${commit} failed: ${done.stderr.toString().trim().slice(0, 500) || `exit ${done.exitCode}`}`);
}

/** The commit a ref names in the checkout, or null. */
export async function commitOfRef(runner: CheckoutRunner, ref: string): Promise<string | null> {
  const found = await runner(['git', 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  const commit = found.stdout.toString('utf8').trim();
  return found.exitCode === 0 && SHA.test(commit) ? commit : null;
}
