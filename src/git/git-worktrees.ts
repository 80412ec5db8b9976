import { mkdirSync } from 'node:fs';
import { mkdir, readdir, realpath, rename, rm, rmdir } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import type { PushRemote } from '../core/hook-sessions.js';
import { ConflictError } from '../errors/conflict-error.js';
import { ValidationError } from '../errors/validation-error.js';
import { SERVER_GIT_IDENTITY, type CheckoutRunner } from './checkout-runner.js';
import { readCheckoutRefHint } from './read-checkout-ref.js';
import { readRefFromFiles } from './read-ref-from-files.js';
import { syncCheckoutRef, type RefSyncResult } from './sync-checkout.js';
import { discoverPushRemotes } from './git-push-proxy.js';
import { statOrNull } from '../worktree/stat-or-null.js';
import { runGit, tryGit } from './run-git.js';

/** Branch prefix of conversation checkouts: `cc/<conversationId>`, in the checkout and in the user's repository. */
export const WORKTREE_BRANCH_PREFIX = 'cc/';
/** Ref namespace of checkpoints: `refs/cc-checkpoints/<conversationId>/<timestamp>`. */
export const CHECKPOINT_REF_PREFIX = 'refs/cc-checkpoints/';
/** Folder inside `worktreesDir` where removed plain (non-git) folders are kept. */
export const ARCHIVE_DIR_NAME = '.archive';

const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * What the server knew and decided when it made a conversation's checkout (SEC-3). Recorded once, in
 * the workspace's database; every sandbox mount and every push target comes from here, never from
 * files inside the checkout, which the agent can rewrite.
 */
export interface CheckoutRecord {
  /** The checkout's key: the conversation id, or a one-shot run's own id when it has no conversation. */
  conversationId: string;
  /** The user's repository as configured on the space (absolute). */
  repoPath: string;
  /** Its common git directory (absolute, real path). */
  sourceGitDir: string;
  /** Its object directory: the checkout's alternates name it; sandboxes mount it read-only. */
  sourceObjectsDir: string;
  /** `cc/<conversationId>`. */
  branch: string;
  /** The commit the branch started from. */
  baseSha: string;
  /** The source repository's push remotes when the checkout was made: the only targets the push proxy forwards to. */
  remotes: PushRemote[];
  createdAt: string;
}

/** Where checkout records are kept (the workspace database in the server; a map in tests). */
export interface CheckoutRecords {
  get(conversationId: string): Promise<CheckoutRecord | null>;
  put(record: CheckoutRecord): Promise<void>;
}

/** Records kept in memory (tests, tools used outside a workspace). */
export function memoryCheckoutRecords(): CheckoutRecords {
  const records = new Map<string, CheckoutRecord>();
  return {
    get: async (conversationId) => records.get(conversationId) ?? null,
    put: async (record) => {
      records.set(record.conversationId, record);
    },
  };
}

export interface EnsureWorktreeOptions {
  /** The space's repository; `null`/absent for a space without one (a plain folder is made). */
  repoPath?: string | null;
  /** Directory holding one checkout per conversation. */
  worktreesDir: string;
  /** Names the folder and the branch; letters, digits, `_` and `-` only. */
  conversationId: string;
  /** What a new branch starts from (default `HEAD` of the repository). Ignored when the branch exists. */
  baseRef?: string;
  /** The server's records of checkouts it made (required for a repository). */
  records?: CheckoutRecords;
  /** Names the branch `cc/<branchKey>` when it differs from the folder (a linked repository's checkout, SKL-4). */
  branchKey?: string;
}

export interface ConversationWorktree {
  /** Absolute path of the checkout (the tools' root). */
  path: string;
  kind: 'git' | 'folder';
  /** `cc/<conversationId>` for a git checkout, `null` for a folder. */
  branch: string | null;
  /** False when an existing checkout was reused. */
  created: boolean;
  /** The server's record of a git checkout (null for a folder). */
  checkout: CheckoutRecord | null;
}

