import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { BubblewrapSandbox, probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { runnerEnvironment } from '../../src/sandbox/runner-environment.js';
import type { SandboxSpec } from '../../src/sandbox/sandbox-spec.js';
import { seatbeltProfile } from '../../src/sandbox/seatbelt-profile.js';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';

const execFileAsync = promisify(execFile);
const probe = await probeBubblewrap();

let fixture: ClaudeCodeFixture | null = null;
const scratch: string[] = [];

afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const path of scratch.splice(0)) await rm(path, { recursive: true, force: true });
});

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-sbx-'));
  scratch.push(dir);
  return dir;
}

/** Runs `sh -c script` in a bubblewrap sandbox built from `spec` (command/args filled in). */
async function runSandboxed(spec: Omit<SandboxSpec, 'command' | 'args'>, script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const launch = await new BubblewrapSandbox().prepare({ ...spec, command: 'sh', args: ['-c', script] });
  try {
    const { stdout, stderr } = await execFileAsync(launch.command, launch.args, { cwd: spec.cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return { code: typeof error.code === 'number' ? error.code : 1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
  } finally {
    await launch.dispose();
  }
}

describe.skipIf(!probe.available)('bubblewrap sandbox (SBX-1)', () => {
  it('inside bubblewrap a write outside the worktree fails at the OS level', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'auto' } });
    const f = fixture;
    const outside = join(f.dataRoot, 'escaped.txt');
    const inside = join(f.worktreePath(), 'inside.txt');
    f.model.script(
      reply().tool('Bash', { command: `echo escaped > ${outside}` }),
      reply().tool('Write', { file_path: join(f.dataRoot, 'escaped-by-write.txt'), content: 'escaped' }),
      reply().tool('Bash', { command: 'echo stays > inside.txt && cat inside.txt' }),
      reply().tool('Bash', { command: `cat ${join(f.dataRoot, 'operator-token')}; ls -a ${f.dataRoot}` }),
      reply().text('done'),
    );
    const detail = await f.waitForRun(await f.send('try to escape'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/^bubblewrap: worktree writable/);
    // The policy allowed both writes (fileWriteOutsideWorktree defaults to allow): the OS refused them.
    const decisions = f.decisions.filter((entry) => entry.source === 'hook').map((entry) => entry.allow);
    expect(decisions).toEqual([true, true, true, true]);
    const results = f.model.requests.filter((request) => request.path.startsWith('/v1/messages')).slice(1, 5).map((request) => request.lastToolResult?.content ?? '');
    expect(results[0]).toMatch(/Read-only file system/);
    expect(results[1]).toMatch(/EROFS|read-only file system/i);
    expect(results[2]).toMatch(/stays/);
    // The data root (operator token, databases) is hidden: an empty directory.
    expect(results[3]).toMatch(/No such file or directory/);
    expect(results[3]).not.toContain(f.token);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(f.dataRoot, 'escaped-by-write.txt'))).toBe(false);
    expect(readFileSync(inside, 'utf8')).toBe('stays\n');
  });
});

