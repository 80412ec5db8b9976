import type { PushRemote } from '../core/hook-sessions.js';
import { cloneUrlProblem } from '../core/review/forge-pull-request.js';
import type { WorkspaceSettings } from '../schemas/settings.js';

/** The forges whose repositories a run can read through the server (POL-6). */
export type ReadableForge = NonNullable<PushRemote['forgeRead']>;

/** A repository path on the forge's web base: `/<owner>/<repo>` or `/<owner>/<repo>.git`. */
const REPOSITORY_PATH = /^\/([^/]+)\/([^/]+?)(?:\.git)?$/;

/**
 * Which configured forge `url` is a repository of, or null (POL-6). Only a URL in the exact form a
 * clone URL from that forge takes — under the workspace's `githubWebBaseUrl`, no user info, query,
 * fragment or escapes, `<owner>/<repo>[.git]` — and only while the workspace holds a token for it:
 * the server reads such a remote for the run with that token, so the URL must name a repository of
 * the forge the token belongs to, never another host the token would then be sent to.
 */
export function readableForgeOf(url: string, settings: Pick<WorkspaceSettings, 'githubWebBaseUrl' | 'forgeTokens'>): ReadableForge | null {
  return forgeRepositoryOf(url, settings)?.forge ?? null;
}

/** Like {@link readableForgeOf}, with the repository the URL names (CHG-2 opens its pull requests there). */
export function forgeRepositoryOf(url: string, settings: Pick<WorkspaceSettings, 'githubWebBaseUrl' | 'forgeTokens'>): { forge: ReadableForge; owner: string; repo: string } | null {
  if (!settings.forgeTokens.github) return null;
  let parsed: URL;
  let base: URL;
  try {
    parsed = new URL(url);
    base = new URL(settings.githubWebBaseUrl);
  } catch {
    return null;
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!parsed.pathname.startsWith(`${prefix}/`)) return null;
  const match = REPOSITORY_PATH.exec(parsed.pathname.slice(prefix.length));
  if (!match) return null;
  const repository = { owner: match[1]!, repo: match[2]! };
  return cloneUrlProblem(url, settings.githubWebBaseUrl, repository) === null ? { forge: 'github', ...repository } : null;
}

/** The run's remotes, each marked with the forge the server reads it from for the run (or left as is). */
export function markForgeReadableRemotes(remotes: readonly PushRemote[], settings: Pick<WorkspaceSettings, 'githubWebBaseUrl' | 'forgeTokens'>): PushRemote[] {
  return remotes.map((remote) => {
    const forge = readableForgeOf(remote.forwardUrl, settings);
    return forge ? { ...remote, forgeRead: forge } : remote;
  });
}

/**
 * The git config that authenticates the server's own fetch of a forge repository: the token as an
 * `http.<url>.extraHeader`, scoped to that one URL (GitHub's git endpoint takes it as the password
 * of HTTP Basic). It is passed to the server's hardened git through its environment, never `-c`
 * (SEC-6), and never reaches a runner.
 */
export function forgeFetchConfig(url: string, token: string): Array<[string, string]> {
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return [[`http.${url}.extraHeader`, `Authorization: Basic ${basic}`]];
}

/**
 * Config for every git that sends a forge token (SEC-6): follow no redirect. By default git follows
 * a redirect of its first request and then sends every later request — the POST that carries the
 * `extraHeader` — straight to the new host, so a forge redirecting elsewhere would hand the token to
 * that host (curl drops the header only on the redirected request itself).
 */
export const NO_REDIRECTS: readonly [string, string] = ['http.followRedirects', 'false'];

/**
 * The config for reading `remote` from its forge with the workspace's current token, or why not
 * (the token was removed, or the web base changed, after the run started).
 */
export function forgeReadConfig(remote: PushRemote, settings: Pick<WorkspaceSettings, 'githubWebBaseUrl' | 'forgeTokens'>): { config: Array<[string, string]> } | { problem: string } {
  if (!remote.forgeRead) return { problem: `remote ${remote.name} is not a repository on a configured forge` };
  if (readableForgeOf(remote.forwardUrl, settings) !== remote.forgeRead) {
    return { problem: `remote ${remote.name} is no longer readable through the server: the workspace has no GitHub token (forgeTokens.github) or its githubWebBaseUrl changed` };
  }
  return { config: forgeFetchConfig(remote.forwardUrl, settings.forgeTokens.github!) };
}
