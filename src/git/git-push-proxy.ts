import { createHash } from 'node:crypto';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HookSession, HookSessions, PushRemote } from '../core/hook-sessions.js';
import { PerKeyLock } from '../core/per-key-lock.js';
import { PUSH_PROXY_TOOL_NAME, type ProxyPush } from '../core/push-grants.js';
import { gateFailingClosed } from '../core/transport-gate.js';
import { nowIso } from '../ids.js';
import type { WorkspaceSettings } from '../schemas/settings.js';
import { forgeReadConfig, NO_REDIRECTS } from './forge-read-access.js';
import { GitCommandError } from './git-command-error.js';
import { configEnvironment, hardenedConfig, hardenedGitEnvironment } from './git-hardening.js';
import { runGitBackend, type GitBackendRequest } from './git-backend-process.js';
import { gitOperandProblem } from './git-operand.js';
import { checkRemoteUrl } from './git-remote-url.js';
import { CommandSectionTooLargeError, ReceivePackFormatError, readCommandSection, receivePackRefusal, type CommandSection, type RefUpdate } from './receive-pack-request.js';
import { runGit, tryGit } from './run-git.js';

/** Path prefix of the proxy on the Control Center (the route is `git-push-routes.ts`). */
export const GIT_PUSH_PATH = '/api/git-push';

export { parseReceivePackCommands, type RefUpdate } from './receive-pack-request.js';

/**
 * Caps on a push (SEC-10). The command section is read into memory before the gitPush decision, so it
 * is small (a push of thousands of refs fits); the pack behind it is streamed to git, never buffered,
 * and stops at `PUSH_PACK_BYTES` of decoded bytes (the route also caps the bytes on the wire).
 */
export const PUSH_COMMAND_SECTION_BYTES = 1024 * 1024;
export const PUSH_PACK_BYTES = 512 * 1024 * 1024;

/** An HTTP answer produced by `git http-backend` (or by the proxy itself). */
export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Why git was stopped before it answered (SEC-11: a limit, the timeout); the body then says so too. */
  stopped?: string;
}

const isZero = (id: string) => /^0+$/.test(id);

/** `refs/heads/main` → `main` (what people type, and what command-prefix rules name). */
function shortRef(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}

/** A word the shell reads as itself: anything else is single-quoted in {@link pushCommandLine}. */
const PLAIN_SHELL_WORD = /^[A-Za-z0-9._/:@+=,%-]+$/;

