import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SPAWN_HELPER_NODE_ARGS, SpawnHelper, SpawnHelperDiedError, startHelperProcess, type HelperCommand, type SpawnHelperOptions } from '../../src/sandbox/spawn-helper.js';
import { VFORK_HELPER_PYTHON_ARGS, vforkHelperPython } from '../../src/sandbox/vfork-helper.js';

const helpers: SpawnHelper[] = [];
const dirs: string[] = [];

const python = await vforkHelperPython();
/** The helper program of the suite running now (each suite below runs with one). */
let program: 'node' | 'python' = 'node';

/**
 * How to start the program on the host; `observe` sees the type of every message it sends. The Node
 * program talks over Node's IPC channel, the Python one in JSON lines on its stdout.
 */
function programOptions(observe?: (type: string) => void): SpawnHelperOptions {
  if (program === 'python') {
    return {
      protocol: 'lines',
      start: () => {
        const child = startHelperProcess(python!, VFORK_HELPER_PYTHON_ARGS, 'lines');
        if (observe) child.stdout!.on('data', (chunk: Buffer) => chunk.toString('utf8').split('\n').filter(Boolean).forEach((line) => observe((JSON.parse(line) as { type: string }).type)));
        return child;
      },
    };
  }
  if (!observe) return {};
  return {
    start: () => {
      const child = startHelperProcess(process.execPath, SPAWN_HELPER_NODE_ARGS, 'ipc');
      child.on('message', (message: { type: string }) => observe(message.type));
      return child;
    },
  };
}

function helper(options: SpawnHelperOptions = programOptions()): SpawnHelper {
  const created = new SpawnHelper(options);
  helpers.push(created);
  return created;
}

