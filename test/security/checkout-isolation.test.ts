/**
 * SEC-3: the user's repository is never writable from a sandbox, and sandbox mounts come only from
 * what the server recorded when it made the checkout — never from the agent-writable worktree. Each
 * variant is an attack an agent made on the old design (a git worktree of the user's repository whose
 * `git rev-parse --git-common-dir` was bound writable before each command): moving the user's `main`
 * with `git update-ref`, a `.git` file pointing at another repository, and a symlink swapped between
 * two commands to make `/etc` writable or the data root readable.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { makeRepoWithRemote, startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

const probe = await probeBubblewrap();
/** Where an escape would write (as root only the sandbox stops it); removed whatever happens. */
const ESCAPE_MARKER = `/etc/cc-checkout-escape-${process.pid}`;

let harness: HarnessFixture | null = null;
let claude: ClaudeCodeFixture | null = null;
const scratch: string[] = [];
afterEach(async () => {
  await harness?.dispose();
  harness = null;
  await claude?.dispose();
  claude = null;
  for (const path of scratch.splice(0)) await rm(path, { recursive: true, force: true });
  rmSync(ESCAPE_MARKER, { force: true });
});

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-sec-checkout-'));
  scratch.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  delete env.GIT_DIR;
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
}

/** Refs of a repository other than the server's own namespace `cc/…`. */
function userRefs(repoPath: string): string {
  return git(repoPath, 'for-each-ref', '--format=%(refname) %(objectname)')
    .split('\n')
    .filter((line) => !line.startsWith('refs/heads/cc/') && !line.startsWith('refs/cc-checkpoints/'))
    .join('\n');
}

/** A bare repository outside every checkout: `main` at a second commit, `old` at the first. */
function makeOutsideRepository(root: string): { path: string; main: string } {
  const path = join(root, 'outside.git');
  const work = join(root, 'outside-work');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', path]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', work]);
  git(work, 'commit', '--quiet', '--allow-empty', '-m', 'one');
  git(work, 'push', '--quiet', path, 'main:old');
  git(work, 'commit', '--quiet', '--allow-empty', '-m', 'two');
  git(work, 'push', '--quiet', path, 'main:main');
  return { path, main: git(path, 'rev-parse', 'refs/heads/main') };
}

const COMMIT = 'git -c user.name=Agent -c user.email=agent@example.com commit --allow-empty -q -m';

async function startHarness(): Promise<{ repoPath: string; api: (method: string, path: string, body?: unknown) => Promise<any> }> {
  const { repoPath } = await makeRepoWithRemote(await scratchDir());
  harness = await startHarnessFixture({ space: { repoPath, autonomy: 'actFreely' } });
  const api = (method: string, path: string, body?: unknown) => harness!.server.api(method, `/api/workspaces/${harness!.workspaceId}${path}`, body);
  // The OS is the only barrier under test: the policy allows writes outside the worktree, and (as
  // in the finding) a deny rule on pushes does not matter to any of these attacks.
  expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'fileWriteOutsideWorktree' }, decision: 'allow' })).status).toBe(201);
  expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' })).status).toBe(201);
  return { repoPath, api };
}

/** Runs one turn whose only tool calls are these bash commands; returns their outputs. */
async function bashTurn(...commands: string[]): Promise<string[]> {
  harness!.model.script(...commands.map((command) => reply().tool('bash', { command })), reply().text('done'));
  const detail = await harness!.waitForRun(await harness!.send('go'), 30_000);
  expect(detail.run.state).toBe('completed');
  return detail.toolCalls.map((call: any) => String(call.output ?? ''));
}