function shellQuote(word: string): string {
  return PLAIN_SHELL_WORD.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Why a ref name the proxy received cannot be shown as one shell word, or null. git's own ref format
 * already excludes these (whitespace, control characters, backslash); the proxy reads the ref updates
 * before git checks them, so it refuses them itself, naming the ref.
 */
export function pushRefProblem(ref: string): string | null {
  // eslint-disable-next-line no-control-regex
  return /[\s\x00-\x1f\x7f\\]/.test(ref) ? `ref name ${JSON.stringify(ref.slice(0, 200))} contains whitespace, a control character or a backslash` : null;
}

/**
 * The push as a command line, so it is decided by the same rules as a `git push` typed in a shell
 * (POL-1, POL-3): `git push origin main feature`, `git push origin --delete old`. Command-prefix
 * rules such as `git push origin feature → allow` therefore apply to pushes through the proxy too.
 * Every ref is shell-quoted: `;`, `|`, `&` and `#` are legal in ref names, and unquoted they would end
 * the command (`git push origin feature;x main` reads as a push of `feature` alone, and `#x main` as
 * none). This line is for the policy decision only; a grant is matched by {@link proxyPush}.
 */
export function pushCommandLine(remoteName: string, updates: readonly RefUpdate[]): string {
  const deletes = updates.filter((update) => isZero(update.new)).map((update) => shortRef(update.ref));
  const pushes = updates.filter((update) => !isZero(update.new)).map((update) => shortRef(update.ref));
  const parts = ['git', 'push', remoteName, ...pushes.map(shellQuote)];
  if (deletes.length > 0) parts.push('--delete', ...deletes.map(shellQuote));
  return parts.join(' ');
}

/** The push as a gate grant matches it (POL-6): the remote and each full ref name, deletes marked. */
export function proxyPush(remoteName: string, updates: readonly RefUpdate[]): ProxyPush {
  return { remote: remoteName, updates: updates.map((update) => ({ ref: update.ref, delete: isZero(update.new) })) };
}

/**
 * Name of the one remote of a staging repository. Its URL is written by the server, after
 * {@link checkRemoteUrl}, into the staging repository's config, so neither the fetch nor the hook's
 * push ever has a URL on its command line (SEC-2).
 */
export const FORWARD_REMOTE = 'cc-forward';

/**
 * The staging repository's pre-receive hook: it rejects the push unless the proxy's decision was
 * `allow`, and otherwise forwards the received objects to the real remote with a lease per ref (the
 * real ref must still be what the agent saw), so the agent sees success only once the real remote
 * accepted. `GIT_QUARANTINE_PATH` is dropped for the inner push: git refuses ref updates in a local
 * receiving repository that inherits it. The destination is the fixed remote {@link FORWARD_REMOTE}
 * after `--` (SEC-2); ref names come from receive-pack, which has already checked their format (no
 * space, `*`, `?` or `[`, so the unquoted leases neither split nor glob; `set -f` makes sure), and
 * every refspec starts with `+` or `:`, never `-`.
 */
export const PRE_RECEIVE_HOOK = `#!/bin/sh
# Generated by Control Center (POL-6, SEC-2): forwards an approved push to the real remote.
set -f
if [ "$CC_PUSH_DECISION" != "allow" ]; then
  echo "Control Center: push refused (decided by $CC_PUSH_DECIDED_BY): $CC_PUSH_REASON" >&2
  exit 1
fi
leases=""
set --
while read old new ref; do
  case "$new" in *[!0]*) set -- "$@" "+$new:$ref" ;; *) set -- "$@" ":$ref" ;; esac
  case "$old" in *[!0]*) leases="$leases --force-with-lease=$ref:$old" ;; *) leases="$leases --force-with-lease=$ref:" ;; esac
done
if ! env -u GIT_QUARANTINE_PATH git push --porcelain $leases -- ${FORWARD_REMOTE} "$@" >&2; then
  echo "Control Center: the real remote refused the push" >&2
  exit 1
fi
echo "Control Center: push forwarded to the real remote ($CC_PUSH_DECIDED_BY)" >&2
`;

function remoteId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

/** A remote {@link inspectPushRemotes} left out, and why (for logs and the run's sandbox line). */
export interface DroppedRemote {
  name: string;
  url: string | null;
  reason: string;
}

/** Remote names the push proxy can name in a command line and in its URL (letters, digits, `._/-`). */
const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._/-]{0,99}$/;

/**
 * Every push URL of every remote of a repository, each checked by {@link checkRemoteUrl} (SEC-2):
 * the config was possibly written by an agent, and `url.<x>.insteadOf` in it rewrites what
 * `git remote get-url` prints. A remote whose name or URL is unusable is dropped, with the reason;
 * relative local paths are resolved against `repoPath`. The config is only read here: git runs with
 * the agent-writable hardening of `runGit` (local transports only, no program-naming keys).
 */
