import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { branchNameProblem } from '../../core/review/forge-pull-request.js';
import { ConflictError } from '../../errors/index.js';
import { forgeFetchConfig } from '../../git/forge-read-access.js';
import { GitCommandError } from '../../git/git-command-error.js';
import { runGit } from '../../git/run-git.js';

/** Where the pushed commit waits in the staging repository. */
const STAGED_REF = 'refs/cc-publish/head';

export interface BranchPush {
  /** The user's repository, which holds `refs/heads/<branch>` (brought over from the checkout, SEC-3). */
  repoPath: string;
  branch: string;
  /** The commit to publish: the branch is refused if it moved to anything else meanwhile. */
  sha: string;
  /** The forge repository's URL, checked as a repository of the configured forge. */
  remoteUrl: string;
  token: string;
  /** A server-owned directory for this conversation's staging repository. */
  stagingPath: string;
  /** What the server pushed last time: the forge's branch may be moved from there (or from nothing) only. */
  lastPushedSha: string | null;
}

/** git's first line of an error, with the token's header masked (git never prints it; belt and braces). */
function gitProblem(error: unknown, secret: string): string {
  const text = error instanceof GitCommandError ? error.stderr.trim() || error.message : error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').replaceAll(secret, '***').slice(0, 300);
}

/**
 * Pushes a conversation's branch to the forge (CHG-2) from a server-owned staging repository: the
 * branch's commit is fetched there from the user's repository, then pushed by URL with the
 * workspace's token as a URL-scoped header in git's environment (SEC-6). The user's repository —
 * whose config an agent may have touched — never runs a network git (see `git-hardening.ts`).
 * Never forced over someone else's work: the forge's branch must be absent, already at the commit,
 * or where the server's last push left it (a lease), else the push is refused naming both commits.
 */
export async function pushBranchToForge(push: BranchPush): Promise<{ pushed: boolean }> {
  const problem = branchNameProblem(push.branch);
  if (problem) throw new ConflictError('conversationId', `the branch to publish was refused: ${problem}`);
  const credential = forgeFetchConfig(push.remoteUrl, push.token);
  const header = credential[0]![1];
  // The header goes to the checked URL only: a redirect elsewhere is not followed with it.
  const secretConfig: Array<[string, string]> = [...credential, ['http.followRedirects', 'false']];
  const exists = await stat(join(push.stagingPath, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(push.stagingPath, { recursive: true });
    await runGit(['init', '--quiet', '--bare'], { cwd: push.stagingPath, trust: 'serverOwned' });
  }
  await runGit(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--recurse-submodules=no'], {
    cwd: push.stagingPath,
    trust: 'serverOwned',
    operands: [push.repoPath, `+refs/heads/${push.branch}:${STAGED_REF}`],
  });
  const staged = (await runGit(['rev-parse', '--verify', '--quiet'], { cwd: push.stagingPath, trust: 'serverOwned', operands: [`${STAGED_REF}^{commit}`] })).stdout.trim();
  if (staged !== push.sha) throw new ConflictError('conversationId', `the conversation's branch moved (now ${staged.slice(0, 12)}, approved ${push.sha.slice(0, 12)}) before it was pushed; publish again`);
  let remoteSha: string | null;
  try {
    const listed = await runGit(['ls-remote', '--heads'], { cwd: push.stagingPath, trust: 'serverOwned', operands: [push.remoteUrl, `refs/heads/${push.branch}`], secretConfig });
    remoteSha = listed.stdout.split('\n').find((line) => line.endsWith(`\trefs/heads/${push.branch}`))?.split('\t')[0] ?? null;
  } catch (error) {
    throw new ConflictError('conversationId', `the forge could not be read: ${gitProblem(error, header)}`);
  }
  if (remoteSha === push.sha) return { pushed: false };
  if (remoteSha !== null && remoteSha !== push.lastPushedSha) {
    throw new ConflictError(
      'conversationId',
      `the forge's ${push.branch} is at ${remoteSha.slice(0, 12)}, which the server did not push (its last push was ${push.lastPushedSha?.slice(0, 12) ?? 'none'}); nothing was forced — bring that work into the conversation or delete the forge's branch`,
    );
  }
  try {
    await runGit(['push', '--quiet', '--porcelain', `--force-with-lease=refs/heads/${push.branch}:${remoteSha ?? ''}`], {
      cwd: push.stagingPath,
      trust: 'serverOwned',
      operands: [push.remoteUrl, `+${STAGED_REF}:refs/heads/${push.branch}`],
      secretConfig,
    });
  } catch (error) {
    throw new ConflictError('conversationId', `the forge refused the push of ${push.branch}: ${gitProblem(error, header)}`);
  }
  return { pushed: true };
}