export interface RemoveWorktreeOptions {
  repoPath?: string | null;
  worktreesDir: string;
  conversationId: string;
  /** The server's records (required for a repository). */
  records?: CheckoutRecords;
  /** Runs git inside the checkout where its config can only affect a sandbox (required for a repository). */
  runner?: CheckoutRunner;
  /** Clock for the checkpoint/archive name (tests). */
  now?: Date;
}

export interface RemovedWorktree {
  path: string;
  /** False when there was nothing to remove. */
  removed: boolean;
  /** The ref (in the user's repository) holding the uncommitted state, when there was any. */
  checkpointRef: string | null;
  /** Where a non-empty plain folder was moved instead of being deleted. */
  archivedPath: string | null;
}

function assertConversationId(conversationId: string): void {
  if (!CONVERSATION_ID.test(conversationId)) {
    throw new ValidationError('conversationId', `conversationId ${JSON.stringify(conversationId)} must be 1-128 letters, digits, "_" or "-", starting with a letter or digit`);
  }
}

function pathExists(path: string): boolean {
  return statOrNull(path, 'follow') !== null;
}

/** `20250102T030405678Z`: sortable, and legal in a ref name (no `:`). */
function compactTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '');
}

/** Serializes work per key inside this process, so two calls for one conversation cannot race. */
const inFlight = new Map<string, Promise<unknown>>();
export async function serializedCheckoutWork<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = inFlight.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(work);
  inFlight.set(key, next);
  try {
    return await next;
  } finally {
    if (inFlight.get(key) === next) inFlight.delete(key);
  }
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

/** The user's repository's git dir and object dir, read from the repository itself (the user's, not the agent's). */
async function describeSource(repoPath: string): Promise<{ gitDir: string; objectsDir: string }> {
  const described = await tryGit(['rev-parse', '--path-format=absolute', '--git-common-dir', '--git-path', 'objects'], { cwd: repoPath });
  const [gitDir, objectsDir] = described?.stdout.split('\n').map((line) => line.trim()) ?? [];
  if (!gitDir || !objectsDir) throw new ValidationError('repoPath', `${repoPath} is not a git repository`);
  return { gitDir: await realpath(gitDir), objectsDir: await realpath(objectsDir) };
}

/** The conversation's synced branch in the user's repository, when an earlier checkout left one. */
async function syncedBranch(repoPath: string, branch: string): Promise<string | null> {
  return (await tryGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: repoPath }))?.stdout.trim() || null;
}

/**
 * The recorded remotes as the checkout spells them: local paths made absolute (a relative URL would
 * mean another place from the checkout), so the push proxy's `pushInsteadOf` matches what git sees.
 * Only the first URL of each name is written into the checkout.
 */
export function checkoutPushRemotes(record: CheckoutRecord): PushRemote[] {
  const first = new Map<string, PushRemote>();
  for (const remote of record.remotes) if (!first.has(remote.name)) first.set(remote.name, { ...remote, url: remote.forwardUrl });
  return [...first.values()];
}

/**
 * Makes the checkout folder: `git clone --shared --no-checkout` of the source's git dir (its objects
 * reached through alternates, never hard-linked: a hard-linked object file could be rewritten through
 * the link by the same user), the source's push remotes instead of `origin → source`, and the branch
 * `cc/<id>` checked out at `start`. The folder is the server's own until this returns, so running
 * git in it here reads only config the server wrote.
 */
