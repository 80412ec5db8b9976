import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HookSession, PushRemote } from '../../src/core/hook-sessions.js';
import * as pushProxy from '../../src/git/git-push-proxy.js';
import { CommandSandbox } from '../../src/sandbox/command-sandbox.js';
import { checkpointWorktree, ensureWorktree, listCheckpoints, memoryCheckoutRecords, removeWorktree, type CheckoutRecord } from '../../src/git/git-worktrees.js';
import * as remoteUrl from '../../src/git/git-remote-url.js';
import { runGit, tryGit } from '../../src/git/run-git.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * SEC-2: no string an agent can influence (a remote URL in a config it wrote, a `.git` file, a
 * ref or path it chose) becomes an option or a program of a git the server runs on the host. Every
 * payload below would create a file in MARKS when executed; the directory must stay empty. Payloads
 * name the directory through `$CC_PWN` (the server runs in this process and shares its environment),
 * so a URL needs no `/` before its `:` and passes for a remote address with the old parsing.
 */

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const MARKS = `${mkdtempSync(join(tmpdir(), 'cc-pwn-'))}/`;
const touch = (name: string) => `touch "$CC_PWN"${name}`;

let root = '';
let server: TestServer;
let workspaceId = '';
let runCounter = 0;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...IDENTITY } }).trim();
}

function marks(): string[] {
  return readdirSync(MARKS);
}

/** A repository with one commit and a bare remote `origin` it has pushed `main` to. */
/**
 * Checkpoints `checkout` as the server does without an OS sandbox (SBX-2: the checkout runner then
 * runs git on the host), bringing the ref into a fresh user repository.
 */
function checkpointOnHost(checkout: string, conversationId: string): Promise<string> {
  const { repo: user } = makeRepo('user');
  const record: CheckoutRecord = {
    conversationId,
    repoPath: user,
    sourceGitDir: join(user, '.git'),
    sourceObjectsDir: join(user, '.git', 'objects'),
    branch: `cc/${conversationId}`,
    baseSha: '0'.repeat(40),
    remotes: [],
    createdAt: new Date().toISOString(),
  };
  const runner = new CommandSandbox({ sandbox: 'none' }).checkoutRunner({ worktreePath: checkout, sharedObjectsDir: null, workspaceDir: join(root, 'no-workspace') });
  return checkpointWorktree(record, runner);
}

function makeRepo(name: string): { repo: string; remote: string } {
  const dir = join(root, `${name}-${runCounter++}`);
  const remote = join(dir, 'remote.git');
  const repo = join(dir, 'repo');
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
  writeFileSync(join(repo, 'README'), 'hello\n');
  git(repo, 'add', 'README');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  git(repo, 'remote', 'add', 'origin', remote);
  git(repo, 'push', '--quiet', 'origin', 'main');
  return { repo, remote };
}

/** Sets a config value that may start with `-` (the test's own git must not read it as an option). */
function setConfig(cwd: string, key: string, value: string): void {
  git(cwd, 'config', '--end-of-options', key, value);
}

/** Registers a push-proxy session for `remotes` with a run token the server accepts. */
function register(repo: string, remotes: PushRemote[]): { token: string; session: HookSession; release: () => void } {
  const runId = `run_sec2_${runCounter++}`;
  const token = server.running.app.runTokens.issue({ workspaceId, runId, agentId: 'agent_sec2' });
  const session: HookSession = {
    token,
    workspaceId,
    runId,
    mode: 'chat',
    worktreePath: repo,
    gate: async () => ({ allow: true, decision: 'allow', reason: 'test allows every push', decidedBy: { scope: 'default', ruleId: null }, classes: ['gitPush'] }),
    signal: new AbortController().signal,
    pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
    pushStagingDir: join(root, 'staging'),
    decisions: [],
  };
  const unregister = server.running.app.hookSessions.register(session);
  return {
    token,
    session,
    release: () => {
      unregister();
      server.running.app.runTokens.revoke(runId);
    },
  };
}