export async function inspectPushRemotes(repoPath: string): Promise<{ remotes: PushRemote[]; dropped: DroppedRemote[] }> {
  const remotes: PushRemote[] = [];
  const dropped: DroppedRemote[] = [];
  const listed = await tryGit(['remote'], { cwd: repoPath });
  if (!listed) return { remotes, dropped };
  for (const name of listed.stdout.split('\n').filter((line) => line !== '')) {
    const nameProblem = gitOperandProblem(name) ?? (REMOTE_NAME.test(name) ? null : 'is not a plain remote name (letters, digits, ".", "_", "/", "-")');
    if (nameProblem) {
      dropped.push({ name, url: null, reason: `remote name ${JSON.stringify(name)} ${nameProblem}` });
      continue;
    }
    const urls = await tryGit(['remote', 'get-url', '--push', '--all'], { cwd: repoPath, operands: [name] });
    for (const url of urls?.stdout.split('\n').filter((line) => line !== '') ?? []) {
      const check = checkRemoteUrl(url, repoPath);
      if (!check.ok) {
        dropped.push({ name, url, reason: `push URL ${JSON.stringify(url.slice(0, 200))} of remote ${name} ${check.reason}` });
        continue;
      }
      remotes.push({ id: remoteId(`${name}\n${url}`), name, url, forwardUrl: check.forwardUrl });
    }
  }
  return { remotes, dropped };
}

/** The usable push remotes of a repository ({@link inspectPushRemotes} without the dropped ones). */
export async function discoverPushRemotes(repoPath: string): Promise<PushRemote[]> {
  return (await inspectPushRemotes(repoPath)).remotes;
}

/**
 * Git configuration, as environment variables, that sends every push to a known remote through the
 * proxy (POL-6): `url.<proxy>/<id>.pushInsteadOf=<remote url>` plus the run token as an HTTP header.
 * A remote on a configured forge ({@link PushRemote.forgeRead}) also gets
 * `url.<proxy>/<id>.insteadOf=<remote url>`, so `git fetch`/`git pull` read it through the proxy,
 * which fetches the forge with the workspace's token: the runner holds only its run token, never the
 * forge's. Other remotes' fetches are not rewritten. Environment config outranks the repository's
 * config for these keys; a remote with an explicit `pushurl` ignores pushInsteadOf (git's rule),
 * which is why the sandbox, not this setting, is what makes a direct push impossible.
 */
export function gitPushEnvironment(serverUrl: string, token: string, remotes: readonly PushRemote[]): Record<string, string> {
  const base = `${serverUrl.replace(/\/$/, '')}${GIT_PUSH_PATH}`;
  const entries: Array<[string, string]> = remotes.flatMap((remote): Array<[string, string]> => [
    [`url.${base}/${remote.id}.pushInsteadOf`, remote.url],
    ...(remote.forgeRead ? [[`url.${base}/${remote.id}.insteadOf`, remote.url] as [string, string]] : []),
  ]);
  if (entries.length === 0) return {};
  entries.push([`http.${base}/.extraHeader`, `Authorization: Bearer ${token}`]);
  return { ...configEnvironment(entries), GIT_TERMINAL_PROMPT: '0' };
}

function jsonResponse(status: number, code: string, message: string, field?: string): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ error: { code, message, ...(field ? { field } : {}) } })) };
}

/** A config value in double quotes, as git's config parser reads it back (no control characters reach here). */
function configValue(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The whole config of a staging repository, written by the server before every use (SEC-2). */
function stagingConfig(hooksDir: string, forwardUrl: string): string {
  return [
    '[core]',
    '\trepositoryformatversion = 0',
    '\tbare = true',
    `\thooksPath = ${configValue(hooksDir)}`,
    '[gc]',
    '\tauto = 0',
    '[http]',
    '\treceivepack = true',
    `[remote "${FORWARD_REMOTE}"]`,
    `\turl = ${configValue(forwardUrl)}`,
    '',
  ].join('\n');
}

/** A push refused or stopped, answered in receive-pack's protocol so that git prints `message` for each ref. */
function refusalResponse(section: CommandSection, message: string): ProxyResponse {
  return { status: 200, headers: { 'content-type': 'application/x-git-receive-pack-result', 'cache-control': 'no-cache' }, body: receivePackRefusal(section, message) };
}

/** Splits CGI output into status, headers and body. */
function parseCgi(output: Buffer): ProxyResponse {
  let split = output.indexOf('\r\n\r\n');
  let separator = 4;
  if (split === -1) {
    split = output.indexOf('\n\n');
    separator = 2;
  }
  if (split === -1) return { status: 502, headers: { 'content-type': 'text/plain' }, body: Buffer.from('git http-backend gave no headers') };
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of output.subarray(0, split).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers, body: output.subarray(split + separator) };
}

