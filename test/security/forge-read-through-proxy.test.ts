import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportGateResult } from '../../src/adapters/agent-transport.js';
import type { HookSession, PushRemote } from '../../src/core/hook-sessions.js';
import { markForgeReadableRemotes, readableForgeOf } from '../../src/git/forge-read-access.js';
import { discoverPushRemotes, gitPushEnvironment } from '../../src/git/git-push-proxy.js';
import { makeRepoWithRemote, startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { gitText as git, pendingApprovals, remoteRef } from '../support/proxied-push.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * POL-6: a run in a repository whose remote is on the configured forge reads it through the server,
 * which fetches the forge with the workspace's token; the run holds only its own run token.
 */

let fixture: ClaudeCodeFixture | null = null;
let harness: HarnessFixture | null = null;
let github: FakeGitHub | null = null;
const cleanup: string[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  await harness?.dispose();
  harness = null;
  await github?.close();
  github = null;
  for (const path of cleanup.splice(0)) await rm(path, { recursive: true, force: true });
});

const IDENTITY = ['-c', 'user.name=Forge', '-c', 'user.email=forge@example.com'];

/** The fake forge serves `remotePath` as `acme/app`; returns the clone URL the repository's origin gets. */
function serveOnForge(forge: FakeGitHub, remotePath: string): string {
  forge.repos.set('acme/app', remotePath);
  git(remotePath, 'update-server-info');
  return `${forge.webBaseUrl}/acme/app.git`;
}

/** Adds a commit to the forge's `main` (as someone else pushing to the forge would); returns its id. */
async function commitOnForge(remotePath: string, subject: string): Promise<string> {
  const clone = await mkdtemp(join(tmpdir(), 'cc-forge-clone-'));
  cleanup.push(clone);
  execFileSync('git', ['clone', '--quiet', remotePath, clone]);
  git(clone, ...IDENTITY, 'commit', '--quiet', '--allow-empty', '-m', subject);
  git(clone, 'push', '--quiet', 'origin', 'HEAD:main');
  git(remotePath, 'update-server-info');
  return git(clone, 'rev-parse', 'HEAD');
}

/** Every file below `root` (the `.git` directory included) that contains one of `needles`. */
async function filesContaining(root: string, needles: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const text = (await readFile(path)).toString('latin1');
    if (needles.some((needle) => text.includes(needle))) found.push(path);
  }
  return found;
}