/** A remote as a recorder that did not validate would have stored it: the URL verbatim. */
function recorded(url: string): PushRemote {
  const id = (runCounter++).toString(16).padStart(16, '0');
  return { id, name: 'origin', url, forwardUrl: url };
}

async function advertise(token: string, id: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/git-push/${id}/info/refs?service=git-receive-pack`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // git's own answer (pkt-lines)
  }
  return { status: response.status, body };
}

function push(repo: string, env: Record<string, string>, ...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', ['push', ...args], { cwd: repo, env: { ...process.env, ...IDENTITY, ...env } });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, stderr }));
  });
}

beforeAll(async () => {
  process.env.CC_PWN = MARKS;
  root = mkdtempSync(join(tmpdir(), 'cc-sec2-'));
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Sec2')).id;
});

afterAll(async () => {
  delete process.env.CC_PWN;
  await server?.dispose();
  rmSync(root, { recursive: true, force: true });
  rmSync(MARKS, { recursive: true, force: true });
});

afterEach(() => {
  // Every test ends with an empty marker directory; a leftover would blame the next test.
  const left = marks();
  for (const name of left) rmSync(join(MARKS, name), { force: true });
  expect(left).toEqual([]);
});

/** Remote URLs that run a program, or would if git read them as options. */
const HOSTILE_URLS: ReadonlyArray<[string, string, RegExp]> = [
  ['fetch option --upload-pack', `--upload-pack=${touch('upload')};:`, /starts with "-"/],
  ['push option --receive-pack', `--receive-pack=${touch('receive')};:`, /starts with "-"/],
  ['ssh option as an scp-like host', `-oProxyCommand=${touch('proxy')};:repo`, /starts with "-"/],
  ['ssh option as the host of ssh://', `ssh://-oProxyCommand=${touch('proxy2')}/repo`, /host starting with "-"/],
  ['ssh option as the user of ssh://', 'ssh://-oProxyCommand=x@example.com/repo', /user name starting with "-"/],
  ['percent-encoded ssh option host', 'ssh://%2DoProxyCommand=x/repo', /host starting with "-"/],
  ['ext:: remote helper', `ext::sh -c ${touch('ext').replace(/ /g, '% ')}`, /remote-helper syntax "ext::"/],
  ['fd:: remote helper', 'fd::7', /remote-helper syntax "fd::"/],
  ['unknown transport (remote helper)', 'evil://example.com/repo', /transport "evil"/],
];

