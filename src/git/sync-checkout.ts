import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitCommandError } from './git-command-error.js';
import { runGit, tryGit } from './run-git.js';
import type { CheckoutRunner } from './checkout-runner.js';

/** Where a ref of a checkout ended up in the user's repository, or why it did not. */
export type RefSyncResult = { synced: true; ref: string; sha: string } | { synced: false; ref: string; reason: string };

/**
 * Brings one ref of a conversation's checkout into the user's repository under the same name, with a
 * fixed refspec (SEC-3): `git bundle create - <ref>` runs where the checkout's config can only affect
 * a sandbox ({@link CheckoutRunner}), the bundle lands in a server-owned temporary file, and the
 * server's hardened git fetches exactly `<ref>:<ref>` from it into the user's repository (git checks
 * that the bundle's objects are complete and hash to their names). The caller names the ref and only ever names refs in a
 * namespace the server owns (`refs/heads/cc/<conversation>`, `refs/cc-checkpoints/<conversation>/…`);
 * no other ref of the user's repository moves here. `force` lets the conversation's branch follow a
 * rewritten history (an amend); checkpoints are never overwritten.
 */
export async function syncCheckoutRef(
  repoPath: string,
  runner: CheckoutRunner,
  ref: string,
  options: {
    force: boolean;
    exclude?: readonly string[];
    /** The ref's tip in the user's repository when the caller has just read it (null: no such ref); saves one git process per run. */
    current?: string | null;
    /**
     * The ref's tip in the checkout as its files say (`readCheckoutRefHint`), agent-written:
     * taken only when it is one of `exclude` (a commit the user's repository has), else git decides.
     */
    tipHint?: string | null;
  },
): Promise<RefSyncResult> {
  // Commits the user's repository already has (the base, the last synced tip) keep the bundle to the
  // new work; when that fails (an empty bundle: nothing new, or a branch reset onto one of them) the
  // whole history is bundled instead.
  const known = (options.exclude ?? []).filter((sha) => /^[0-9a-f]{40,64}$/.test(sha));
  if (known.length > 0) {
    // Most runs commit nothing: when the checkout's tip is a commit the user's repository has, only
    // the ref may need to move, and no bundle is made (one sandboxed git instead of three processes).
    // A hint naming a known commit saves even that process: the agent could have pointed
    // its branch at such a commit anyway, so acting on it grants nothing.
    const hinted = options.tipHint && known.includes(options.tipHint) ? options.tipHint : null;
    const tip = hinted ?? (await runner(['git', 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).stdout.toString('utf8').trim();
    if (known.includes(tip)) {
      const current = options.current !== undefined ? options.current : (await tryGit(['for-each-ref', '--format=%(objectname)', ref], { cwd: repoPath }))?.stdout.trim() || null;
      if (current === tip) return { synced: true, ref, sha: tip };
      if (options.force || !current) {
        await runGit(['update-ref', ref, tip], { cwd: repoPath });
        return { synced: true, ref, sha: tip };
      }
    }
    const small = await bundleAndFetch(repoPath, runner, ref, options.force, known);
    if (small.synced) return small;
  }
  return bundleAndFetch(repoPath, runner, ref, options.force, []);
}

async function bundleAndFetch(repoPath: string, runner: CheckoutRunner, ref: string, force: boolean, known: readonly string[]): Promise<RefSyncResult> {
  const bundle = await runner(['git', 'bundle', 'create', '--quiet', '-', ref, ...known.map((sha) => `^${sha}`)]);
  if (bundle.exitCode !== 0 || bundle.stdout.length === 0) {
    return { synced: false, ref, reason: `git bundle create in the checkout failed: ${bundle.stderr.trim().slice(0, 500) || `exit ${bundle.exitCode}`}` };
  }
  const scratch = await mkdtemp(join(tmpdir(), 'cc-sync-'));
  try {
    const file = join(scratch, 'checkout.bundle');
    await writeFile(file, bundle.stdout, { mode: 0o600 });
    const refspec = `${force ? '+' : ''}${ref}:${ref}`;
    try {
      await runGit(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', file, refspec], { cwd: repoPath });
    } catch (error) {
      if (error instanceof GitCommandError) return { synced: false, ref, reason: `fetching ${ref} into ${repoPath} failed: ${error.message.slice(0, 500)}` };
      throw error;
    }
    const sha = (await tryGit(['rev-parse', '--verify', '--quiet', ref], { cwd: repoPath }))?.stdout.trim() ?? '';
    return { synced: true, ref, sha };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
