import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { CommandSandbox, type RunSandbox, type RunSandboxInput } from '../../src/sandbox/command-sandbox.js';
import { NodeWorktree } from '../../src/worktree/node-worktree.js';

/**
 * The warm sandbox must confine a command exactly as the per-command sandbox does (SBX-1,
 * SEC-7): the same probe runs through both paths and must see the same mounts, capabilities,
 * namespaces and refusals; and the hostile commands below must fail the same way in the warm one.
 */
const probe = await probeBubblewrap();
const dirs: string[] = [];
const sandboxes: CommandSandbox[] = [];

afterEach(async () => {
  for (const sandbox of sandboxes.splice(0)) await sandbox.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(): { input: Omit<RunSandboxInput, 'readOnly'>; dataRoot: string } {
  const root = mkdtempSync(join(tmpdir(), 'cc-warm-sec-'));
  dirs.push(root);
  const worktreePath = join(root, 'workspace', 'worktrees', 'cv_warm');
  mkdirSync(worktreePath, { recursive: true });
  execFileSync('git', ['init', '--quiet', '-b', 'main', worktreePath]);
  execFileSync('git', ['-C', worktreePath, '-c', 'user.name=T', '-c', 'user.email=t@t', 'commit', '--quiet', '--allow-empty', '-m', 'initial']);
  const dataRoot = join(root, 'data');
  mkdirSync(dataRoot);
  writeFileSync(join(dataRoot, 'operator-token'), 'top-secret-token');
  return { input: { worktreePath, sharedObjectsDir: null, workspaceDir: join(root, 'workspace'), reach: [] }, dataRoot };
}

function shell(run: RunSandbox, root: string): NodeWorktree {
  return new NodeWorktree(root, {
    defaultEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...run.env },
    ...(run.wrapCommand ? { wrapCommand: run.wrapCommand } : {}),
    ...(run.spawnHelper ? { spawnHelper: run.spawnHelper } : {}),
  });
}

async function exec(worktree: NodeWorktree, line: string) {
  return worktree.exec(line, { timeoutMs: 20_000, maxOutputBytes: 200_000, signal: new AbortController().signal });
}

/** What a command can observe about its confinement, minus what differs per process (pids, mount ids). */
const CONFINEMENT_PROBE = [
  `awk '{print $5, $6}' /proc/self/mountinfo | sort`,
  `grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status`,
  `id -u; hostname`,
  `awk 'NR>2 {print $1}' /proc/net/dev | sort`,
  `ls -A "$DATA_ROOT" "$HOME_DIR" "$WORKSPACE" 2>&1 | grep -v '^$' || true`,
  `touch /usr/cc-warm-probe 2>&1 | sed 's/.*: //'`,
].join('; echo ---; ');

describe.skipIf(!probe.available)('the warm sandbox confines as the per-command sandbox does (SBX-1, SEC-7)', () => {
  for (const readOnly of [false, true]) {
    for (const network of ['host', 'loopback'] as const) {
      it(`the same mounts, capabilities, namespaces and refusals (${readOnly ? 'read-only' : 'writable'} checkout, ${network} network)`, async () => {
        const { input, dataRoot } = setup();
        const sandbox = new CommandSandbox({ sandbox: 'auto', hiddenPaths: [dataRoot], network });
        sandboxes.push(sandbox);
        const perCommand = await sandbox.forRun({ ...input, readOnly });
        const warm = await sandbox.forRun({ ...input, readOnly, conversationId: 'cv_warm' });
        expect(perCommand.spawnHelper).toBeUndefined();
        expect(warm.spawnHelper).toBeDefined();
        expect(warm.description).toBe(perCommand.description);
        const line = `DATA_ROOT=${dataRoot} HOME_DIR=${process.env.HOME ?? '/root'} WORKSPACE=${input.workspaceDir}; ${CONFINEMENT_PROBE}`;
        const seenPerCommand = await exec(shell(perCommand, input.worktreePath), line);
        const seenWarm = await exec(shell(warm, input.worktreePath), line);
        expect(seenPerCommand.stdout).toContain('Read-only file system');
        expect(seenPerCommand.stdout).toMatch(/CapEff:\s+0+\n/);
        expect(seenWarm.stdout).toBe(seenPerCommand.stdout);
      });
    }
  }

  it('hostile commands in a warm read-only sandbox change nothing and read no secret', async () => {
    const { input, dataRoot } = setup();
    const sandbox = new CommandSandbox({ sandbox: 'auto', hiddenPaths: [dataRoot], network: 'loopback' });
    sandboxes.push(sandbox);
    const run = await sandbox.forRun({ ...input, readOnly: true, conversationId: 'cv_warm' });
    const worktree = shell(run, input.worktreePath);
    const head = () => execFileSync('git', ['-C', input.worktreePath, 'for-each-ref']).toString();
    const before = head();
    const result = await exec(
      worktree,
      [
        `cat ${join(dataRoot, 'operator-token')} 2>&1`,
        'git -c user.name=a -c user.email=a@a commit --allow-empty -q -m sneaky 2>&1',
        'git update-ref refs/heads/sneaky HEAD 2>&1',
        'echo pwned > planted.txt 2>&1',
        'mount -o remount,rw / 2>&1',
        'echo > /dev/tcp/1.1.1.1/80 2>&1',
        'echo done',
      ].join('; '),
    );
    expect(result.stdout).toContain('done');
    expect(result.stdout).not.toContain('top-secret-token');
    expect(result.stdout).toMatch(/Read-only file system/);
    expect(head()).toBe(before);
    expect(execFileSync('git', ['-C', input.worktreePath, 'status', '--porcelain']).toString()).toBe('');
    // The helper's IPC channel to the server (fd 3 of the helper) is not handed to commands: a command
    // cannot read other commands' requests (their environment) or forge results.
    const sockets = await exec(worktree, 'for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && readlink "$fd"; done | grep socket || echo none');
    expect(sockets.stdout).toBe('none\n');
    // Nothing the commands did moved the sandbox: the next command still sees the same confinement.
    expect((await exec(worktree, 'grep CapEff /proc/self/status')).stdout).toMatch(/CapEff:\s+0+\n/);
  });
});
