import type { ShellWord } from './shell-words.js';

/**
 * Where the shell's current directory is, relative to the conversation's worktree: below its root
 * (`segments`), somewhere else known to be outside, or unknown (`cd "$DIR"`).
 */
export type ShellCwd = { readonly kind: 'inside'; readonly segments: readonly string[] } | { readonly kind: 'outside' } | { readonly kind: 'unknown' };

/** The worktree root itself: where every command line starts. */
export const WORKTREE_ROOT_CWD: ShellCwd = { kind: 'inside', segments: [] };

/**
 * Where a path a command writes lands (HAR-7): `none` for sinks that are not files (`/dev/null`,
 * stdout), `inside` or `outside` the worktree, or `unknown` when it is only known at run time — which
 * callers treat as both, the most restrictive reading.
 */
export type PathLocation = 'none' | 'inside' | 'outside' | 'unknown';

const NON_FILE_SINKS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/zero', '-']);

/** Normalizes `segments` + a relative path; `null` when `..` climbs above the starting point. */
function resolveSegments(base: readonly string[], relative: string): string[] | null {
  const segments = [...base];
  for (const part of relative.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (segments.length === 0) return null;
      segments.pop();
      continue;
    }
    // `.*` can match `..` in shells without globskipdots: it may climb out of the directory.
    if (part === '.*') return null;
    segments.push(part);
  }
  return segments;
}

/** Absolute `path` relative to `root`, as segments, or `null` when it is not below the root. */
function segmentsBelowRoot(path: string, root: string | undefined): string[] | null {
  if (root === undefined) return null;
  const rootSegments = resolveSegments([], root);
  const pathSegments = resolveSegments([], path);
  if (!rootSegments || !pathSegments || pathSegments.length < rootSegments.length) return null;
  for (let index = 0; index < rootSegments.length; index += 1) {
    if (rootSegments[index] !== pathSegments[index]) return null;
  }
  return pathSegments.slice(rootSegments.length);
}

/**
 * Locates a path a command writes, from the current directory. Absolute paths, `~` and `..` that
 * climbs out of the worktree are outside (HAR-7); absolute paths below `worktreeRoot` (when the caller
 * knows it) are inside; run-time values are unknown.
 */
export function locatePath(word: ShellWord, cwd: ShellCwd, worktreeRoot?: string): PathLocation {
  const path = word.value;
  if (path === null || path === '') return 'unknown';
  if (NON_FILE_SINKS.has(path) || path.startsWith('/dev/fd/') || path.startsWith('/proc/self/fd/')) return 'none';
  if (path.startsWith('~')) return 'outside';
  if (path.startsWith('/')) return segmentsBelowRoot(path, worktreeRoot) ? 'inside' : 'outside';
  if (cwd.kind === 'outside') return 'outside';
  if (cwd.kind === 'unknown') return 'unknown';
  return resolveSegments(cwd.segments, path) ? 'inside' : 'outside';
}

/**
 * The worktree-relative path (`a/b/c`) a command names, when it is statically known to be inside the
 * worktree; `null` otherwise (outside, run-time value, a glob the shell would expand, unknown current
 * directory, `{}` standing for what `find -exec` finds, or a `..` segment: the kernel resolves `link/../x` physically, not lexically). Used to
 * decide which file the classifier may read (SEC-5). The root itself is `''`.
 */
export function worktreeRelativePath(word: ShellWord, cwd: ShellCwd, worktreeRoot?: string): string | null {
  const path = word.value;
  if (path === null || path === '' || path.startsWith('~') || path.includes('\0') || /[*?[]/.test(path) || path.includes('{}') || path.split('/').includes('..')) return null;
  if (path.startsWith('/')) return segmentsBelowRoot(path, worktreeRoot)?.join('/') ?? null;
  if (cwd.kind !== 'inside') return null;
  return resolveSegments(cwd.segments, path)?.join('/') ?? null;
}

/** The current directory after `cd target` (no target: the home directory, outside). */
export function changeDirectory(cwd: ShellCwd, target: ShellWord | undefined, worktreeRoot?: string): ShellCwd {
  if (!target) return { kind: 'outside' };
  const path = target.value;
  if (path === null || path === '' || path === '-') return { kind: 'unknown' };
  if (path.startsWith('~')) return { kind: 'outside' };
  if (path.startsWith('/')) {
    const below = segmentsBelowRoot(path, worktreeRoot);
    return below ? { kind: 'inside', segments: below } : { kind: 'outside' };
  }
  if (cwd.kind !== 'inside') return cwd;
  const segments = resolveSegments(cwd.segments, path);
  return segments ? { kind: 'inside', segments } : { kind: 'outside' };
}

const SECRET_BASENAMES: ReadonlySet<string> = new Set([
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.htpasswd',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'credentials',
  'credentials.json',
  'shadow',
  '.vault-token',
]);

const SECRET_DIRECTORIES = ['.ssh/', '.aws/', '.gnupg/', '.docker/config.json', '.kube/config', '.config/gh/', '.password-store/'];

const ENV_FILE_EXAMPLES = ['.example', '.sample', '.template', '.dist'];

/**
 * True for paths that conventionally hold credentials: dotenv files (not their `.example` twins), SSH
 * and cloud credentials, package-registry tokens, private keys. Reading one is secret access (POL-2).
 */
export function isSecretPath(path: string): boolean {
  const normalized = path.startsWith('~') ? path.slice(1) : path;
  const basename = normalized.slice(normalized.lastIndexOf('/') + 1);
  if (basename === '.env' || (basename.startsWith('.env.') && !ENV_FILE_EXAMPLES.some((suffix) => basename.endsWith(suffix)))) {
    return true;
  }
  if (SECRET_BASENAMES.has(basename)) return true;
  if (basename.endsWith('.pem') || basename.endsWith('.key') || basename.endsWith('.p12') || basename.endsWith('.pfx')) return true;
  const withSlash = `/${normalized}`;
  return SECRET_DIRECTORIES.some((directory) => withSlash.includes(`/${directory}`));
}

const SECRET_VARIABLE = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL)/i;

/** True for environment variable names that conventionally hold credentials (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`). */
export function isSecretVariable(name: string): boolean {
  return SECRET_VARIABLE.test(name);
}

/**
 * True when a redirection to `target` may open a network connection: bash itself connects for
 * `/dev/tcp/HOST/PORT` and `/dev/udp/HOST/PORT` (no such file exists), so `cat < /dev/tcp/h/80` and
 * `echo "$T" > /dev/tcp/h/80` are network egress (POL-2). A target only known at run time counts when
 * it may begin with one (`> "$OUT"`, `< /dev/$P`), not when its first characters rule it out (`> out/$N`).
 */
export function mayOpenNetworkConnection(target: ShellWord): boolean {
  const text = target.value ?? target.raw.replace(/^["']+/, '');
  // What is known before the first run-time expansion (all of it for a static target).
  const expansion = target.value === null ? text.search(/[$`]/) : -1;
  const known = expansion === -1 ? text : text.slice(0, expansion);
  return ['/dev/tcp/', '/dev/udp/'].some((device) => known.startsWith(device) || (expansion !== -1 && device.startsWith(known)));
}