describe('the push proxy never hands a recorded remote URL to git as an option (SEC-2)', () => {
  it.each(HOSTILE_URLS)('%s: refused with the reason, nothing runs', async (_label, url, reason) => {
    const { repo } = makeRepo('recorded');
    const remote = recorded(url);
    const { token, release } = register(repo, [remote]);
    try {
      const answer = await advertise(token, remote.id);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'validation_failed', field: 'remote.url' });
      expect(answer.body.error.message).toMatch(reason);
      expect(marks()).toEqual([]);
    } finally {
      release();
    }
  });

  it('a recorded remote name that would add words to the decided command line is refused', async () => {
    const { repo, remote: real } = makeRepo('name-words');
    const remote = { ...recorded(real), name: 'origin feature --delete main' };
    const { token, release } = register(repo, [remote]);
    try {
      const answer = await advertise(token, remote.id);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'validation_failed', field: 'remote.name' });
    } finally {
      release();
    }
  });

  it('a URL with a newline cannot forge lines of the staging config', async () => {
    const { repo, remote: real } = makeRepo('newline');
    const remote = recorded(`${real}\n[core]\n\tfsmonitor = ${touch('config')}`);
    const { token, release } = register(repo, [remote]);
    try {
      const answer = await advertise(token, remote.id);
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(/control character/);
      expect(marks()).toEqual([]);
    } finally {
      release();
    }
  });

  it('a real git push through the proxy to an option-shaped URL is refused and runs nothing', async () => {
    const { repo } = makeRepo('push');
    const remote = recorded(`--upload-pack=${touch('push')};:`);
    const { token, release } = register(repo, [remote]);
    try {
      setConfig(repo, 'remote.evil.url', remote.url);
      const result = await push(repo, pushProxy.gitPushEnvironment(server.url, token, [remote]), 'evil', 'HEAD:refs/heads/feature');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/400|refused|strange hostname/);
      expect(marks()).toEqual([]);
    } finally {
      release();
    }
  });

  it('a legitimate remote still works, through a fixed remote name the server wrote into the staging repository', async () => {
    const { repo, remote } = makeRepo('legit');
    const remotes = await pushProxy.discoverPushRemotes(repo);
    expect(remotes).toHaveLength(1);
    const { token, session, release } = register(repo, remotes);
    try {
      git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'work');
      const result = await push(repo, pushProxy.gitPushEnvironment(server.url, token, remotes), 'origin', 'HEAD:refs/heads/feature');
      expect(result.stderr).toMatch(/push forwarded/);
      expect(result.code).toBe(0);
      expect(git(remote, 'rev-parse', 'refs/heads/feature')).toBe(git(repo, 'rev-parse', 'HEAD'));
      const staging = readdirSync(session.pushStagingDir).map((name) => join(session.pushStagingDir, name));
      const configs = staging.map((path) => readFileSync(join(path, 'config'), 'utf8'));
      expect(configs.some((config) => config.includes(`[remote "${pushProxy.FORWARD_REMOTE}"]`) && config.includes(remote))).toBe(true);
      expect(pushProxy.PRE_RECEIVE_HOOK).toContain(`-- ${pushProxy.FORWARD_REMOTE} "$@"`);
      expect(pushProxy.PRE_RECEIVE_HOOK).not.toContain('FORWARD_URL');
    } finally {
      release();
    }
  });
});

/** Ways an agent that writes a repository's config (or its `.git`) makes a hostile URL the push URL. */
const TRICKS: ReadonlyArray<[string, (repo: string, url: string) => void]> = [
  ['remote.origin.url', (repo, url) => setConfig(repo, 'remote.origin.url', url)],
  ['remote.origin.pushurl', (repo, url) => setConfig(repo, 'remote.origin.pushurl', url)],
  [
    'url.<hostile>.insteadOf rewriting the real URL',
    (repo, url) => {
      setConfig(repo, 'remote.origin.url', 'https://example.com/acme/repo.git');
      setConfig(repo, `url.${url}.insteadOf`, 'https://example.com/');
    },
  ],
  [
    'a .git file pointing at a git dir the agent made',
    (repo, url) => {
      renameSync(join(repo, '.git'), join(repo, '.agent-gitdir'));
      writeFileSync(join(repo, '.git'), 'gitdir: .agent-gitdir\n');
      setConfig(repo, 'remote.origin.url', url);
    },
  ],
];