async function cloneCheckout(record: CheckoutRecord, directory: string, start: string): Promise<void> {
  await runGit(['clone', '--quiet', '--shared', '--no-checkout', '--template=', '--', record.sourceGitDir, directory], { cwd: resolvePath(directory, '..') });
  try {
    await runGit(['remote', 'remove', 'origin'], { cwd: directory });
    // One URL per name: an explicit pushurl would make git ignore the push proxy's pushInsteadOf.
    const urls = new Map<string, string[]>();
    for (const remote of checkoutPushRemotes(record)) urls.set(remote.name, [...(urls.get(remote.name) ?? []), remote.url]);
    for (const [name, list] of urls) {
      // Git itself refuses such names; a newline would end the config line.
      if (/[\n\0]/.test(name) || name === '') continue;
      await runGit(['config', '--', `remote.${name}.url`, list[0]!], { cwd: directory });
      await runGit(['config', '--', `remote.${name}.fetch`, `+refs/heads/*:refs/remotes/${name}/*`], { cwd: directory });
    }
    await runGit(['checkout', '--quiet', '--no-track', '-B', record.branch, start], { cwd: directory });
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A conversation folder made by an earlier version of the server — a `git worktree add` of the user's
 * repository, which the user's repository itself lists — is moved to `.archive/` (nothing in it is
 * lost) and unregistered, so its branch `cc/<id>`, already in the user's repository, becomes the
 * start of the new checkout. Returns false when the folder is not such a worktree.
 */
async function retireLegacyWorktree(repoPath: string, worktreesDir: string, directory: string, conversationId: string): Promise<boolean> {
  const listed = await tryGit(['worktree', 'list', '--porcelain'], { cwd: repoPath });
  const real = await realpath(directory).catch(() => directory);
  const registered = listed?.stdout.split('\n').some((line) => line === `worktree ${directory}` || line === `worktree ${real}`) ?? false;
  if (!registered) return false;
  const archiveDir = join(worktreesDir, ARCHIVE_DIR_NAME);
  await mkdir(archiveDir, { recursive: true });
  await rename(directory, join(archiveDir, `${conversationId}-legacy-${compactTimestamp(new Date())}`));
  await runGit(['worktree', 'prune'], { cwd: repoPath });
  return true;
}

/**
 * Gives a conversation its own checkout (HAR-7, SEC-3): a clone of the space's repository in
 * `worktreesDir/<conversationId>` whose git metadata (refs, config, hooks, index) is its own, so
 * nothing the agent does in it — `git update-ref`, a `.git` file pointing elsewhere, a rewritten
 * config — reaches the user's repository. The source's objects are shared read-only. The facts are
 * recorded ({@link CheckoutRecord}) when the checkout is made and reused afterwards; a checkout whose
 * folder vanished is made again from its record, on the conversation's synced branch `cc/<id>` of
 * the user's repository when there is one. A space without a repository gets a plain folder.
 */
export async function ensureWorktree(options: EnsureWorktreeOptions): Promise<ConversationWorktree> {
  assertConversationId(options.conversationId);
  const directory = resolvePath(options.worktreesDir, options.conversationId);
  return serializedCheckoutWork(directory, async () => {
    mkdirSync(options.worktreesDir, { recursive: true });
    if (!options.repoPath) {
      const existed = pathExists(directory);
      await mkdir(directory, { recursive: true });
      return { path: directory, kind: 'folder', branch: null, created: !existed, checkout: null };
    }
    const records = options.records;
    if (!records) throw new Error('ensureWorktree needs checkout records for a repository');
    const existing = await records.get(options.conversationId);
    if (existing) {
      if (pathExists(directory)) return { path: directory, kind: 'git', branch: existing.branch, created: false, checkout: existing };
      await cloneCheckout(existing, directory, (await syncedBranch(existing.repoPath, existing.branch)) ?? existing.baseSha);
      return { path: directory, kind: 'git', branch: existing.branch, created: true, checkout: existing };
    }
    const repoPath = resolvePath(options.repoPath);
    if (pathExists(directory) && (await readdir(directory)).length > 0) {
      if (!(await retireLegacyWorktree(repoPath, options.worktreesDir, directory, options.conversationId))) {
        throw new ConflictError('conversationId', `${directory} exists and is not a checkout this server made; refusing to reuse it`);
      }
    }
    const source = await describeSource(repoPath);
    const branch = `${WORKTREE_BRANCH_PREFIX}${options.branchKey ?? options.conversationId}`;
    const baseSha = (await syncedBranch(repoPath, branch)) ?? (await resolveBase(repoPath, options.baseRef));
    const record: CheckoutRecord = {
      conversationId: options.conversationId,
      repoPath,
      sourceGitDir: source.gitDir,
      sourceObjectsDir: source.objectsDir,
      branch,
      baseSha,
      // Read from the user's repository, never from the checkout (SEC-2): the push proxy's targets.
      remotes: await discoverPushRemotes(repoPath),
      createdAt: new Date().toISOString(),
    };
    if (pathExists(directory)) await rmdir(directory);
    await cloneCheckout(record, directory, baseSha);
    await records.put(record);
    return { path: directory, kind: 'git', branch, created: true, checkout: record };
  });
}

/**
 * Brings the conversation's branch of its checkout into the user's repository as
 * `refs/heads/cc/<conversationId>` (SEC-3): the agent's commits show up there without anyone
 * pushing, and no other ref of the user's repository moves. See {@link syncCheckoutRef}.
 */
export async function syncWorktreeBranch(record: CheckoutRecord, runner: CheckoutRunner, options: { worktreePath?: string } = {}): Promise<RefSyncResult> {
  const ref = `refs/heads/${record.branch}`;
  const known = await knownCommits(record);
  // With the checkout's path, its loose ref file is read first: most runs commit nothing, and then
  // no process starts at all (see readCheckoutRefHint for why that file may be read).
  const tipHint = options.worktreePath ? readCheckoutRefHint(options.worktreePath, ref) : null;
  // The branch's tip in the user's repository was just read for the exclusions: no second read.
  return syncCheckoutRef(record.repoPath, runner, ref, { force: true, exclude: known.commits, current: known.tip, tipHint });
}

/**
 * Commits of the checkout the user's repository already has — the synced branch's tip first, then the
 * recorded base — left out of bundles. Usually no git process at all (the tip is read from the user's
 * repository's ref files, see {@link readRefFromFiles}): the base is a recorded fact, and a base the
 * user's repository has since lost only makes the small bundle fail over to a whole one.
 */
async function knownCommits(record: CheckoutRecord): Promise<{ commits: string[]; tip: string | null }> {
  const ref = `refs/heads/${record.branch}`;
  // The user's repository's files first (no git process); git when only git can tell.
  const fromFiles = await readRefFromFiles(record.sourceGitDir, ref);
  const tip = fromFiles !== undefined ? (fromFiles ?? '') : ((await tryGit(['for-each-ref', '--format=%(objectname)', ref], { cwd: record.repoPath }))?.stdout.trim() ?? '');
  return { commits: [...new Set([tip, record.baseSha].filter((sha) => /^[0-9a-f]{40,64}$/.test(sha)))], tip: tip || null };
}

/**
 * Shell lines that write the checkout's whole state (tracked changes, deletions, untracked files, not
 * ignored ones) as a tree on a scratch index: they set `$head` (empty on an unborn branch) and `$tree`.
 * The real index and the files do not move.
 */
export const SCRATCH_INDEX_TREE_LINES = `real=$(git rev-parse --path-format=absolute --git-path index)
head=$(git rev-parse --verify --quiet HEAD || true)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export GIT_INDEX_FILE="$scratch/index"
if [ -f "$real" ]; then cp "$real" "$GIT_INDEX_FILE"; elif [ -n "$head" ]; then git read-tree "$head"; fi
git add --all -- .
tree=$(git write-tree)`;

/** Shell run inside the checkout's sandbox: commits its whole state on a scratch index, prints the ref made. */
const CHECKPOINT_SCRIPT = `set -e
${SCRATCH_INDEX_TREE_LINES}
branch=$(git symbolic-ref --quiet --short HEAD || echo '(detached)')
message=$(printf 'Checkpoint of conversation %s before its checkout was removed\\n\\nBranch: %s\\nAt: %s\\n' "$2" "$branch" "$3")
if [ -n "$head" ]; then commit=$(git commit-tree "$tree" -p "$head" -m "$message"); else commit=$(git commit-tree "$tree" -m "$message"); fi
ref="$1"; n=0
until git update-ref -m 'cc checkpoint' "$ref" "$commit" '' 2>/dev/null; do
  n=$((n+1)); if [ "$n" -ge 100 ]; then echo 'no free checkpoint ref name' >&2; exit 3; fi
  ref="$1-$n"
done
printf '%s\\n' "$ref"
`;

/**
 * Commits the complete state of a checkout — tracked changes, deletions and untracked files, not
 * ignored ones — to `refs/cc-checkpoints/<conversationId>/<timestamp>` and brings that ref into the
 * user's repository (HAR-7). The commit is made inside the checkout's sandbox on a scratch index, so
 * neither the branch, nor the real index, nor the files move, and no config the agent wrote runs in
 * the server. Returns the ref; throws when it could not be made or brought over.
 */
export async function checkpointWorktree(record: CheckoutRecord, runner: CheckoutRunner, now: Date = new Date()): Promise<string> {
  assertConversationId(record.conversationId);
  const base = `${CHECKPOINT_REF_PREFIX}${record.conversationId}/${compactTimestamp(now)}`;
  const made = await runner(['sh', '-c', CHECKPOINT_SCRIPT, 'cc-checkpoint', base, record.conversationId, now.toISOString()], SERVER_GIT_IDENTITY);
  const ref = made.stdout.toString('utf8').trim();
  const expected = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(-\\d{1,2})?$`);
  if (made.exitCode !== 0 || !expected.test(ref)) throw new ConflictError('conversationId', `checkpoint of ${record.conversationId} failed: ${made.stderr.trim().slice(0, 500) || `exit ${made.exitCode}`}`);
  // A checkpoint ref is never overwritten, in the checkout or in the user's repository.
  const synced = await syncCheckoutRef(record.repoPath, runner, ref, { force: false, exclude: (await knownCommits(record)).commits });
  if (!synced.synced) throw new ConflictError('conversationId', `checkpoint ${ref} could not be brought into ${record.repoPath}: ${synced.reason}`);
  return ref;
}

/** True when the checkout has tracked changes or untracked (not ignored) files (git runs in its sandbox). */
export async function hasUncommittedChanges(runner: CheckoutRunner): Promise<boolean> {
  const status = await runner(['git', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none']);
  // Unreadable state counts as changes: the caller then checkpoints rather than risk losing work.
  return status.exitCode !== 0 || status.stdout.length > 0;
}

/** Checkpoint refs of a conversation in the user's repository, oldest first. */
export async function listCheckpoints(repoPath: string, conversationId: string): Promise<string[]> {
  assertConversationId(conversationId);
  const { stdout } = await runGit(['for-each-ref', '--format=%(refname)', `${CHECKPOINT_REF_PREFIX}${conversationId}/`], { cwd: repoPath });
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/**
 * Removes a conversation's checkout without ever losing work (HAR-7): its branch is first brought
 * into the user's repository as `cc/<conversationId>`; uncommitted changes or untracked files (or a
 * branch that could not be brought over) are committed to a checkpoint ref that is brought over too
 * ({@link checkpointWorktree}); only then is the folder deleted. The record stays, so the next run
 * of the conversation gets a new checkout on its synced branch. Files matched by `.gitignore` are not
 * checkpointed (build output, dependencies). A plain folder that is not empty is moved to
 * `<worktreesDir>/.archive/` instead of being deleted.
 */
export async function removeWorktree(options: RemoveWorktreeOptions): Promise<RemovedWorktree> {
  assertConversationId(options.conversationId);
  const directory = resolvePath(options.worktreesDir, options.conversationId);
  const now = options.now ?? new Date();
  return serializedCheckoutWork(directory, async () => {
    const nothing: RemovedWorktree = { path: directory, removed: false, checkpointRef: null, archivedPath: null };
    if (!options.repoPath) {
      if (!pathExists(directory)) return nothing;
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
    const record = options.records ? await options.records.get(options.conversationId) : null;
    if (!record) {
      if (pathExists(directory)) throw new ConflictError('conversationId', `${directory} is not a checkout this server made; refusing to delete it`);
      return nothing;
    }
    if (!pathExists(directory)) return nothing;
    if (!options.runner) throw new Error('removeWorktree needs a checkout runner for a git checkout');
    const runner = options.runner;
    const branch = await syncWorktreeBranch(record, runner);
    const dirty = await hasUncommittedChanges(runner);
    const checkpointRef = dirty || !branch.synced ? await checkpointWorktree(record, runner, now) : null;
    // Node's rm unlinks symlinks instead of following them: nothing outside the folder is touched.
    await rm(directory, { recursive: true, force: true });
    return { ...nothing, removed: true, checkpointRef };
  });
}
