import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { CommandSandbox, type RunSandbox } from '../../src/sandbox/command-sandbox.js';
import { SpawnHelperDiedError } from '../../src/sandbox/spawn-helper.js';
import { vforkHelperPython } from '../../src/sandbox/vfork-helper.js';
import { WarmSandbox } from '../../src/sandbox/warm-sandbox.js';
import { NodeWorktree } from '../../src/worktree/node-worktree.js';

const probe = await probeBubblewrap();
const sandboxes: CommandSandbox[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const sandbox of sandboxes.splice(0)) await sandbox.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The helper program the sandboxes of the suite running now start (each suite below runs with one). */
let helper: 'node' | 'python' = 'node';

function commandSandbox(warm: { idleMs: number; stopOnRunEnd?: boolean } = { idleMs: 60_000 }): CommandSandbox {
  const created = new CommandSandbox({ sandbox: 'auto', warm: { ...warm, helper } });
  sandboxes.push(created);
  return created;
}

function checkout(): { worktreePath: string; workspaceDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'cc-warm-'));
  dirs.push(root);
  const worktreePath = join(root, 'checkout');
  mkdirSync(worktreePath);
  return { worktreePath, workspaceDir: join(root, 'workspace') };
}

async function forConversation(sandbox: CommandSandbox, conversationId: string, paths = checkout()): Promise<RunSandbox> {
  return sandbox.forRun({ ...paths, readOnly: false, sharedObjectsDir: null, reach: [], conversationId });
}

function shell(run: RunSandbox, root: string): NodeWorktree {
  return new NodeWorktree(root, { defaultEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...run.env }, ...(run.spawnHelper ? { spawnHelper: run.spawnHelper } : {}), killGraceMs: 200 });
}

function exec(worktree: NodeWorktree, line: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  return worktree.exec(line, { timeoutMs: options.timeoutMs ?? 20_000, maxOutputBytes: 100_000, signal: options.signal ?? new AbortController().signal });
}

function warm(run: RunSandbox): WarmSandbox {
  expect(run.spawnHelper).toBeInstanceOf(WarmSandbox);
  return run.spawnHelper as WarmSandbox;
}

/** Waits (bounded) until the sandbox's process has exited. */
async function ended(sandbox: WarmSandbox): Promise<void> {
  // Bounded by time rather than tries: on a loaded machine the exit can take seconds to be noticed.
  const by = Date.now() + 30_000;
  while (sandbox.alive && Date.now() < by) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(sandbox.alive).toBe(false);
}