/**
 * The git push proxy (POL-6, POL-1): a minimal smart-HTTP server for `git-receive-pack` in front of a
 * per-remote staging repository. Each push is turned into a command line and decided by the run's
 * gate (policy + approval, fail closed) BEFORE git receives it; the staging repository's pre-receive
 * hook then refuses it or forwards it to the real remote. The agent never holds credentials for the
 * real remote: forwarding runs in the server's process with the server's git credentials.
 */
export class GitPushProxy {
  /** Pushes into one staging repository run one at a time. */
  private readonly stagingLock = new PerKeyLock();

  constructor(
    private readonly sessions: HookSessions,
    private readonly options: {
      git?: string;
      env?: Record<string, string | undefined>;
      /** Limits of `git http-backend` and everything it starts (SEC-11; defaults in `git-backend-process.ts`). */
      backend?: Pick<GitBackendRequest, 'limits' | 'timeoutMs' | 'maxStdoutBytes'>;
      /**
       * The workspace's forge settings, read when a forge remote is fetched (POL-6): its token is
       * used by the server's own git only. Without it no remote is readable through the proxy.
       */
      forgeSettings?: (workspaceId: string) => Promise<Pick<WorkspaceSettings, 'githubWebBaseUrl' | 'forgeTokens'>>;
    } = {},
  ) {}

  /**
   * `GET …/info/refs?service=…`: the real remote's refs, through the staging repository, refreshed
   * from the real remote first. `git-receive-pack` for a push; `git-upload-pack` (a fetch) only for
   * a remote on a configured forge, which the server reads with the workspace's token.
   */
  async advertise(token: string, id: string, service: string | undefined): Promise<ProxyResponse> {
    if (service !== 'git-receive-pack' && service !== 'git-upload-pack') {
      return jsonResponse(403, 'forbidden', 'the push proxy serves git-receive-pack (pushes) and, for a remote on a configured forge, git-upload-pack (fetches)', 'service');
    }
    const found = this.lookup(token, id);
    if ('status' in found) return found;
    const access = await this.forgeAccess(found.session, found.remote);
    if (service === 'git-upload-pack' && 'problem' in access) return jsonResponse(403, 'forbidden', `fetch refused: ${access.problem}; fetch from the remote directly`, 'service');
    return this.stagingLock.exclusive(found.stagingPath, async () => {
      const problem = await this.prepareStaging(found.session, found.remote, found.stagingPath, 'config' in access ? access.config : []);
      if (problem) return jsonResponse(502, 'bad_gateway', problem);
      return this.httpBackend(found.stagingPath, { method: 'GET', pathInfo: '/info/refs', query: `service=${service}`, body: Buffer.alloc(0), env: {} });
    });
  }

  /**
   * `POST …/git-upload-pack` (POL-6): a fetch of a forge remote, answered by `git upload-pack` from
   * the staging repository the advertisement just refreshed — read-only, for the run's own recorded
   * remote only; nothing is received on this path.
   */
  async uploadPack(token: string, id: string, body: AsyncIterable<Buffer>, request: { contentType?: string }): Promise<ProxyResponse> {
    const found = this.lookup(token, id);
    if ('status' in found) return found;
    const access = await this.forgeAccess(found.session, found.remote);
    if ('problem' in access) return jsonResponse(403, 'forbidden', `fetch refused: ${access.problem}; fetch from the remote directly`, 'service');
    return this.stagingLock.exclusive(found.stagingPath, () =>
      this.httpBackend(found.stagingPath, {
        method: 'POST',
        pathInfo: '/git-upload-pack',
        query: '',
        body,
        contentType: request.contentType ?? 'application/x-git-upload-pack-request',
        env: {},
      }),
    );
  }