describe.skipIf(!probe.available)('bubblewrap sandbox mounts and network (SBX-1, SBX-3)', () => {
  it('a read-only mode mounts the worktree read-only', async () => {
    const root = await scratchDir();
    const worktree = join(root, 'worktree');
    mkdirSync(worktree);
    writeFileSync(join(worktree, 'file.txt'), 'original');
    const result = await runSandboxed(
      { cwd: worktree, writable: [], readOnly: [worktree], hidden: [], privateTmp: ['/tmp'], network: { kind: 'loopback', ports: [] } },
      'cat file.txt; echo changed > file.txt; touch new.txt; echo tmp > /tmp/ok && cat /tmp/ok',
    );
    expect(result.stdout).toContain('original');
    expect(result.stderr).toMatch(/file\.txt: Read-only file system/);
    expect(result.stderr).toMatch(/new\.txt.*Read-only file system/);
    expect(result.stdout).toContain('tmp');
    expect(readFileSync(join(worktree, 'file.txt'), 'utf8')).toBe('original');
    expect(existsSync(join(worktree, 'new.txt'))).toBe(false);
  });

  it('hidden paths are empty and read-only, the paths re-exposed inside them stay reachable', async () => {
    const root = await scratchDir();
    const dataRoot = join(root, 'data');
    const worktree = join(dataRoot, 'workspaces', 'ws', 'worktrees', 'cv');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(dataRoot, 'operator-token'), 'cc_secret');
    const result = await runSandboxed(
      { cwd: worktree, writable: [worktree], readOnly: [], hidden: [dataRoot], privateTmp: ['/tmp'], network: { kind: 'loopback', ports: [] } },
      `cat ${dataRoot}/operator-token; echo x > ${dataRoot}/planted; echo ok > here.txt && cat here.txt`,
    );
    expect(result.stderr).toMatch(/operator-token: No such file or directory/);
    expect(result.stderr).toMatch(/planted: Read-only file system/);
    expect(result.stdout).toContain('ok');
    expect(readFileSync(join(worktree, 'here.txt'), 'utf8')).toBe('ok\n');
  });

  it('the sandbox reaches only the relayed loopback ports', async () => {
    const root = await scratchDir();
    const { createServer } = await import('node:http');
    const listen = async () => {
      const server = createServer((_request, response) => response.end('reached'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    };
    const allowed = await listen();
    const forbidden = await listen();
    const port = (server: typeof allowed) => (server.address() as { port: number }).port;
    try {
      const probeScript = (url: string) =>
        `${process.execPath} -e "fetch('${url}').then(async (r) => console.log('OK', await r.text())).catch((e) => console.log('FAIL', e.cause?.code ?? e.message))"`;
      const result = await runSandboxed(
        { cwd: root, writable: [root], readOnly: [], hidden: [], privateTmp: ['/tmp'], network: { kind: 'loopback', ports: [port(allowed)] } },
        [probeScript(`http://127.0.0.1:${port(allowed)}/`), probeScript(`http://127.0.0.1:${port(forbidden)}/`), probeScript('http://1.1.1.1/')].join('; '),
      );
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toBe('OK reached');
      expect(lines[1]).toBe('FAIL ECONNREFUSED');
      expect(lines[2]).toMatch(/^FAIL (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)/);
    } finally {
      allowed.close();
      forbidden.close();
    }
  });

  it('the sandboxed process keeps no capabilities: it cannot remount the root writable, even as root', async () => {
    const root = await scratchDir();
    const result = await runSandboxed(
      { cwd: root, writable: [root], readOnly: [], hidden: [], privateTmp: ['/tmp'], network: { kind: 'loopback', ports: [] } },
      'grep CapEff /proc/self/status; mount -o remount,rw / && echo REMOUNTED; touch /etc/cc-sandbox-escape && echo ESCAPED; true',
    );
    expect(result.stdout).toMatch(/CapEff:\s+0+\n/);
    expect(result.stdout).not.toContain('REMOUNTED');
    expect(result.stdout).not.toContain('ESCAPED');
    expect(existsSync('/etc/cc-sandbox-escape')).toBe(false);
  });

  it("in chat, commits work; the checkout's config and hooks are the agent's, the user's repository's stay untouched (SEC-3)", async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', repo: true, transport: { sandbox: 'auto' } });
    const f = fixture;
    const marker = `/tmp/cc-pwned-${process.pid}`;
    f.model.script(
      reply().tool('Bash', { command: 'git -c user.name=a -c user.email=a@a commit --allow-empty -q -m "sandboxed commit" && git log -1 --format=%s' }),
      reply().tool('Bash', { command: `git config core.fsmonitor "touch ${marker}" && mkdir -p .git/hooks && echo "#!/bin/sh" > .git/hooks/post-checkout && echo tampered` }),
      reply().text('done'),
    );
    await f.waitForRun(await f.send('commit, then tamper'));
    const results = f.model.requests.filter((request) => request.path.startsWith('/v1/messages')).slice(1, 3).map((request) => request.lastToolResult?.content ?? '');
    expect(results[0]).toContain('sandboxed commit');
    // The checkout is a clone whose `.git` is its own: tampering with it reaches nothing else.
    expect(results[1]).toContain('tampered');
    const { execFileSync } = await import('node:child_process');
    // The server brought the commit over (running git for that inside the sandbox, not on the host).
    expect(execFileSync('git', ['log', '-1', '--format=%s', `cc/${f.conversationId}`], { cwd: f.repoPath!, encoding: 'utf8' }).trim()).toBe('sandboxed commit');
    expect(() => execFileSync('git', ['config', 'core.fsmonitor'], { cwd: f.repoPath!, encoding: 'utf8' })).toThrow();
    expect(existsSync(join(f.repoPath!, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it('MCP and hook calls reach the Control Center through the relay; a plan run mounts the worktree read-only', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'plan', transport: { sandbox: 'auto' } });
    const f = fixture;
    f.model.script(
      reply().tool('Bash', { command: 'ls -a' }),
      reply().tool('mcp__control-center__submit_plan', { goal: 'Sandboxed plan', nodes: [{ key: 'one', title: 'One', description: 'Only step.', dependsOn: [] }] }),
      reply().text('Submitted.'),
    );
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.run.sandbox).toMatch(/^bubblewrap: worktree read-only/);
    expect(detail.run.sandbox).toMatch(/network: loopback ports/);
    expect(f.decisions.find((entry) => entry.toolName === 'Bash')?.allow).toBe(true);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Sandboxed plan']);
  });
});

describe('SBX-2 fallback', () => {
  it('without a backend the run records none: and runs with a sanitized environment', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true }, env: { OPERATOR_SECRET_TOKEN: 'do-not-leak', AWS_SECRET_ACCESS_KEY: 'nope' } });
    const f = fixture;
    f.model.script(reply().tool('Bash', { command: 'env | sort' }), reply().text('listed'));
    const detail = await f.waitForRun(await f.send('show env'));
    expect(detail.run.sandbox).toMatch(/^none: disabled by configuration; unsandboxed by operator opt-in \(--allow-unsandboxed-runners\), fallback \(SBX-2\): sanitized environment/);
    const listed = f.model.requests.filter((request) => request.path.startsWith('/v1/messages'))[1]!.lastToolResult!.content;
    expect(listed).not.toContain('do-not-leak');
    expect(listed).not.toContain('AWS_SECRET_ACCESS_KEY');
    // SEC-6: the model is reached through the server's broker, never the upstream directly.
    expect(listed).toContain(`ANTHROPIC_BASE_URL=${f.url}/api/model-proxy/anthropic`);
    expect(listed).not.toContain(f.model.providerEnv.ANTHROPIC_API_KEY);
    expect(listed).toMatch(/HOME=.*claude-code\/runs\/run_[^/]+\/home/);
    expect(listed).toContain('CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1');
  });

  it('the runner environment keeps PATH, locale and the brokered model variables only', () => {
    const env = runnerEnvironment({
      source: { PATH: '/bin', LANG: 'C.UTF-8', LC_ALL: 'C', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1', GITHUB_TOKEN: 'g', OPENAI_API_KEY: 'o', HOME: '/root' },
      home: '/run/home',
      brokered: { ANTHROPIC_API_KEY: 'cca_run', ANTHROPIC_BASE_URL: 'http://127.0.0.1:2/api/model-proxy/anthropic' },
      extra: { CLAUDE_CONFIG_DIR: '/cfg' },
    });
    // SEC-6: the real key and upstream of the server's environment are replaced by the broker's.
    expect(env).toMatchObject({ PATH: '/bin', LANG: 'C.UTF-8', LC_ALL: 'C', ANTHROPIC_API_KEY: 'cca_run', ANTHROPIC_BASE_URL: 'http://127.0.0.1:2/api/model-proxy/anthropic', HOME: '/run/home', CLAUDE_CONFIG_DIR: '/cfg' });
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.DISABLE_AUTOUPDATER).toBe('1');
  });
});