describe('discovered remotes: hostile URLs are dropped with a reason, and a push through the proxy runs nothing (SEC-2)', () => {
  const payload = `--upload-pack=${touch('discovered')};:`;
  it.each(TRICKS)('%s', async (_label, trick) => {
    const { repo } = makeRepo('trick');
    trick(repo, payload);
    const remotes = await pushProxy.discoverPushRemotes(repo);
    // What an agent does next: push. Whatever the proxy was told, nothing may run on the host.
    const { token, release } = register(repo, remotes);
    const statuses: number[] = [];
    try {
      for (const remote of remotes) statuses.push((await advertise(token, remote.id)).status);
      const result = await push(repo, pushProxy.gitPushEnvironment(server.url, token, remotes), 'origin', 'HEAD:refs/heads/feature');
      expect(marks()).toEqual([]);
      expect(result.code).not.toBe(0);
    } finally {
      release();
    }
    expect(statuses).toEqual([]);
    expect(remotes.filter((remote) => remote.url.includes(payload) || remote.forwardUrl.includes(payload))).toEqual([]);
    expect(typeof pushProxy.inspectPushRemotes).toBe('function');
    const { dropped } = await pushProxy.inspectPushRemotes(repo);
    expect(dropped).toEqual([expect.objectContaining({ name: 'origin', url: expect.stringContaining(payload), reason: expect.stringMatching(/starts with "-"/) })]);
  });

  it('a remote whose name is option-shaped is dropped, and its URL is never asked for', async () => {
    const { repo, remote } = makeRepo('name');
    setConfig(repo, 'remote.--upload-pack=x.url', remote);
    const { remotes, dropped } = await pushProxy.inspectPushRemotes(repo);
    expect(remotes.map((entry) => entry.name)).toEqual(['origin']);
    expect(dropped).toEqual([expect.objectContaining({ name: '--upload-pack=x', url: null, reason: expect.stringMatching(/starts with "-"/) })]);
  });

  it('relative local paths are resolved against the repository', async () => {
    const { repo } = makeRepo('relative');
    setConfig(repo, 'remote.origin.url', '../remote.git');
    const [remote] = await pushProxy.discoverPushRemotes(repo);
    expect(remote).toMatchObject({ url: '../remote.git', forwardUrl: join(repo, '..', 'remote.git') });
  });
});