  /** The config that lets the server's git read `remote` from its forge, or why the run may not fetch it. */
  private async forgeAccess(session: HookSession, remote: PushRemote): Promise<{ config: Array<[string, string]> } | { problem: string }> {
    if (!remote.forgeRead || !this.options.forgeSettings) return { problem: `remote ${remote.name} is not a repository on a configured forge` };
    return forgeReadConfig(remote, await this.options.forgeSettings(session.workspaceId));
  }

  /**
   * `POST …/git-receive-pack`: read the ref updates from the front of the body, gate them, then either
   * refuse the push without reading the pack or stream the body on to git (SEC-10: the pack is never
   * held in memory). `body` yields the decoded request bytes; an error it throws (a cap the route set,
   * a corrupt gzip stream) stops git, so nothing is forwarded, and is thrown on to the route.
   */
  async receivePack(token: string, id: string, body: AsyncIterable<Buffer>, request: { contentType?: string }, signal: AbortSignal): Promise<ProxyResponse> {
    const found = this.lookup(token, id);
    if ('status' in found) return found;
    const { session, remote, stagingPath } = found;
    const chunks = body[Symbol.asyncIterator]();
    let read: Awaited<ReturnType<typeof readCommandSection>>;
    try {
      read = await readCommandSection(chunks, PUSH_COMMAND_SECTION_BYTES);
    } catch (error) {
      if (error instanceof ReceivePackFormatError) return jsonResponse(400, 'bad_request', `not a git-receive-pack request: ${error.message}`);
      if (error instanceof CommandSectionTooLargeError) return jsonResponse(413, 'payload_too_large', error.message, 'commandSectionBytes');
      throw error;
    }
    // git probes a large push with an empty request (a flush packet alone) before sending it: with no
    // ref update there is nothing to decide, and receive-pack given no command reads no pack.
    if (read.section.updates.length === 0) return this.receive(session, remote, stagingPath, read.consumed, request, null);
    const badRef = read.section.updates.map((update) => pushRefProblem(update.ref)).find((problem) => problem !== null);
    if (badRef) return refusalResponse(read.section, `Control Center: push refused: ${badRef}`);
    const command = pushCommandLine(remote.name, read.section.updates);
    // POL-6: the run's gate honours here, once, an approval the operator just gave for this push at
    // the hook, matched against these ref updates (not against the command line).
    const action = { kind: 'command' as const, command, toolName: PUSH_PROXY_TOOL_NAME, push: proxyPush(remote.name, read.section.updates) };
    const gateSignal = AbortSignal.any([signal, session.signal]);
    const result = await gateFailingClosed(() => session.gate(action, gateSignal), ['gitPush']);
    session.decisions.push({ source: 'push', toolUseId: null, toolName: PUSH_PROXY_TOOL_NAME, action, allow: result.allow, result, at: nowIso() });
    const decidedBy = `${result.decidedBy.scope}${result.decidedBy.ruleId ? ` rule ${result.decidedBy.ruleId}` : ''}`;
    if (!result.allow) {
      // Refused before the pack is read: a denied push costs the server its command section only.
      const reason = result.reason.replace(/\s+/g, ' ').slice(0, 500);
      return refusalResponse(read.section, `Control Center: push refused (decided by ${decidedBy}): ${reason}`);
    }
    const answer = await this.receive(session, remote, stagingPath, replay(read.consumed, chunks), request, { reason: result.reason, decidedBy });
    // Said in receive-pack's own protocol: git prints the reason next to each ref, not "HTTP 503".
    return answer.stopped ? refusalResponse(read.section, `Control Center: push stopped: ${answer.stopped}`) : answer;
  }