describe('Seatbelt profile (SBX-1, macOS)', () => {
  it('generates a profile that denies writes outside the writable paths and limits the network to loopback ports', () => {
    const profile = seatbeltProfile({
      command: '/usr/local/bin/claude',
      args: [],
      cwd: '/Users/op/cc/worktrees/cv_1',
      writable: ['/Users/op/cc/worktrees/cv_1', '/Users/op/cc/sessions/s1'],
      readOnly: ['/Users/op/cc/runs/r1/hook'],
      hidden: ['/Users/op/cc', '/Users/op'],
      privateTmp: ['/Users/op/cc/runs/r1/home'],
      network: { kind: 'loopback', ports: [4317, 8080] },
    });
    const lines = profile.trim().split('\n');
    expect(lines[0]).toBe('(version 1)');
    expect(lines).toContain('(deny default)');
    expect(lines).toContain('(deny file-read* (subpath "/Users/op/cc"))');
    expect(profile).toMatch(/\(allow file-write\* \(subpath "\/Users\/op\/cc\/worktrees\/cv_1"\) \(subpath "\/Users\/op\/cc\/sessions\/s1"\) \(subpath "\/Users\/op\/cc\/runs\/r1\/home"\)/);
    expect(lines).toContain('(deny file-write* (subpath "/Users/op/cc/runs/r1/hook"))');
    // Re-allowed reads come after the hidden denies (SBPL: the last match wins).
    expect(lines.findIndex((line) => line.startsWith('(allow file-read* (subpath'))).toBeGreaterThan(lines.indexOf('(deny file-read* (subpath "/Users/op"))'));
    expect(lines).toContain('(deny network*)');
    expect(lines).toContain('(allow network-outbound (remote ip "localhost:4317"))');
    expect(lines).toContain('(allow network-outbound (remote ip "localhost:8080"))');
    expect(profile).not.toMatch(/\(allow network\*\)/);
  });

  it('quotes paths so a crafted path cannot end the string', () => {
    const profile = seatbeltProfile({ command: 'x', args: [], cwd: '/w', writable: ['/w/a"b\\c'], readOnly: [], hidden: [], privateTmp: [], network: { kind: 'loopback', ports: [] } });
    expect(profile).toContain('(subpath "/w/a\\"b\\\\c")');
  });
});