function command(line: string, overrides: Partial<HelperCommand> = {}): HelperCommand {
  return {
    command: 'bash',
    args: ['-c', line],
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    detached: true,
    timeoutMs: 60_000,
    killGraceMs: 2_000,
    drainMs: 1_000,
    maxOutputBytes: 1_000,
    ...overrides,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 600; tries += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The pid a command wrote into `marker` (`echo $$ > marker`), or 0 before it has. */
function pidIn(marker: string): number {
  try {
    return Number(readFileSync(marker, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

afterEach(() => {
  for (const created of helpers.splice(0)) created.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Both helper programs, on the host: the Node one (forks) and the Python one (posix_spawn, warm sandboxes where Python exists).
for (const each of ['node', 'python'] as const) {
  describe.skipIf(each === 'python' && !python)(`SpawnHelper, ${each} program`, () => {
    beforeAll(() => {
      program = each;
    });

    it('gives a command default signal actions, an empty signal mask and no descriptor but 0, 1 and 2; stdin is /dev/null', async () => {
      // $$ is the bash of the command: what it inherited is what the helper gave it.
      // No pipeline before the checks: while bash forks it blocks SIGCHLD, SIGINT and SIGTERM for a moment,
      // and between a pipeline's forks it holds the pipe, so a quick child could read either. The status is
      // read by bash's own `read`, the descriptors by one `find`.
      const result = await helper().run(command('while IFS= read -r line; do case $line in SigBlk*|SigIgn*) echo "$line";; esac; done < /proc/$$/status; find /proc/$$/fd -mindepth 1 -printf "%f -> %l\\n"; yes | head -c 1 >/dev/null; echo "yes: ${PIPESTATUS[0]}"; ps -o pgid=,sid= -p $$'));
      const lines = result.stdout.toString('utf8').trim().split('\n');
      // bash ignores SIGQUIT (bit 2) itself; glibc's posix_spawn leaves its internal signals 32 and 33
      // ignored (bits 31, 32), which only glibc uses.
      expect(lines[0]).toBe('SigBlk:\t0000000000000000');
      expect(lines[1]).toMatch(each === 'python' ? /^SigIgn:\t0000000180000004$/ : /^SigIgn:\t0000000000000004$/);
      expect(lines.filter((line) => / -> /.test(line)).map((line) => line.split(' -> ')[0]).filter((fd) => each === 'python' || Number(fd) < 250).sort((a, b) => Number(a) - Number(b))).toEqual(['0', '1', '2']);
      expect(lines.find((line) => line.startsWith('0 -> '))).toBe('0 -> /dev/null');
      // (The Node program passes on what the server inherited without close-on-exec, such as the test
      // runner's descriptor 251; the Python one does not.) SIGPIPE is back to its default: `yes` ends by it (128 + 13), not with a write error.
      expect(lines).toContain('yes: 141');
      // detached: a session and process group of its own, led by the command.
      const [pgid, sid] = lines.at(-1)!.trim().split(/\s+/).map(Number);
      expect(pgid).toBe(sid);
      expect(result.stderr.toString('utf8')).toBe('');
    });

    it('refuses a NUL byte in an argument without starting anything, and keeps working', async () => {
      const spawner = helper();
      await expect(spawner.run(command('echo a\0b'))).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
      expect((await spawner.run(command('echo still'))).stdout.toString('utf8')).toBe('still\n');
    });

    it('keepTail keeps the newest bytes of each stream, across chunk boundaries; the head is kept otherwise', async () => {
      const runner = helper();
      // Many writes, so the cut falls inside a chunk as well as between chunks.
      const line = 'for i in $(seq 1 400); do printf "%05d " $i; printf "%05d " $i >&2; done';
      const tail = await runner.run(command(line, { maxOutputBytes: 60, keepTail: true }));
      const expected = Array.from({ length: 10 }, (_, index) => `${String(391 + index).padStart(5, '0')} `).join('');
      expect(tail.stdout.toString()).toBe(expected);
      expect(tail.stderr.toString()).toBe(expected);
      expect(tail.truncated).toBe(true);
      const head = await runner.run(command(line, { maxOutputBytes: 60 }));
      expect(head.stdout.toString()).toBe(Array.from({ length: 10 }, (_, index) => `${String(1 + index).padStart(5, '0')} `).join(''));
      const fits = await runner.run(command('printf short', { maxOutputBytes: 60, keepTail: true }));
      expect([fits.stdout.toString(), fits.truncated]).toEqual(['short', false]);
    });

    it('runs a command in its cwd with exactly the environment given, and reports exit code, signal and capped output', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'cc-spawn-helper-'));
      dirs.push(cwd);
      const spawner = helper();
      const result = await spawner.run(command('pwd; env | sort; head -c 5000 /dev/zero | tr "\\0" x; echo oops >&2; exit 3', { cwd, env: { PATH: process.env.PATH ?? '', ONLY: 'this' } }));
      const lines = result.stdout.toString('utf8').split('\n');
      expect(lines[0]).toBe(cwd);
      // bash adds PWD, SHLVL and _ itself; nothing of the server's or the helper's own environment.
      const names = lines.slice(1).filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split('=')[0]);
      expect(names.filter((name) => !['PWD', 'SHLVL', '_'].includes(name!))).toEqual(['ONLY', 'PATH']);
      expect(result.stdout.length).toBe(1_000);
      expect(result.truncated).toBe(true);
      expect(result.stderr.toString('utf8')).toBe('oops\n');
      expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false });
    });

    it('keeps binary output byte for byte when uncapped', async () => {
      const result = await helper().run(command('printf "\\x00\\xff\\x80"', { maxOutputBytes: null, detached: false, drainMs: null, killGraceMs: 0 }));
      expect([...result.stdout]).toEqual([0, 0xff, 0x80]);
      expect(result.truncated).toBe(false);
    });

    it('fails a command that cannot start with the spawn error', async () => {
      await expect(helper().run(command('true', { command: '/nonexistent/program' }))).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('stops the whole process group on timeout and on abort', async () => {
      const spawner = helper();
      const timedOut = await spawner.run(command('sleep 30 & sleep 30; wait', { timeoutMs: 300 }));
      expect(timedOut).toMatchObject({ timedOut: true, aborted: false, exitCode: null, signal: 'SIGTERM' });
      const controller = new AbortController();
      const running = spawner.run(command('trap "" TERM; sleep 30', { signal: controller.signal, killGraceMs: 200 }));
      setTimeout(() => controller.abort(), 200);
      expect(await running).toMatchObject({ aborted: true, signal: 'SIGKILL' });
    });

    it('when the helper is killed mid-command, the call fails cleanly, the command is killed, and the next call gets a new helper', async () => {
      const spawner = helper();
      await spawner.run(command('true'));
      const firstHelper = spawner.pid!;
      const marker = join(tmpdir(), `cc-spawn-helper-pid-${process.pid}-${Date.now()}`);
      dirs.push(marker);
      const running = spawner.run(command(`echo $$ > ${marker}; sleep 30 & sleep 30; wait`));
      await until(() => pidIn(marker) > 0, 'the command to start');
      const commandPid = pidIn(marker);
      process.kill(firstHelper, 'SIGKILL');
      await expect(running).rejects.toBeInstanceOf(SpawnHelperDiedError);
      await expect(running).rejects.toThrow(/was killed by SIGKILL/);
      // The command's whole group is gone: the server killed it by the pid the helper reported.
      await until(() => !alive(commandPid), 'the orphaned command to be killed');
      const next = await spawner.run(command('echo again'));
      expect(next.stdout.toString('utf8')).toBe('again\n');
      expect(spawner.pid).not.toBe(firstHelper);
    });

    it('asks for each command pid only where the server may have to kill it: not inside a pid namespace', async () => {
      const messageTypes = async (namespacedPids: boolean): Promise<string[]> => {
        const types: string[] = [];
        const spawner = helper({ ...programOptions((type) => types.push(type)), namespacedPids });
        const result = await spawner.run(command('echo hi'));
        expect(result.stdout.toString('utf8')).toBe('hi\n');
        return types;
      };
      // On the host the pid is how the server kills a command whose helper died (the test above).
      expect(await messageTypes(false)).toEqual(['started', 'exit']);
      // In a warm sandbox the namespace ends with the helper: the result alone, one wake-up fewer.
      expect(await messageTypes(true)).toEqual(['exit']);
    });

    it('when the server dies, the helper kills what it runs and exits', async () => {
      const marker = join(tmpdir(), `cc-spawn-helper-server-${process.pid}-${Date.now()}`);
      dirs.push(marker);
      const module = fileURLToPath(new URL('../../src/sandbox/spawn-helper.ts', import.meta.url));
      const pythonModule = fileURLToPath(new URL('../../src/sandbox/vfork-helper.ts', import.meta.url));
      // A stand-in server process: it starts one long command through its helper, prints the helper's pid, and waits.
      const script = [
        `const { SpawnHelper, startHelperProcess } = await import(${JSON.stringify(module)});`,
        `const { VFORK_HELPER_PYTHON_ARGS } = await import(${JSON.stringify(pythonModule)});`,
        program === 'python'
          ? `const spawner = new SpawnHelper({ protocol: 'lines', start: () => startHelperProcess(${JSON.stringify(python)}, VFORK_HELPER_PYTHON_ARGS, 'lines') });`
          : 'const spawner = new SpawnHelper();',
        `void spawner.run({ command: 'bash', args: ['-c', 'echo $$ > ${marker}; sleep 30'], cwd: '/', env: { PATH: process.env.PATH }, detached: true, timeoutMs: 60000, killGraceMs: 2000, drainMs: 1000, maxOutputBytes: 100 });`,
        'setInterval(() => { if (spawner.pid) console.log(spawner.pid); }, 100);',
      ].join('\n');
      const server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let helperPid = 0;
      server.stdout.on('data', (chunk: Buffer) => (helperPid ||= Number(chunk.toString('utf8').split('\n')[0])));
      await until(() => pidIn(marker) > 0 && helperPid > 0, 'the command to start');
      const commandPid = pidIn(marker);
      server.kill('SIGKILL');
      await until(() => !alive(helperPid) && !alive(commandPid), 'the helper and its command to end');
    });
  });
}

describe('SpawnHelper, JSON-lines protocol', () => {
  it('a helper that writes anything but its protocol is stopped, and its command fails instead of the server', async () => {
    const spawner = helper({ protocol: 'lines', start: () => startHelperProcess('bash', ['-c', 'read -r line; echo "not a message"; sleep 30'], 'lines') });
    await expect(spawner.run(command('true'))).rejects.toBeInstanceOf(SpawnHelperDiedError);
  });
});