  /** Hands an allowed (or empty) push to git in the staging repository, whose hook forwards it. */
  private receive(
    session: HookSession,
    remote: PushRemote,
    stagingPath: string,
    body: Buffer | AsyncIterable<Buffer>,
    request: { contentType?: string },
    allowed: { reason: string; decidedBy: string } | null,
  ): Promise<ProxyResponse> {
    return this.stagingLock.exclusive(stagingPath, async () => {
      const access = await this.forgeAccess(session, remote);
      const problem = await this.prepareStaging(session, remote, stagingPath, 'config' in access ? access.config : []);
      if (problem) return jsonResponse(502, 'bad_gateway', problem);
      return this.httpBackend(stagingPath, {
        method: 'POST',
        pathInfo: '/git-receive-pack',
        query: '',
        body,
        contentType: request.contentType ?? 'application/x-git-receive-pack-request',
        // An empty request updates no ref, so the hook never runs; it is refused there all the same.
        env: allowed
          ? { CC_PUSH_DECISION: 'allow', CC_PUSH_REASON: allowed.reason.replace(/\s+/g, ' ').slice(0, 500), CC_PUSH_DECIDED_BY: allowed.decidedBy }
          : { CC_PUSH_DECISION: 'deny', CC_PUSH_REASON: 'no ref update was decided', CC_PUSH_DECIDED_BY: 'nothing' },
      });
    });
  }

  /**
   * The run's session and recorded remote for a request. The remote's URL is checked again here
   * (SEC-2), whoever recorded it: a refused URL never reaches git, and the answer says why.
   */
  private lookup(token: string, id: string): { session: HookSession; remote: PushRemote; stagingPath: string } | ProxyResponse {
    const session = this.sessions.get(token);
    if (!session) return jsonResponse(404, 'not_found', 'no run in progress for this token uses the push proxy');
    const remote = session.pushRemotes.get(id);
    if (!remote) return jsonResponse(404, 'not_found', `remote ${id} is not a remote of this run's worktree`);
    if (!REMOTE_NAME.test(remote.name)) {
      // The name is part of the command line the policy decides on: it must not smuggle words into it.
      return jsonResponse(400, 'validation_failed', `push refused: remote name ${JSON.stringify(remote.name.slice(0, 100))} is not a plain remote name`, 'remote.name');
    }
    const check = checkRemoteUrl(remote.forwardUrl, session.worktreePath);
    if (!check.ok || check.forwardUrl !== remote.forwardUrl) {
      const reason = check.ok ? 'is not an absolute location' : check.reason;
      return jsonResponse(400, 'validation_failed', `push refused: the forward URL of remote ${remote.name} ${reason}`, 'remote.url');
    }
    return { session, remote, stagingPath: join(session.pushStagingDir, `${remoteId(remote.forwardUrl)}.git`) };
  }

