/**
 * Pull-request URLs, clone URLs and branch names read from a forge (SEC-2). All three are
 * hostile: the PR URL is typed by whoever opens the review, and the clone URL and branch names come
 * from the forge's JSON, which the pull request's author partly controls (a fork's name, a branch
 * name). Pure functions: the forge adapter and the service call them before anything touches git.
 */

/** Which pull request a URL names. */
export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
}

/** GitHub's own rules for owner and repository names, kept strict: letters, digits, `.`, `_`, `-`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The configured base as `origin + path` without a trailing slash (`https://github.com`, `http://127.0.0.1:5000/gh`). */
function normalizedBase(base: string): URL {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '');
  url.search = '';
  url.hash = '';
  return url;
}

/** The path of `url` below the configured base, or null when it is not under it (other origin, other prefix). */
function pathBelow(url: URL, base: string): string | null {
  const root = normalizedBase(base);
  if (url.origin !== root.origin) return null;
  if (url.username !== '' || url.password !== '') return null;
  // A URL's pathname is never empty ('/' at least): the prefix is the base path without its trailing slashes.
  const prefix = root.pathname.replace(/\/+$/, '');
  if (prefix !== '' && !url.pathname.startsWith(`${prefix}/`)) return null;
  return url.pathname.slice(prefix.length);
}

function validName(name: string): boolean {
  return NAME.test(name) && name !== '.' && name !== '..' && !name.endsWith('.git');
}

/**
 * Parses `https://github.com/<owner>/<repo>/pull/<n>` (optionally followed by `/files`, `/commits`…,
 * a query or a fragment) under the configured web base. Returns the problem as a string when it is
 * not such a URL, so the route answers 400 naming `prUrl`.
 */
export function parsePullRequestUrl(raw: string, webBase: string): PullRequestRef | string {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f\s]/.test(raw)) return 'a pull-request URL holds no spaces or control characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== normalizedBase(webBase).protocol) return 'a pull-request URL must be https';
  const path = pathBelow(url, webBase);
  if (path === null) return `a pull-request URL must be on ${normalizedBase(webBase).href.replace(/\/$/, '')}`;
  const match = /^\/([^/]+)\/([^/]+)\/pull\/([1-9][0-9]{0,9})(?:\/(?:files|commits|checks|changes))?\/?$/.exec(path);
  if (!match) return 'expected …/<owner>/<repo>/pull/<number>';
  const [, owner, repo, number] = match;
  if (!validName(owner!) || !validName(repo!)) return 'the owner or repository name is not a valid GitHub name';
  const value = Number(number);
  if (!Number.isSafeInteger(value) || value > 2_147_483_647) return 'the pull-request number is out of range';
  return { owner: owner!, repo: repo!, number: value };
}

/**
 * Why a clone URL read from the forge's JSON may not be fetched, or null when it may. It must be the
 * base repository of the pull request under the configured web base — https, or the configured base's
 * own scheme when the operator configured a non-https base (a local fake in tests) — with no user
 * info, query or fragment. `ext::`, `file://`, scp-like `host:path`, option-shaped values and any
 * other host are refused.
 */
export function cloneUrlProblem(raw: unknown, webBase: string, expected: { owner: string; repo: string }): string | null {
  if (typeof raw !== 'string' || raw === '') return 'the forge gave no clone URL';
  if (raw.startsWith('-')) return 'the clone URL is option-shaped';
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u0020\u007f]/.test(raw)) return 'the clone URL holds spaces or control characters';
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(raw)) return 'the clone URL names a git remote helper';
  // What git is handed is the raw string: no escapes, queries or fragments that a URL parser and git could read differently.
  if (/[?#%\\]/.test(raw)) return 'the clone URL holds `?`, `#`, `%` or a backslash';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the clone URL is not a URL';
  }
  if (url.href !== raw) return 'the clone URL is not in canonical form (dot segments, case, default port…)';
  const base = normalizedBase(webBase);
  if (url.protocol !== 'https:' && url.protocol !== base.protocol) return `the clone URL's scheme ${url.protocol} is not allowed`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `the clone URL's scheme ${url.protocol} is not allowed`;
  if (url.search !== '' || url.hash !== '') return 'the clone URL has a query or fragment';
  const path = pathBelow(url, webBase);
  if (path === null) return `the clone URL is not on the configured forge (${base.origin})`;
  const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?$/.exec(path);
  if (!match || match[1] !== expected.owner || match[2] !== expected.repo) return `the clone URL is not the pull request's repository ${expected.owner}/${expected.repo}`;
  return null;
}

/**
 * Why a branch name read from the forge may not be used as a ref, or null. Stricter than
 * `git check-ref-format`: printable ASCII without `:`, `~`, `^`, `?`, `*`, `[`, `\`, `..`, `@{`,
 * `//`, no leading `-`, `/` or `.`, no trailing `/`, `.` or `.lock`.
 */
export function branchNameProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '' || raw.length > 255) return 'the branch name is missing or too long';
  if (!/^[A-Za-z0-9._/+=,-]+$/.test(raw)) return 'the branch name holds characters a ref may not';
  if (/^[-/.]/.test(raw) || /[/.]$/.test(raw) || raw.endsWith('.lock')) return 'the branch name starts or ends in a way a ref may not';
  if (raw.includes('..') || raw.includes('//') || raw.includes('/.')) return 'the branch name holds `..`, `//` or `/.`';
  return null;
}

/** A 40- or 64-hex commit id as the forge reports it, or null. */
export function commitIdOf(raw: unknown): string | null {
  return typeof raw === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(raw) ? raw : null;
}