describe('server-run git ignores programs named by config an agent wrote (SEC-2)', () => {
  /**
   * The checkout runner passes git an allowlisted environment without `$CC_PWN`, so a payload run
   * there must name the marker by its absolute path: through `$CC_PWN` it would touch a file
   * elsewhere and the test could not see a filter that did run.
   */
  const touchAbsolute = (name: string) => `touch '${MARKS}${name}'`;

  /** A worktree with an untracked file whose attributes name a filter the config defines. */
  function filtered(configure: (gitDirHolder: string) => void): string {
    const { repo } = makeRepo('filter');
    configure(repo);
    writeFileSync(join(repo, 'data.txt'), 'agent data\n');
    return repo;
  }

  it.each<[string, (repo: string) => void]>([
    ['filter.<x>.clean in .git/config', (repo) => {
      setConfig(repo, 'filter.evil.clean', `${touchAbsolute('clean')}; cat`);
      writeFileSync(join(repo, '.gitattributes'), '* filter=evil\n');
    }],
    ['a filter driver whose name holds "="', (repo) => {
      setConfig(repo, 'filter.a=b.clean', `${touchAbsolute('clean-eq')}; cat`);
      setConfig(repo, 'filter.a=b.required', 'true');
      writeFileSync(join(repo, '.gitattributes'), '* filter=a=b\n');
    }],
    ['filter.<x>.process (long-running filter)', (repo) => {
      setConfig(repo, 'filter.evil.process', touch('process'));
      writeFileSync(join(repo, '.gitattributes'), '* filter=evil\n');
    }],
    ['attributes in .git/info/attributes', (repo) => {
      setConfig(repo, 'filter.evil.clean', `${touchAbsolute('info-attributes')}; cat`);
      writeFileSync(join(repo, '.git', 'info', 'attributes'), '* filter=evil\n');
    }],
    ['a .git file pointing at a git dir whose config defines the filter', (repo) => {
      renameSync(join(repo, '.git'), join(repo, '.agent-gitdir'));
      writeFileSync(join(repo, '.git'), 'gitdir: .agent-gitdir\n');
      setConfig(repo, 'filter.evil.clean', `${touchAbsolute('gitfile')}; cat`);
      writeFileSync(join(repo, '.gitattributes'), '* filter=evil\n');
    }],
    ['core.fsmonitor', (repo) => setConfig(repo, 'core.fsmonitor', touchAbsolute('fsmonitor'))],
  ])('checkpointing a worktree: %s', async (_label, configure) => {
    const repo = filtered(configure);
    const ref = await checkpointOnHost(repo, 'conv_sec2');
    expect(ref).toMatch(/^refs\/cc-checkpoints\/conv_sec2\//);
    expect(marks()).toEqual([]);
    // Positive control: the host's own git, without the server's overrides, does run the payload,
    // so an empty MARKS above means the overrides stopped it, not that the payload was inert.
    spawnSync('git', ['add', '--all'], { cwd: repo, env: { ...process.env, ...IDENTITY } });
    spawnSync('git', ['status', '--porcelain'], { cwd: repo, env: { ...process.env, ...IDENTITY } });
    const live = marks();
    for (const name of live) rmSync(join(MARKS, name), { force: true });
    expect(live).not.toEqual([]);
  });

  it('creating a conversation worktree does not run a smudge filter from the repository', async () => {
    const { repo } = makeRepo('smudge');
    writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil\n');
    writeFileSync(join(repo, 'a.txt'), 'x\n');
    git(repo, 'add', '.gitattributes', 'a.txt');
    git(repo, 'commit', '--quiet', '-m', 'attributes');
    setConfig(repo, 'filter.evil.smudge', `${touch('smudge')}; cat`);
    const created = await ensureWorktree({ repoPath: repo, worktreesDir: join(root, `worktrees-${runCounter++}`), conversationId: 'conv_smudge', records: memoryCheckoutRecords() });
    expect(created.kind).toBe('git');
    expect(marks()).toEqual([]);
  });

  it('ext:: stays forbidden even when the repository config allows it', async () => {
    const { repo } = makeRepo('ext');
    setConfig(repo, 'protocol.allow', 'always');
    setConfig(repo, 'protocol.ext.allow', 'always');
    const result = await tryGit(['fetch', '--quiet', `ext::sh -c ${touch('ext-config').replace(/ /g, '% ')}`], { cwd: repo });
    expect(result).toBeNull();
    expect(marks()).toEqual([]);
  });

  it('remote.<name>.uploadpack and core.sshCommand from the repository are not run', async () => {
    const { repo } = makeRepo('uploadpack');
    setConfig(repo, 'remote.origin.uploadpack', `${touch('uploadpack')}; git-upload-pack`);
    await tryGit(['fetch', '--quiet', 'origin'], { cwd: repo });
    setConfig(repo, 'core.sshCommand', `${touch('sshcommand')};`);
    expect(await tryGit(['fetch', '--quiet', 'ssh://example.invalid/repo.git'], { cwd: repo })).toBeNull();
    expect(marks()).toEqual([]);
  });

  it('a URL-scoped credential helper from the repository is not run', async () => {
    const { repo } = makeRepo('credential');
    setConfig(repo, `credential.${server.url}.helper`, `!${touch('credential')}; echo`);
    // http is not a transport of an agent-writable repository at all; the helper list is reset too.
    expect(await tryGit(['fetch', '--quiet', `${server.url}/nothing.git`], { cwd: repo })).toBeNull();
    expect(marks()).toEqual([]);
  });
});

/** Option-shaped strings: a dash prefix, then anything (with `=`, spaces, unicode, a payload). */
const optionShaped = fc
  .tuple(
    fc.constantFrom('-', '--', '-o', '-c', '--upload-pack=', '--receive-pack=', '--exec=', '--config=', '-oProxyCommand='),
    fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 10 }), fc.constant(`${touch('prop')};:`), fc.constant(`x ${touch('prop')};:`)),
  )
  .map(([prefix, rest]) => `${prefix}${rest}`)
  // NUL cannot be an argument at all (the test's own git could not set it); every other character can.
  .filter((value) => !value.includes('\0'));

