import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BubblewrapSandbox, probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { CommandSandbox, type RunSandbox } from '../../src/sandbox/command-sandbox.js';
import { cgroupSupport } from '../../src/sandbox/process-cgroup.js';
import { DEFAULT_PROCESS_LIMITS, type ProcessLimits } from '../../src/sandbox/process-limits.js';
import { sharedSpawnHelper } from '../../src/sandbox/spawn-helper.js';
import { NodeWorktree } from '../../src/worktree/node-worktree.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { makeReviewRepo } from '../support/review-repo.js';
import { reply } from '../support/scripted-reply.js';
import { pollUntil } from '../support/wait-for.js';

/**
 * SEC-11: every process an agent causes runs with limits, and a fork or memory bomb ends that
 * command with a clear error and nothing else. The bombs are real (`:(){ :|:& };:`, a Python loop
 * that allocates), in the real bubblewrap sandbox, through the real server's `bash` tool; the limits
 * are made small so that each bomb is contained in well under a second. The server runs as root
 * here, where RLIMIT_NPROC binds nothing: the process count is the cgroup's.
 */
const probe = await probeBubblewrap();
const support = await cgroupSupport();
/** The host's Python (a version manager's shim on PATH would read the hidden home). */
const PYTHON = '/usr/bin/python3';

const LIMITS: Partial<ProcessLimits> = { maxProcesses: 64, memoryBytes: 128 * 1024 ** 2, addressSpaceBytes: 1024 ** 3, fileSizeBytes: 1024 ** 2, openFiles: 256 };

let fixture: HarnessFixture | null = null;
const dirs: string[] = [];
const sandboxes: CommandSandbox[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const sandbox of sandboxes.splice(0)) await sandbox.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Host processes whose command line carries `marker` (every process a bomb forks keeps its shell's argv). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      // It ended between the listing and the read.
    }
  }
  return found;
}

/** This test process's launch cgroups (the harness server runs in it): none may outlive its launch. */
function launchCgroupsOf(pid: number): string[] {
  if (support.kind === 'none') return [];
  const parent = support.kind === 'v1' ? support.pids : support.parent;
  return readdirSync(parent).filter((name) => name.startsWith(`cc-launch-${pid}-`)).map((name) => join(parent, name));
}

const bombMarker = () => `cc_bomb_${process.pid}_${Math.random().toString(36).slice(2)}`;