function gitRun(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe('reading the forge through the server (POL-6, security)', () => {
  it('a Claude Code run fetches a commit pushed to the forge after it started; the forge saw the operator token, the run never held it; a push still asks', async () => {
    github = await startFakeGitHub();
    const forge = github;
    fixture = await startClaudeCodeFixture({ mode: 'chat', repo: true, transport: { sandbox: 'auto' } });
    const f = fixture;
    const forgeUrl = serveOnForge(forge, f.remotePath!);
    git(f.repoPath!, 'remote', 'set-url', 'origin', forgeUrl);
    const settings = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { githubApiBaseUrl: forge.apiBaseUrl, githubWebBaseUrl: forge.webBaseUrl, forgeTokens: { github: forge.token } });
    expect(settings.status).toBe(200);
    const basic = Buffer.from(`x-access-token:${forge.token}`).toString('base64');
    const mainBefore = remoteRef(f.remotePath!, 'refs/heads/main');
    let forgeCommit = '';
    let requestsBeforeFetch = 0;
    f.model.script(
      // The run has started (its checkout exists): only now does the forge move on.
      reply(async () => {
        forgeCommit = await commitOnForge(f.remotePath!, 'forge work after the run started');
        requestsBeforeFetch = forge.requests.length;
        return reply().tool('Bash', { command: 'git fetch origin && git log -1 --format=%H:%s origin/main' });
      }),
      reply().tool('Bash', { command: 'env; git config --list' }),
      reply().tool('Bash', { command: 'git push origin HEAD:refs/heads/feature' }),
      reply().text('Done.'),
    );
    const runId = await f.send('fetch the forge, show the environment, push');
    // The push is still decided: the hook asks (gitPush → ask); rejected, the forge is unchanged.
    const [approval] = await pendingApprovals(f, 1);
    expect(approval.title).toMatch(/git push origin HEAD:refs\/heads\/feature/);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not now' })).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(remoteRef(f.remotePath!, 'refs/heads/feature')).toBeNull();

    const results = f.model.requests.filter((request) => request.path.startsWith('/v1/messages')).map((request) => request.lastToolResult?.content ?? '');
    // The fetch went through the proxy and brought the forge's new commit into the worktree.
    expect(forgeCommit).not.toBe(mainBefore);
    expect(results[1]).toContain(`${forgeCommit}:forge work after the run started`);
    expect(git(f.worktreePath(), 'rev-parse', 'refs/remotes/origin/main')).toBe(forgeCommit);
    // The forge was read with the operator's token — every request of that fetch carried it.
    const fetchRequests = forge.requests.slice(requestsBeforeFetch).filter((request) => request.path.startsWith('/web/acme/app.git/'));
    expect(fetchRequests.length).toBeGreaterThan(0);
    expect(fetchRequests.filter((request) => !request.authorized)).toEqual([]);
    // The runner's environment and git config route the fetch to the proxy and hold no forge token.
    const envAndConfig = results[2]!;
    expect(envAndConfig.toLowerCase()).toMatch(new RegExp(`url\\.http://127\\.0\\.0\\.1:\\d+/api/git-push/[0-9a-f]{16}\\.insteadof=${forgeUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').toLowerCase()}`));
    expect(envAndConfig).not.toContain(forge.token);
    expect(envAndConfig).not.toContain(basic);
    // Nor is it anywhere in the worktree, its `.git` included.
    expect(await filesContaining(f.worktreePath(), [forge.token, basic])).toEqual([]);
  }, 120_000);

  it('built-in bash fetches the forge remote through the proxy, and its environment holds no forge token', async () => {
    github = await startFakeGitHub();
    const forge = github;
    const scratch = await mkdtemp(join(tmpdir(), 'cc-forge-builtin-'));
    cleanup.push(scratch);
    const { repoPath, remotePath } = await makeRepoWithRemote(scratch);
    const forgeUrl = serveOnForge(forge, remotePath);
    git(repoPath, 'remote', 'set-url', 'origin', forgeUrl);
    harness = await startHarnessFixture({ space: { repoPath } });
    const h = harness;
    const settings = await h.server.api('PATCH', `/api/workspaces/${h.workspaceId}/settings`, { githubApiBaseUrl: forge.apiBaseUrl, githubWebBaseUrl: forge.webBaseUrl, forgeTokens: { github: forge.token } });
    expect(settings.status).toBe(200);
    let forgeCommit = '';
    h.model.script(
      reply(async () => {
        forgeCommit = await commitOnForge(remotePath, 'forge work seen by bash');
        return reply().tool('bash', { command: 'git fetch origin && git log -1 --format=%H:%s origin/main && env && git config --list' });
      }),
      reply().text('Done.'),
    );
    const detail = await h.waitForRun(await h.send('fetch the forge'));
    expect(detail.run.state).toBe('completed');
    expect(detail.toolCalls[0]).toMatchObject({ name: 'bash', executed: true, isError: false });
    const output = detail.toolCalls[0].output as string;
    expect(output).toContain(`${forgeCommit}:forge work seen by bash`);
    expect(output.toLowerCase()).toContain(`.insteadof=${forgeUrl.toLowerCase()}`);
    expect(output).not.toContain(forge.token);
    expect(output).not.toContain(Buffer.from(`x-access-token:${forge.token}`).toString('base64'));
  }, 60_000);

  it('only the run whose remote it is can fetch it; a remote off the forge is not served; a missing token is refused', async () => {
    github = await startFakeGitHub();
    const forge = github;
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const forgeSide = await makeRepoWithRemote(join(f.dataRoot, 'forge-side'));
    const localSide = await makeRepoWithRemote(join(f.dataRoot, 'local-side'));
    const forgeUrl = serveOnForge(forge, forgeSide.remotePath);
    git(forgeSide.repoPath, 'remote', 'set-url', 'origin', forgeUrl);
    const settings = { githubWebBaseUrl: forge.webBaseUrl, forgeTokens: { github: forge.token } };
    const forgeRemotes = markForgeReadableRemotes(await discoverPushRemotes(forgeSide.repoPath), settings);
    const localRemotes = markForgeReadableRemotes(await discoverPushRemotes(localSide.repoPath), settings);
    expect(forgeRemotes.map((remote) => remote.forgeRead)).toEqual(['github']);
    expect(localRemotes.map((remote) => remote.forgeRead)).toEqual([undefined]);
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { githubWebBaseUrl: forge.webBaseUrl, forgeTokens: { github: forge.token } })).status).toBe(200);

    const deny = async (): Promise<TransportGateResult> => ({ allow: false, decision: 'deny', reason: 'no pushes in this test', decidedBy: { scope: 'workspace', ruleId: null }, classes: ['gitPush'] });
    const register = (name: string, repoPath: string, remotes: PushRemote[]) => {
      const runId = `run_${name}_${Date.now()}`;
      const token = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId, agentId: f.agentId });
      const session: HookSession = {
        token,
        workspaceId: f.workspaceId,
        runId,
        mode: 'chat',
        worktreePath: repoPath,
        gate: deny,
        signal: new AbortController().signal,
        pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
        pushStagingDir: join(f.dataRoot, `staging-${name}`),
        decisions: [],
        pushOnly: true,
      };
      const unregister = f.app.hookSessions.register(session);
      return { token, session, end: () => (unregister(), f.app.runTokens.revoke(runId)) };
    };
    const owner = register('owner', forgeSide.repoPath, forgeRemotes);
    const other = register('other', localSide.repoPath, localRemotes);
    try {
      const forgeId = forgeRemotes[0]!.id;
      const localId = localRemotes[0]!.id;
      const refs = (token: string | null, id: string) =>
        fetch(`${f.url}/api/git-push/${id}/info/refs?service=git-upload-pack`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      const uploadPack = (token: string, id: string) =>
        fetch(`${f.url}/api/git-push/${id}/git-upload-pack`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-git-upload-pack-request' }, body: '0000' });

      // The owner's token reads its forge remote (the advertisement lists the forge's main).
      const advertised = await refs(owner.token, forgeId);
      expect(advertised.status).toBe(200);
      expect(await advertised.text()).toContain(`${remoteRef(forgeSide.remotePath, 'refs/heads/main')} refs/heads/main`);
      // Another run's token cannot fetch it, neither the advertisement nor the pack.
      for (const response of [await refs(other.token, forgeId), await uploadPack(other.token, forgeId)]) {
        expect(response.status).toBe(404);
        expect(((await response.json()) as any).error.message).toMatch(new RegExp(`remote ${forgeId} is not a remote of this run`));
      }
      // A remote that is not on the configured forge is not read through the server.
      for (const response of [await refs(other.token, localId), await uploadPack(other.token, localId)]) {
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ error: { field: 'service', message: expect.stringMatching(/not a repository on a configured forge/) } });
      }
      expect((await refs(null, forgeId)).status).toBe(401);

      // git itself, with the run's environment only, clones and fetches through the proxy.
      const agentEnv = { PATH: process.env.PATH, HOME: f.dataRoot, GIT_CONFIG_NOSYSTEM: '1', ...gitPushEnvironment(f.url, owner.token, forgeRemotes) };
      const clone = join(f.dataRoot, 'agent-clone');
      const cloned = await gitRun(f.dataRoot, agentEnv, 'clone', '--quiet', forgeUrl, clone);
      expect(cloned.stderr).toBe('');
      expect(cloned.code).toBe(0);
      const newer = await commitOnForge(forgeSide.remotePath, 'newer on the forge');
      // Thirty new branches on the forge: git asks for each ("want" lines), a request over 1 KiB that git
      // gzips, so the fetch also crosses the route's decoding of the body.
      const branches = await mkdtemp(join(tmpdir(), 'cc-forge-branches-'));
      cleanup.push(branches);
      execFileSync('git', ['clone', '--quiet', forgeSide.remotePath, branches]);
      const refspecs: string[] = [];
      for (let index = 0; index < 30; index += 1) {
        git(branches, ...IDENTITY, 'commit', '--quiet', '--allow-empty', '-m', `branch ${index}`);
        refspecs.push(`${git(branches, 'rev-parse', 'HEAD')}:refs/heads/topic-${index}`);
      }
      git(branches, 'push', '--quiet', 'origin', ...refspecs);
      git(forgeSide.remotePath, 'update-server-info');
      const fetched = await gitRun(clone, { ...agentEnv, GIT_TRACE_CURL: '1', GIT_TRACE_CURL_NO_DATA: '1' }, 'fetch', 'origin');
      expect(fetched.stderr).toMatch(/=> Send header: Content-Encoding: gzip/i);
      expect(fetched.code).toBe(0);
      expect(git(clone, 'rev-parse', 'refs/remotes/origin/main')).toBe(newer);
      expect(git(clone, 'rev-parse', 'refs/remotes/origin/topic-29')).toBe(refspecs[29]!.split(':')[0]);
      // Without the workspace's token the forge is not read for the run: the fetch is refused, saying why.
      expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { forgeTokens: { github: null } })).status).toBe(200);
      const refused = await refs(owner.token, forgeId);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as any).error.message).toMatch(/no GitHub token \(forgeTokens\.github\)/);
    } finally {
      owner.end();
      other.end();
    }
  }, 60_000);

  it('a remote is read through the server only when it is a repository of the configured forge and a token is set', () => {
    const settings = { githubWebBaseUrl: 'https://github.com', forgeTokens: { github: 'ghp_x' } };
    expect(readableForgeOf('https://github.com/acme/app.git', settings)).toBe('github');
    expect(readableForgeOf('https://github.com/acme/app', settings)).toBe('github');
    for (const url of [
      'https://github.com/acme/app.git/../../other/x.git',
      'https://evil.example/acme/app.git',
      'https://github.com.evil.example/acme/app.git',
      'https://user:pw@github.com/acme/app.git',
      'https://github.com/acme/app.git?x=1',
      'https://github.com/acme',
      'https://github.com/acme/app/tree/main',
      'http://github.com/acme/app.git',
      'git@github.com:acme/app.git',
      'ssh://git@github.com/acme/app.git',
      '/srv/git/app.git',
    ]) {
      expect(readableForgeOf(url, settings), url).toBeNull();
    }
    expect(readableForgeOf('https://github.com/acme/app.git', { ...settings, forgeTokens: {} })).toBeNull();
    expect(readableForgeOf('https://github.com/acme/app.git', { ...settings, githubWebBaseUrl: 'not a url' })).toBeNull();
    expect(readableForgeOf('https://ghe.example/git/acme/app.git', { githubWebBaseUrl: 'https://ghe.example/git/', forgeTokens: { github: 'x' } })).toBe('github');
    expect(readableForgeOf('https://ghe.example/acme/app.git', { githubWebBaseUrl: 'https://ghe.example/git', forgeTokens: { github: 'x' } })).toBeNull();
  });
});
