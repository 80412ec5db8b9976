import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { realpathSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import type { SkillFolderEntry } from '../../core/skills/scan/scan-types.js';
import { SKILL_FOLDER_LIMITS, readTarEntries } from '../../core/skills/tar-entries.js';
import { GitCommandError } from '../../git/git-command-error.js';
import { checkRemoteUrl } from '../../git/git-remote-url.js';
import { runGit } from '../../git/run-git.js';
import { formatBytes } from '../../sandbox/process-limits.js';
import { ValidationError } from '../../errors/index.js';

/** What `npx skills` would call the source: `github`, `gitlab`, `local` or plain `git`. */
export function sourceTypeOf(url: string, transport: string): string {
  if (transport === 'file') return 'local';
  if (/^(?:https?:\/\/|git@|ssh:\/\/(?:git@)?)github\.com[/:]/i.test(url)) return 'github';
  if (/^(?:https?:\/\/|git@|ssh:\/\/(?:git@)?)gitlab\.com[/:]/i.test(url)) return 'gitlab';
  return 'git';
}

/** Where the operator's local source paths may not point (the server's own data root, SEC-4). */
export interface SourceUrlLimits {
  /** Absolute folders a local source may not be in: they hold other workspaces, tokens and checkouts. */
  refusedLocalRoots?: readonly string[];
}

/** The local path a `file://` URL or plain path names (percent-decoded), or null when it names a remote host. */
function localPathOf(url: string): string | null {
  if (!/^file:\/\//i.test(url)) return url;
  const rest = url.slice('file://'.length);
  const slash = rest.indexOf('/');
  const host = slash === -1 ? rest : rest.slice(0, slash);
  if (host !== '' && host.toLowerCase() !== 'localhost') return null;
  try {
    return decodeURIComponent(slash === -1 ? '/' : rest.slice(slash));
  } catch {
    return null;
  }
}

/**
 * Checks a source URL the operator typed (SEC-2: URLs are hostile even from an operator's paste):
 * the remote-URL rules of `checkRemoteUrl`; no credentials in the URL (they would be stored, shown
 * in listings and written into `skills-lock.json` — private sources authenticate through git's own
 * credential configuration); a local path must be absolute (the server does not run where the
 * operator's shell did) and outside the server's data root (SKL-3, SEC-4). Refusals never repeat the
 * URL, which may carry a secret.
 */
export function checkSourceUrl(url: string, limits: SourceUrlLimits = {}): { url: string; sourceType: string } {
  const trimmed = url.trim();
  const check = checkRemoteUrl(trimmed, '/');
  if (!check.ok) throw new ValidationError('url', `the source URL ${check.reason}`);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(trimmed);
  if (scheme && scheme[1]!.toLowerCase() !== 'file') {
    const authority = scheme[2]!;
    const at = authority.lastIndexOf('@');
    const user = at === -1 ? '' : authority.slice(0, at);
    // ssh's `user@host` names an account, not a secret; an http(s)/git user part is a token slot.
    if (user.includes(':') || (user !== '' && !/^(?:ssh|git\+ssh|ssh\+git)$/i.test(scheme[1]!))) {
      throw new ValidationError('url', 'the source URL carries credentials; register it without them and let git authenticate (credential helper or SSH key)');
    }
  }
  if (check.transport === 'file') {
    const local = localPathOf(trimmed);
    if (local === null) throw new ValidationError('url', 'a file:// source must name a path on this machine (file:///absolute/path)');
    if (!local.startsWith('/')) throw new ValidationError('url', 'a local source must be an absolute path or a file:// URL');
    const target = resolvePath(local);
    for (const root of limits.refusedLocalRoots ?? []) {
      const refused = resolvePath(root);
      if (target === refused || target.startsWith(`${refused}/`) || isInsideReal(target, refused)) {
        throw new ValidationError('url', "a local source may not be inside the server's data folder");
      }
    }
  }
  return { url: trimmed, sourceType: sourceTypeOf(trimmed, check.transport) };
}

/** Whether `path`, with its links resolved, is inside `root` (a link elsewhere may point into the data root). */
function isInsideReal(path: string, root: string): boolean {
  try {
    const real = realpathSync(path);
    const realRoot = realpathSync(root);
    return real === realRoot || real.startsWith(`${realRoot}/`);
  } catch {
    return false;
  }
}

/** A skill folder path inside a repository: relative, `/`-separated, no `.`/`..` segments. */
export function checkSkillPath(path: string): string {
  const trimmed = path.trim().replace(/^\.\/+/, '').replace(/\/+$/, '');
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (trimmed === '' || trimmed.startsWith('/') || trimmed.startsWith('-') || /[\u0000-\u001f\u007f\\:]/.test(trimmed) || trimmed.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new ValidationError('path', `'${path}' is not a folder path inside the repository (relative, no '..')`);
  }
  return trimmed;
}

/** A ref name or commit the operator gave: no option shapes, no control characters, no revision syntax. */
export function checkRef(ref: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/.test(ref) || ref.includes('..') || ref.endsWith('.lock') || ref.endsWith('/')) {
    throw new ValidationError('ref', `'${ref}' is not a branch, tag or commit name`);
  }
  return ref;
}

/** A fetched source: a throw-away bare repository holding one commit. */
export interface FetchedSource {
  commit: string;
  /** Paths of every SKILL.md in the commit's tree. */
  skillFiles(): Promise<string[]>;
  /** A blob's text at the fetched commit (SKILL.md files are read to list a source). */
  readText(path: string): Promise<string>;
  /** The whole folder at `path` as in-memory entries (nothing is written where a runner could see it). */
  folder(path: string): Promise<SkillFolderEntry[]>;
  dispose(): Promise<void>;
}

/** The largest SKILL.md read to list a source (the installed one is read with the same cap). */
const SKILL_FILE_MAX_BYTES = 512 * 1024;

/**
 * Refuses a folder past {@link SKILL_FOLDER_LIMITS} from git's listing of its tree (SEC-10): the
 * sizes come from the object headers, so a blob that inflates to gigabytes is refused without being
 * inflated, and nothing is archived, written or read into memory.
 */
async function checkFolderSize(git: (args: string[], operands?: string[]) => Promise<{ stdout: string }>, treeish: string, path: string): Promise<void> {
  const listing = await git(['ls-tree', '-r', '-t', '-l', '-z'], [treeish]).catch((error: unknown) => {
    // More listing than git's output cap is itself far past the entry cap.
    if (error instanceof GitCommandError && /printed more than/.test(error.message)) return null;
    throw error;
  });
  const records = listing?.stdout.split('\0').filter((record) => record !== '') ?? null;
  if (records === null || records.length > SKILL_FOLDER_LIMITS.maxEntries) {
    throw new ValidationError('path', `'${path}' has more than ${SKILL_FOLDER_LIMITS.maxEntries} entries, the most a skill may have; nothing was written`);
  }
  // `<mode> <type> <object> <size>\t<name>`; the size of a tree or submodule is `-`.
  const bytes = records.reduce((total, record) => total + (Number(record.slice(0, record.indexOf('\t')).trim().split(/\s+/)[3]) || 0), 0);
  if (bytes > SKILL_FOLDER_LIMITS.maxBytes) {
    throw new ValidationError('path', `'${path}' holds ${bytes} bytes, more than the ${SKILL_FOLDER_LIMITS.maxBytes} a skill may have; nothing was written`);
  }
}

/** Bounds on one fetch of a source (SEC-10, SEC-11): the URL is the operator's, the server at it is not. */
export interface SourceFetchLimits {
  /** Longest the fetch may take; a server that accepts the connection and never answers ends here. */
  timeoutMs: number;
  /** Largest pack the fetch may write (git's RLIMIT_FSIZE): the one commit's whole tree, every blob of it. */
  packBytes: number;
}

/** Two minutes, and 256 MiB: a repository of many skills fits many times over; a skill may hold 32 MiB. */
export const SOURCE_FETCH_LIMITS: SourceFetchLimits = { timeoutMs: 2 * 60_000, packBytes: 256 * 1024 * 1024 };

/**
 * Whether a failed fetch wrote a pack up to the cap: index-pack, stopped by RLIMIT_FSIZE, leaves its
 * partial `tmp_pack_*` at exactly the cap (git's own message for it varies: "invalid index-pack
 * output", "died of signal 25").
 */
async function packReachedCap(dir: string, packBytes: number): Promise<boolean> {
  const packDir = join(dir, 'objects', 'pack');
  for (const name of await readdir(packDir).catch(() => [] as string[])) {
    if (((await stat(join(packDir, name)).catch(() => null))?.size ?? 0) >= packBytes) return true;
  }
  return false;
}

async function fetchError(dir: string, field: string, error: unknown, limits: SourceFetchLimits): Promise<never> {
  if (error instanceof GitCommandError && (await packReachedCap(dir, limits.packBytes))) {
    throw new ValidationError('url', `the source is larger than ${formatBytes(limits.packBytes)}, the most one fetch of a skill source may bring; nothing was stored`);
  }
  if (error instanceof GitCommandError) throw new ValidationError(field, `git could not fetch it: ${error.message.split('\n').slice(0, 3).join(' ').slice(0, 500)}`);
  throw error;
}

/**
 * Fetches one commit of a source (SKL-3) into a fresh bare repository in the system temp directory,
 * through the hardened git (SEC-2): the repository is the server's own (`serverOwned`), the URL and
 * the ref go in as operands only, and `ext::`-style helpers were refused by {@link checkSourceUrl}.
 * The fetch is bounded by `limits` (a timeout; a cap on the pack, with git's own limits of SEC-11):
 * one commit (`--depth=1`) into one pack (`fetch.unpackLimit` 1, so no number of loose objects
 * escapes the cap on a file's size).
 */
export async function fetchSource(url: string, ref: string | null, limits: SourceFetchLimits = SOURCE_FETCH_LIMITS): Promise<FetchedSource> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-skill-source-'));
  const git = (args: string[], operands: string[] = []) => runGit(args, { cwd: dir, trust: 'serverOwned', operands });
  try {
    await git(['init', '--bare', '-q']);
    await git(['config', 'fetch.unpackLimit', '1']);
    await runGit(['fetch', '--depth=1', '--no-tags', '-q'], { cwd: dir, trust: 'serverOwned', operands: [url, ref ?? 'HEAD'], timeoutMs: limits.timeoutMs, limits: { fileSizeBytes: limits.packBytes } }).catch(
      (error: unknown) => fetchError(dir, ref ? 'ref' : 'url', error, limits),
    );
    const commit = (await git(['rev-parse', '--verify', 'FETCH_HEAD^{commit}'])).stdout.trim();
    return {
      commit,
      async skillFiles() {
        const listed = await git(['ls-tree', '-r', '-z', '--name-only'], [commit]);
        return listed.stdout.split('\0').filter((path) => path === 'SKILL.md' || path.endsWith('/SKILL.md'));
      },
      async readText(path) {
        // SEC-10: the size from the object header first; an oversized file is never inflated.
        const size = Number((await git(['cat-file', '-s'], [`${commit}:${path}`])).stdout.trim());
        if (!(size <= SKILL_FILE_MAX_BYTES)) throw new ValidationError('path', `'${path}' is ${size} bytes, more than the ${SKILL_FILE_MAX_BYTES} a SKILL.md may have`);
        return (await git(['cat-file', 'blob'], [`${commit}:${path}`])).stdout;
      },
      async folder(path) {
        const type = await git(['cat-file', '-t'], [`${commit}:${path}`]).catch(() => null);
        if (type?.stdout.trim() !== 'tree') throw new ValidationError('path', `'${path}' is not a folder at commit ${commit.slice(0, 12)}`);
        await checkFolderSize(git, `${commit}:${path}`, path);
        const archive = join(dir, 'folder.tar');
        await git(['archive', '--format=tar', `--output=${archive}`], [`${commit}:${path}`]);
        // The listing bounded the content; headers and padding add at most ~1.5 KiB a member.
        const archiveCap = SKILL_FOLDER_LIMITS.maxBytes + (SKILL_FOLDER_LIMITS.maxEntries + 4) * 1536;
        if ((await stat(archive)).size > archiveCap) throw new ValidationError('path', `'${path}' makes an archive larger than ${archiveCap} bytes; nothing was written`);
        return readTarEntries(new Uint8Array(await readFile(archive)));
      },
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