describe.skipIf(!probe.available || support.kind === 'none')('process limits of the built-in bash (SEC-11)', () => {
  it('a fork bomb through the real server ends that command with "process limit reached"; /healthz and another conversation’s run answer throughout', async () => {
    fixture = await startHarnessFixture({ space: { autonomy: 'actFreely' }, server: { processLimits: LIMITS } });
    const marker = bombMarker();
    fixture.model.scriptFor('run the bomb', reply().tool('bash', { command: `${marker}=1; :(){ :|:& };:; sleep 30`, timeoutSeconds: 60 }), reply().tool('bash', { command: 'echo after-the-bomb' }), reply().text('done'));
    fixture.model.scriptFor('neighbour work', reply().tool('bash', { command: 'for i in 1 2 3 4 5; do sleep 0.1; done; echo neighbour-ok' }), reply().text('done'));
    const neighbour = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title: 'Neighbour' });
    expect(neighbour.status).toBe(201);

    const health = { ok: 0, failed: 0 };
    let bombing = true;
    const healthLoop = (async () => {
      while (bombing) {
        const response = await fetch(`${fixture!.server.url}/healthz`).catch(() => null);
        if (response?.status === 200) health.ok += 1;
        else health.failed += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const startedAt = Date.now();
    const bombRun = await fixture.send('run the bomb');
    const neighbourPost = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${neighbour.body.id}/messages`, { text: 'neighbour work' });
    expect(neighbourPost.status).toBe(202);
    const [bombDetail, neighbourDetail] = await Promise.all([fixture.waitForRun(bombRun, 60_000), fixture.waitForRun(neighbourPost.body.run.id, 60_000)]);
    bombing = false;
    await healthLoop;

    const [bomb, after] = bombDetail.toolCalls;
    expect(bomb.isError).toBe(true);
    expect(bomb.output).toContain('process limit reached: the command tried to run more than 64 processes at once');
    expect(bomb.output).not.toContain('Timed out');
    // Nothing of the bomb is left on the host once its result is in.
    expect(processesWith(marker)).toEqual([]);
    // The same conversation goes on: its next command runs (in a fresh warm sandbox).
    expect(after.output).toContain('after-the-bomb');
    expect(after.isError).toBe(false);
    expect(neighbourDetail.toolCalls[0].output).toContain('neighbour-ok');
    expect(neighbourDetail.toolCalls[0].isError).toBe(false);
    expect(health.failed).toBe(0);
    expect(health.ok).toBeGreaterThan(0);
    const containedMs = Date.parse(bomb.endedAt) - Date.parse(bomb.startedAt);
    console.log(`fork bomb: the tool call ended ${containedMs} ms after it started (warm sandbox start included), the run ${Date.now() - startedAt} ms after it was posted; /healthz answered ${health.ok} times, failed ${health.failed}`);
  });

  it('a memory bomb through the real server ends that command with "memory limit reached"; a single oversized allocation fails on the address-space limit', async () => {
    fixture = await startHarnessFixture({ space: { autonomy: 'actFreely' }, server: { processLimits: LIMITS } });
    fixture.model.script(
      reply().tool('bash', { command: `${PYTHON} -c 'x = []\nwhile True: x.append(bytearray(8 << 20))'; sleep 20; echo still-here`, timeoutSeconds: 60 }),
      reply().tool('bash', { command: `${PYTHON} -c 'bytearray(3 << 30)'` }),
      reply().tool('bash', { command: 'head -c 300M /dev/zero > big.bin; ls -l big.bin; ulimit -n' }),
      reply().text('done'),
    );
    const detail = await fixture.waitForRun(await fixture.send('eat memory'), 60_000);
    const [loop, single, files] = detail.toolCalls;
    const outputs = JSON.stringify(detail.toolCalls.map((call: { output: string }) => call.output));
    expect(loop.isError, outputs).toBe(true);
    expect(loop.output, outputs).toContain("memory limit reached: the command's processes used more than 128 MiB together");
    expect(loop.output).not.toContain('still-here');
    // 3 GiB in one piece is more than the 1 GiB of address space a process may have.
    expect(single.isError, outputs).toBe(true);
    expect(single.output, outputs).toContain('MemoryError');
    // 1 MiB files at most, 256 descriptors.
    expect(files.output, outputs).toMatch(/File size limit exceeded|File too large/);
    expect(files.output).toMatch(/ 1048576 .*big\.bin/);
    expect(files.output).toMatch(/\n256\n/);
  });

  it('400 background processes do not start: the count stops at the limit, and no launch cgroup outlives its command (a sandbox per command)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cc-limits-'));
    dirs.push(root);
    const worktreePath = join(root, 'workspace', 'worktrees', 'cv_limits');
    mkdirSync(worktreePath, { recursive: true });
    execFileSync('git', ['init', '--quiet', worktreePath]);
    const sandbox = new CommandSandbox({ sandbox: 'auto', warm: false, limits: LIMITS });
    sandboxes.push(sandbox);
    const run: RunSandbox = await sandbox.forRun({ worktreePath, readOnly: false, sharedObjectsDir: null, workspaceDir: join(root, 'workspace'), reach: [] });
    expect(run.spawnHelper).toBeUndefined();
    const worktree = new NodeWorktree(worktreePath, { defaultEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...run.env }, wrapCommand: run.wrapCommand! });
    const marker = bombMarker();
    const result = await worktree.exec(`${marker}=1; for i in $(seq 400); do sleep 20 & done; wait`, { timeoutMs: 30_000, maxOutputBytes: 20_000, signal: new AbortController().signal });
    expect(result.limitReached).toContain('process limit reached');
    expect(result.timedOut).toBe(false);
    expect(processesWith(marker)).toEqual([]);
    // Removed with the launch, or moments later (a process still exiting keeps a cgroup busy).
    expect(await pollUntil(async () => launchCgroupsOf(process.pid), (left) => left.length === 0, 5_000)).toEqual([]);
    // The CPU time of a command in its own sandbox is bounded too.
    const cpu = await worktree.exec('ulimit -t; ulimit -Ht', { timeoutMs: 10_000, maxOutputBytes: 1_000, signal: new AbortController().signal });
    expect(cpu.stdout).toBe('600\n600\n');
    expect(existsSync(join(worktreePath, '.git'))).toBe(true);
  });

  it('a review gate and a pipeline script that fork-bomb are stopped with "process limit reached"; nothing of them is left', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false, server: { processLimits: LIMITS } });
    const f = fixture;
    const api = (method: string, path: string, body?: unknown) => f.server.api(method, `/api/workspaces/${f.workspaceId}${path}`, body);
    const gateMarker = bombMarker();
    const { repo } = await makeReviewRepo();
    dirs.push(repo);
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    expect(opened.status).toBe(201);
    expect((await api('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'bomb', command: `${gateMarker}=1; bomb() { bomb | bomb & }; bomb; sleep 30` }] })).status).toBe(200);
    const gates = await api('POST', `/reviews/${opened.body.review.id}/gates/run`);
    expect(gates.status).toBe(200);
    const [gate] = gates.body.results as Array<{ status: string; output: string }>;
    // Killed before it finished: the gate did not pass, and its output says why.
    expect(gate!.status).not.toBe('pass');
    expect(gate!.output).toContain('process limit reached: the command tried to run more than 64 processes at once');
    expect(processesWith(gateMarker)).toEqual([]);

    const scriptMarker = bombMarker();
    const created = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: scriptMarker }, decision: 'allow' });
    expect(created.status).toBe(201);
    const pipeline = await api('POST', '/pipelines', { name: 'bomb', nodes: [{ key: 'bomb', type: 'bashScript', script: `${scriptMarker}=1; :(){ :|:& };:; sleep 30` }] });
    expect(pipeline.status).toBe(201);
    const started = await api('POST', `/pipelines/${pipeline.body.pipeline.id}/runs`, {});
    let run = (await api('GET', `/pipeline-runs/${started.body.id}`)).body;
    for (let attempt = 0; attempt < 600 && run.status === 'running'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = (await api('GET', `/pipeline-runs/${started.body.id}`)).body;
    }
    const node = run.nodes.find((entry: { key: string }) => entry.key === 'bomb');
    expect(node.state).toBe('failed');
    expect(node.error).toContain('process limit reached');
    expect(processesWith(scriptMarker)).toEqual([]);
  });

  it('an external runner’s launch (the one every runner transport prepares) runs in a cgroup of its own with the default limits, removed when the launch is disposed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cc-runner-limits-'));
    dirs.push(root);
    const launch = await new BubblewrapSandbox().prepare({
      command: 'sh',
      args: ['-c', 'grep -E "^[0-9]+:pids:" /proc/self/cgroup; ulimit -v; ulimit -n; ulimit -t'],
      cwd: root,
      writable: [root],
      readOnly: [],
      hidden: [],
      privateTmp: ['/tmp'],
      network: { kind: 'loopback', ports: [] },
    });
    try {
      expect(launch.cgroup).toBeTruthy();
      const result = await sharedSpawnHelper().run({ command: launch.command, args: launch.args, cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, detached: true, timeoutMs: 20_000, killGraceMs: 0, drainMs: 1_000, maxOutputBytes: 10_000 });
      const [cgroupLine, addressSpace, openFiles, cpu] = result.stdout.toString('utf8').trim().split('\n');
      // The sandbox has a cgroup namespace of its own: it sees its cgroup as the root, the host sees it under the launch's name.
      expect(cgroupLine).toMatch(/^\d+:pids:\/$/);
      expect(Number(addressSpace) * 1024).toBe(DEFAULT_PROCESS_LIMITS.addressSpaceBytes);
      expect(Number(openFiles)).toBe(DEFAULT_PROCESS_LIMITS.openFiles);
      // A runner lives for a whole session: its CPU time is not limited, its commands' timeouts bound them.
      expect(cpu).toBe('unlimited');
      expect(launchCgroupsOf(process.pid).length).toBeGreaterThan(0);
      expect(readFileSync(join(launchCgroupsOf(process.pid)[0]!, 'pids.max'), 'utf8').trim()).toBe(String(DEFAULT_PROCESS_LIMITS.maxProcesses));
    } finally {
      await launch.dispose();
    }
    // Removed with the launch, or moments later (a process still exiting keeps a cgroup busy).
    expect(await pollUntil(async () => launchCgroupsOf(process.pid), (left) => left.length === 0, 5_000)).toEqual([]);
  });
});