  /**
   * A bare repository mirroring the real remote's branches and tags, with the forwarding hook. The
   * server owns all of it: its config and hook are rewritten before every use (SEC-2), and the real
   * remote is the fixed {@link FORWARD_REMOTE}, so git runs here with the server-owned hardening
   * (network transports, the operator's credentials) and never sees a URL as an argument.
   * `fetchConfig` authenticates the fetch of a forge remote (the token as a URL-scoped header, passed
   * through this one git's environment). Returns why the real remote could not be fetched, or null.
   */
  private async prepareStaging(session: HookSession, remote: PushRemote, stagingPath: string, fetchConfig: ReadonlyArray<readonly [string, string]>): Promise<string | null> {
    const exists = await stat(join(stagingPath, 'HEAD')).then(
      () => true,
      () => false,
    );
    const hooksDir = join(stagingPath, 'cc-hooks');
    if (!exists) {
      await mkdir(stagingPath, { recursive: true });
      await runGit(['init', '--quiet', '--bare'], { cwd: session.pushStagingDir, trust: 'serverOwned', operands: [stagingPath] });
    }
    await writeFile(join(stagingPath, 'config'), stagingConfig(hooksDir, remote.forwardUrl), { mode: 0o600 });
    await mkdir(hooksDir, { recursive: true });
    await writeFile(join(hooksDir, 'pre-receive'), PRE_RECEIVE_HOOK, { mode: 0o755 });
    await chmod(join(hooksDir, 'pre-receive'), 0o755);
    try {
      await runGit(['fetch', '--quiet', '--prune', '--no-tags', '--no-recurse-submodules'], {
        cwd: stagingPath,
        trust: 'serverOwned',
        operands: [FORWARD_REMOTE, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
        secretConfig: fetchConfig.length > 0 ? [...fetchConfig, NO_REDIRECTS] : fetchConfig,
      });
      return null;
    } catch (error) {
      if (!(error instanceof GitCommandError)) throw error;
      // git names the URL, never a header; the first line is enough, with any header value masked all the same.
      let first = error.stderr.trim().split('\n')[0] || `git exited with ${error.exitCode}`;
      for (const [, value] of fetchConfig) first = first.replaceAll(value, '***');
      return `the server could not fetch remote ${remote.name}: ${first.slice(0, 300)}`;
    }
  }

  /**
   * Runs `git http-backend` as a CGI. A streamed body is piped to its stdin with backpressure and no
   * `CONTENT_LENGTH` (git then reads to the end of input); when the body itself fails (a cap), git is
   * stopped before receive-pack finished the pack, so its hooks never run and nothing is forwarded.
   */
  private async httpBackend(
    stagingPath: string,
    request: { method: string; pathInfo: string; query: string; body: Buffer | AsyncIterable<Buffer>; contentType?: string; env: Record<string, string> },
  ): Promise<ProxyResponse> {
    const env = hardenedGitEnvironment(this.options.env ?? process.env, 'serverOwned');
    // Environment config outranks the repository's: only our forwarding hook can run, and the hook's
    // own `git push` inherits the same program and transport limits (SEC-2).
    const config = hardenedConfig('serverOwned').map(([key, value]): [string, string] => (key === 'core.hooksPath' ? [key, join(stagingPath, 'cc-hooks')] : [key, value]));
    Object.assign(env, {
      GIT_PROJECT_ROOT: stagingPath,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: request.pathInfo,
      QUERY_STRING: request.query,
      REQUEST_METHOD: request.method,
      CONTENT_TYPE: request.contentType ?? '',
      CONTENT_LENGTH: Buffer.isBuffer(request.body) ? String(request.body.length) : '',
      REMOTE_USER: 'control-center-agent',
      REMOTE_ADDR: '127.0.0.1',
      ...configEnvironment(config),
      ...request.env,
    });
    // The body reaching git is always decoded by the server (under its caps), never by git.
    delete env.HTTP_CONTENT_ENCODING;
    // A push's answer is a status report, under the backend's default output cap. A fetch's answer is
    // the pack itself and an advertisement lists every ref of the real remote (a repository with
    // hundreds of thousands of tags): both are held whole until git ends (not streamed on) and get
    // the push's pack cap.
    const outputCap = request.pathInfo === '/git-receive-pack' ? {} : { maxStdoutBytes: PUSH_PACK_BYTES };
    const result = await runGitBackend({ ...outputCap, ...this.options.backend, git: this.options.git, args: ['http-backend'], env, body: request.body });
    if (result.stopped) return { ...jsonResponse(503, 'git_stopped', `git was stopped: ${result.stopped}`), stopped: result.stopped };
    if (result.code !== 0 && result.stdout.length === 0) {
      return { status: 500, headers: { 'content-type': 'text/plain' }, body: Buffer.from(`git http-backend failed: ${result.stderr.toString('utf8').slice(0, 500)}`) };
    }
    return parseCgi(result.stdout);
  }
}

/** `first`, then the rest of `rest`; ending early (git stopped reading) ends the request stream too. */
async function* replay(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  try {
    if (first.length > 0) yield first;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await rest.return?.();
  }
}