describe('property: option-shaped strings into every git-running function never execute (SEC-2)', () => {
  it('runGit/tryGit refuse them as operands, with the field named', async () => {
    const { repo } = makeRepo('prop-rungit');
    await fc.assert(
      fc.asyncProperty(optionShaped, fc.constantFrom(['rev-parse', '--verify', '--quiet'], ['fetch', '--quiet'], ['config', '--get'], ['remote', 'get-url']), async (value, args) => {
        await expect(runGit(args, { cwd: repo, operands: [value] })).rejects.toMatchObject({ code: 'validation_failed', field: 'git operand 1' });
        await expect(tryGit(args, { cwd: repo, operands: [value] })).rejects.toMatchObject({ code: 'validation_failed' });
      }),
      { numRuns: 40 },
    );
    expect(marks()).toEqual([]);
  });

  it('strings that are not option-shaped stay operands: git may fail, but never runs them', async () => {
    const { repo } = makeRepo('prop-operand');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 20 }), fc.constant(`x --upload-pack=${touch('operand')};:`), fc.constant(`origin --upload-pack=${touch('operand')}`)),
        async (value) => {
          const outcome = await tryGit(['fetch', '--quiet'], { cwd: repo, operands: [value] }).catch((error: { code?: string }) => error.code);
          expect(outcome === null || outcome === 'validation_failed' || typeof outcome === 'object').toBe(true);
        },
      ),
      { numRuns: 25 },
    );
    expect(marks()).toEqual([]);
  });

  it('remote URL checks refuse them', () => {
    fc.assert(
      fc.property(optionShaped, (value) => {
        const check = remoteUrl.checkRemoteUrl(value, root);
        expect(check.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('checkpoint and listing functions refuse them as a conversation id', async () => {
    const { repo } = makeRepo('prop-checkpoint');
    await fc.assert(
      fc.asyncProperty(optionShaped, async (value) => {
        await expect(checkpointOnHost(repo, value)).rejects.toMatchObject({ code: 'validation_failed', field: 'conversationId' });
        await expect(listCheckpoints(repo, value)).rejects.toMatchObject({ code: 'validation_failed', field: 'conversationId' });
        await expect(removeWorktree({ repoPath: repo, worktreesDir: join(root, 'none'), conversationId: value })).rejects.toMatchObject({ code: 'validation_failed' });
      }),
      { numRuns: 30 },
    );
    expect(marks()).toEqual([]);
  });

  it('ensureWorktree refuses them as a base ref or a conversation id', async () => {
    const { repo } = makeRepo('prop-worktree');
    const worktreesDir = join(root, `prop-worktrees-${runCounter++}`);
    await fc.assert(
      fc.asyncProperty(optionShaped, async (value) => {
        await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: `c${runCounter++}`, baseRef: value, records: memoryCheckoutRecords() })).rejects.toMatchObject({ code: 'validation_failed', field: 'baseRef' });
        await expect(ensureWorktree({ repoPath: repo, worktreesDir, conversationId: value, records: memoryCheckoutRecords() })).rejects.toMatchObject({ code: 'validation_failed', field: 'conversationId' });
      }),
      { numRuns: 15 },
    );
    expect(marks()).toEqual([]);
  });

  it('the push proxy refuses them as a recorded URL, and discovery drops them', async () => {
    const { repo } = makeRepo('prop-proxy');
    await fc.assert(
      fc.asyncProperty(optionShaped, async (value) => {
        const remote = recorded(value);
        const { token, release } = register(repo, [remote]);
        try {
          const answer = await advertise(token, remote.id);
          expect(answer.status).toBe(400);
        } finally {
          release();
        }
        setConfig(repo, 'remote.origin.pushurl', value);
        const remotes = await pushProxy.discoverPushRemotes(repo);
        expect(remotes.map((entry) => entry.url)).not.toContain(value);
      }),
      { numRuns: 12 },
    );
    expect(marks()).toEqual([]);
  });
});