describe.skipIf(!probe.available)('checkout isolation on the built-in harness (SEC-3)', () => {
  it("git update-ref refs/heads/main in the checkout does not move the user's main; the agent's commit appears as cc/<conversation>", async () => {
    const { repoPath } = await startHarness();
    const before = userRefs(repoPath);
    const outputs = await bashTurn(`${COMMIT} "agent work" && git update-ref refs/heads/main HEAD && git branch -f other HEAD && git log -1 --format=%s main`);
    expect(outputs[0]).toContain('agent work');
    // The user's repository: every ref as it was, plus the conversation's branch the server brought over.
    expect(userRefs(repoPath)).toBe(before);
    expect(git(repoPath, 'log', '-1', '--format=%s', `refs/heads/cc/${harness!.conversationId}`)).toBe('agent work');
    expect(git(repoPath, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    const detail = await harness!.server.api('GET', `/api/workspaces/${harness!.workspaceId}/runs/${(await harness!.server.api('GET', `/api/workspaces/${harness!.workspaceId}/runs`)).body.runs[0].id}`);
    expect(JSON.stringify(detail.body)).toContain('checkout_synced');
  });

  it('a .git file pointing at a bare repository outside the checkout gives no write access to it', async () => {
    const { repoPath } = await startHarness();
    const outside = makeOutsideRepository(await scratchDir());
    const before = userRefs(repoPath);
    await bashTurn(`rm -rf .git && printf 'gitdir: %s\\n' '${outside.path}' > .git && git rev-parse --git-dir; true`);
    const outputs = await bashTurn('git update-ref refs/heads/main refs/heads/old; git rev-parse refs/heads/main; true');
    expect(outputs[0]).not.toContain(git(outside.path, 'rev-parse', 'refs/heads/old'));
    expect(git(outside.path, 'rev-parse', 'refs/heads/main')).toBe(outside.main);
    expect(userRefs(repoPath)).toBe(before);
  });

  it('a .git file pointing at the user repository itself gives no write access to it', async () => {
    const { repoPath, api } = await startHarness();
    const before = userRefs(repoPath);
    const mainBefore = git(repoPath, 'rev-parse', 'refs/heads/main');
    const configBefore = readFileSync(join(repoPath, '.git', 'config'), 'utf8');
    const [commitOutput] = await bashTurn(`${COMMIT} "to be forced onto main" >/dev/null && git rev-parse HEAD`, `rm -rf .git && printf 'gitdir: %s\\n' '${join(repoPath, '.git')}' > .git; true`);
    // The commit's id is written out literally: a command substitution is code the classifier cannot
    // see, which the gitPush deny above would refuse before the sandbox is ever tested.
    const agentSha = /\b[0-9a-f]{40}\b/.exec(commitOutput ?? '')?.[0];
    expect(agentSha).toBeDefined();
    const attack = `git update-ref refs/heads/main ${agentSha} 2>&1; echo '[core]' >> ${join(repoPath, '.git', 'config')} 2>&1; true`;
    // First layer: git under a `.git` pointing elsewhere is code the classifier cannot see, which
    // carries every class, so the deny on pushes refuses it before anything runs (SEC-5).
    expect((await bashTurn(attack))[0]).toMatch(/Denied by policy .*gitPush/);
    // Second layer, the one under test: with that rule gone, the OS still refuses the write.
    const rules = (await api('GET', '/policy/rules')).body.rules as Array<{ id: string; match: { effectClass?: string } }>;
    for (const rule of rules.filter((candidate) => candidate.match.effectClass === 'gitPush')) expect((await api('DELETE', `/policy/rules/${rule.id}`)).status).toBeLessThan(300);
    const outputs = await bashTurn(attack);
    expect(outputs[0]).toMatch(/Read-only file system|No such file or directory|not a git repository/i);
    expect(git(repoPath, 'rev-parse', 'refs/heads/main')).toBe(mainBefore);
    expect(userRefs(repoPath)).toBe(before);
    expect(readFileSync(join(repoPath, '.git', 'config'), 'utf8')).toBe(configBefore);
  });

  // The old design bound the realpath of `git rev-parse --git-common-dir` writable, re-resolving it
  // before every command: a `.git` naming a real git dir in the worktree, then a parent of that dir
  // swapped for a symlink once the run's mounts were decided, bound any path the agent chose.
  it('a symlink swapped between two commands does not make /etc writable', async () => {
    await startHarness();
    await bashTurn('rm -rf .git && mkdir sw && git init -q --bare sw/etc && printf "gitdir: %s/sw/etc\\n" "$PWD" > .git && git rev-parse --git-dir');
    const etc = await bashTurn('mv sw sw.real && ln -s / sw', `touch ${ESCAPE_MARKER} 2>&1; echo tried`);
    expect(etc[1]).toContain('tried');
    expect(existsSync(ESCAPE_MARKER)).toBe(false);
  });

  it('a symlink swapped between two commands does not make the data root (operator token) readable', async () => {
    await startHarness();
    const dataRoot = harness!.server.dataRoot;
    const name = basename(dataRoot);
    await bashTurn(`rm -rf .git && mkdir sw && git init -q --bare sw/${name} && printf "gitdir: %s/sw/${name}\\n" "$PWD" > .git && git rev-parse --git-dir`);
    const data = await bashTurn(`mv sw sw.real && ln -s ${dirname(dataRoot)} sw`, `cat ${join(dataRoot, 'operator-token')} 2>&1; echo tried`);
    expect(data[1]).toContain('tried');
    expect(data[1]).not.toContain(harness!.server.token);
    expect(data[1]).toMatch(/operator-token: No such file or directory/);
  });
});

describe.skipIf(!probe.available)('checkout isolation on Claude Code (SEC-3)', () => {
  const results = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages')).map((request) => request.lastToolResult?.content ?? '');

  it("moves neither the user's main nor a repository a .git file points at; the agent's commit appears as cc/<conversation>", async () => {
    claude = await startClaudeCodeFixture({ mode: 'chat', autonomy: 'actFreely', repo: true, transport: { sandbox: 'auto' } });
    const f = claude;
    const repoPath = f.repoPath!;
    const outside = makeOutsideRepository(await scratchDir());
    const before = userRefs(repoPath);
    f.model.script(reply().tool('Bash', { command: `${COMMIT} "claude work" && git update-ref refs/heads/main HEAD && git log -1 --format=%s main` }), reply().text('done'));
    expect((await f.waitForRun(await f.send('commit'))).run.state).toBe('completed');
    expect(results(f).join('\n')).toContain('claude work');
    expect(userRefs(repoPath)).toBe(before);
    expect(git(repoPath, 'log', '-1', '--format=%s', `refs/heads/cc/${f.conversationId}`)).toBe('claude work');

    f.model.script(reply().tool('Bash', { command: `rm -rf .git && printf 'gitdir: %s\\n' '${outside.path}' > .git; true` }), reply().text('done'));
    await f.waitForRun(await f.send('repoint'));
    f.model.script(reply().tool('Bash', { command: 'git update-ref refs/heads/main refs/heads/old 2>&1; true' }), reply().text('done'));
    expect((await f.waitForRun(await f.send('move'))).run.state).toBe('completed');
    expect(git(outside.path, 'rev-parse', 'refs/heads/main')).toBe(outside.main);
    expect(userRefs(repoPath)).toBe(before);
  }, 180_000);
});