/** Command names of every process in the sandbox's pid namespace, but the sandbox's own two (bwrap init and the helper) and `ps`. */
/** Waits until `count` processes whose arguments contain `name` run in the sandbox of `worktree`. */
async function untilListed(worktree: NodeWorktree, name: string, count = 1): Promise<void> {
  for (let tries = 0; tries < 400; tries += 1) {
    const listed = await exec(worktree, 'ps -e -o args=');
    if (listed.stdout.split('\n').filter((line) => line.includes(name) && !line.startsWith('ps ')).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${count} × ${name} never ran in the sandbox`);
}

async function strayProcesses(worktree: NodeWorktree): Promise<string[]> {
  const listed = await exec(worktree, 'ps -e -o pid=,comm=');
  return listed.stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, name]) => pid !== '1' && pid !== '2' && name !== 'ps' && name !== 'bash')
    .map(([, name]) => name!);
}

// Both helper programs: the Python one (started with posix_spawn, chosen where the machine has Python) and the Node one.
const python = await vforkHelperPython();
for (const program of ['python', 'node'] as const) {
  describe.skipIf(!probe.available || (program === 'python' && !python))(`a warm sandbox per conversation, ${program} helper (SBX-1)`, () => {
    beforeAll(() => {
      helper = program;
    });

    it('runs every command of a conversation in one long-lived bubblewrap, with the per-command confinement', async () => {
      const sandbox = commandSandbox();
      const paths = checkout();
      const run = await forConversation(sandbox, 'conversation-a', paths);
      expect(run.wrapCommand).toBeNull();
      expect(run.description).toMatch(/^bubblewrap: worktree writable/);
      const worktree = shell(run, paths.worktreePath);
      const first = await exec(worktree, 'echo $$; pwd; echo written > inside.txt; ls -A /tmp');
      expect(first.exitCode).toBe(0);
      const [, cwd] = first.stdout.trim().split('\n');
      expect(cwd).toBe(await worktree.realRoot());
      // The workspace directory is hidden, the root filesystem read-only, capabilities dropped.
      const confined = await exec(worktree, `ls -A ${paths.workspaceDir} | wc -l; touch /usr/cc-probe 2>&1 || echo read-only; grep CapEff /proc/self/status`);
      expect(confined.stdout).toContain('read-only');
      expect(confined.stdout).toMatch(/CapEff:\s+0+\n/);
      // The same sandbox for the next command (and the next run of the conversation).
      const helper = warm(run);
      const sandboxPid = helper.pid;
      expect(sandboxPid).toBeDefined();
      const again = await forConversation(sandbox, 'conversation-a', paths);
      expect(again.spawnHelper).toBe(helper);
      expect((await exec(shell(again, paths.worktreePath), 'cat inside.txt')).stdout).toBe('written\n');
      expect(helper.pid).toBe(sandboxPid);
    });

    it('keeps two conversations apart: own /tmp, own processes, own sandbox', async () => {
      const sandbox = commandSandbox();
      const pathsA = checkout();
      const pathsB = checkout();
      const a = await forConversation(sandbox, 'conversation-a', pathsA);
      const b = await forConversation(sandbox, 'conversation-b', pathsB);
      expect(a.spawnHelper).not.toBe(b.spawnHelper);
      const shellA = shell(a, pathsA.worktreePath);
      const shellB = shell(b, pathsB.worktreePath);
      expect((await exec(shellA, 'echo secret-a > /tmp/note; cat /tmp/note')).stdout).toBe('secret-a\n');
      // /tmp persists between the commands of one conversation (documented), never across.
      expect((await exec(shellA, 'cat /tmp/note')).stdout).toBe('secret-a\n');
      expect((await exec(shellB, 'cat /tmp/note 2>&1 || echo missing')).stdout).toContain('missing');
      // A command running in A is invisible from B (separate pid namespaces), and B cannot see A's checkout.
      const ac = new AbortController();
      const sleeping = exec(shellA, 'exec -a cc-warm-marker sleep 30', { signal: ac.signal });
      // Positive control: A itself sees the marker running, so B's not seeing it below is isolation,
      // not a process that had not started yet.
      await untilListed(shellA, 'cc-warm-marker');
      const fromB = await exec(shellB, `ps -e -o args=; ls ${pathsA.worktreePath} 2>&1 || true`);
      expect(fromB.stdout).not.toContain('cc-warm-marker');
      expect(fromB.stdout).not.toContain('secret');
      ac.abort();
      expect((await sleeping).aborted).toBe(true);
    });

    it('kills the whole process group on abort and on timeout, and sweeps what left the group before the next command', async () => {
      const sandbox = commandSandbox();
      const paths = checkout();
      const run = await forConversation(sandbox, 'conversation-a', paths);
      const worktree = shell(run, paths.worktreePath);
      const ac = new AbortController();
      const aborted = exec(worktree, 'sleep 30 & sleep 30 & wait', { signal: ac.signal });
      // Both children are running before the abort, so the empty list after it is their killing.
      await untilListed(worktree, 'sleep', 2);
      ac.abort();
      const result = await aborted;
      expect(result.aborted).toBe(true);
      expect(await strayProcesses(worktree)).toEqual([]);

      const timedOut = await exec(worktree, 'sleep 30 & sleep 30', { timeoutMs: 300 });
      expect(timedOut.timedOut).toBe(true);
      expect(await strayProcesses(worktree)).toEqual([]);

      // setsid leaves the command's group: per command, the sandbox's end took it along; warm, the sweep does.
      const escaped = await exec(worktree, 'setsid sleep 30 > /dev/null 2>&1 < /dev/null & echo started');
      expect(escaped.stdout).toBe('started\n');
      expect(await strayProcesses(worktree)).toEqual([]);
    });

    it('stops after the idle time and starts a new one on the next command', async () => {
      // Idle long enough that the sandbox is still up when the command's answer has been read, even on a
      // loaded machine (200 ms was missed there), and short enough to watch it stop.
      const sandbox = commandSandbox({ idleMs: 2_000 });
      const paths = checkout();
      const run = await forConversation(sandbox, 'conversation-a', paths);
      const helper = warm(run);
      expect((await exec(shell(run, paths.worktreePath), 'echo kept > /tmp/state; echo ok')).stdout).toBe('ok\n');
      expect(helper.alive).toBe(true);
      await ended(helper);
      expect(helper.stopped).toBe(true);
      const next = await forConversation(sandbox, 'conversation-a', paths);
      expect(next.spawnHelper).not.toBe(helper);
      // A fresh sandbox: the previous one's /tmp went with it.
      expect((await exec(shell(next, paths.worktreePath), 'cat /tmp/state 2>&1 || echo gone')).stdout).toContain('gone');
    });

    it('replaces a sandbox that died: the command in flight fails at once, the next one runs', async () => {
      const sandbox = commandSandbox();
      const paths = checkout();
      const run = await forConversation(sandbox, 'conversation-a', paths);
      const helper = warm(run);
      const worktree = shell(run, paths.worktreePath);
      expect((await exec(worktree, 'echo up')).stdout).toBe('up\n');
      const firstPid = helper.pid!;
      const inFlight = exec(worktree, 'sleep 30');
      await untilListed(worktree, 'sleep');
      process.kill(firstPid, 'SIGKILL');
      await expect(inFlight).rejects.toBeInstanceOf(SpawnHelperDiedError);
      const after = await exec(worktree, 'echo again');
      expect(after.stdout).toBe('again\n');
      expect(helper.pid).not.toBe(firstPid);
    });

    it('gives a run its own sandbox, stopped when the run ends, when configured to stop on run end', async () => {
      const sandbox = commandSandbox({ idleMs: 60_000, stopOnRunEnd: true });
      const paths = checkout();
      const first = await forConversation(sandbox, 'conversation-a', paths);
      const second = await forConversation(sandbox, 'conversation-a', paths);
      expect(first.spawnHelper).not.toBe(second.spawnHelper);
      expect((await exec(shell(first, paths.worktreePath), 'echo one')).stdout).toBe('one\n');
      first.release();
      expect(warm(first).stopped).toBe(true);
      await ended(warm(first));
      expect((await exec(shell(second, paths.worktreePath), 'echo two')).stdout).toBe('two\n');
    });

    it('gives a different mount set its own sandbox, and none without a conversation', async () => {
      const sandbox = commandSandbox();
      const paths = checkout();
      const writable = await forConversation(sandbox, 'conversation-a', paths);
      const readOnly = await sandbox.forRun({ ...paths, readOnly: true, sharedObjectsDir: null, reach: [], conversationId: 'conversation-a' });
      expect(readOnly.spawnHelper).not.toBe(writable.spawnHelper);
      expect((await exec(shell(readOnly, paths.worktreePath), 'touch x 2>&1 || echo refused')).stdout).toContain('refused');
      const alone = await sandbox.forRun({ ...paths, readOnly: false, sharedObjectsDir: null, reach: [] });
      expect(alone.spawnHelper).toBeUndefined();
      expect(alone.wrapCommand).not.toBeNull();
    });

    it('stops every warm sandbox with the server', async () => {
      const sandbox = commandSandbox();
      const paths = checkout();
      const run = await forConversation(sandbox, 'conversation-a', paths);
      expect((await exec(shell(run, paths.worktreePath), 'echo up')).stdout).toBe('up\n');
      await sandbox.close();
      expect(warm(run).stopped).toBe(true);
      await ended(warm(run));
    });
  });
}
