import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SPAWN_HELPER_NODE_ARGS, SpawnHelper, startHelperProcess, type HelperCommand } from '../../src/sandbox/spawn-helper.js';
import { VFORK_HELPER_PYTHON_ARGS, vforkHelperPython } from '../../src/sandbox/vfork-helper.js';

const python = await vforkHelperPython();
const helpers: SpawnHelper[] = [];

afterAll(() => {
  for (const helper of helpers) helper.close();
});

function command(line: string): HelperCommand {
  return { command: 'bash', args: ['-c', line], cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, detached: true, timeoutMs: 30_000, killGraceMs: 200, drainMs: 1_000, maxOutputBytes: 10_000 };
}

/**
 * A command's descriptors (the Python spawn helper). The helper's stdin and stdout are its
 * channel to the server, and it holds the pipes of every other command it runs: a command that
 * inherited one could forge another command's result (a clean `exit` for a command the policy is
 * watching) or read another conversation's output. A command gets /dev/null, its own two pipes, and
 * nothing else, even while other commands run, and not what the server itself inherited either (the
 * test runner leaves a descriptor open without close-on-exec; the Node program passes such a one on).
 */
describe.skipIf(!python)('spawn helper descriptors (SEC: a command cannot reach the helper’s channel or another command’s pipes)', () => {
  it('a command started while another runs holds only 0 (/dev/null), 1 and 2 (its own pipes), and the helper’s environment is PATH only', async () => {
    const helper = new SpawnHelper({
      protocol: 'lines',
      start: () => startHelperProcess(python!, VFORK_HELPER_PYTHON_ARGS, 'lines'),
    });
    helpers.push(helper);
    const other = helper.run(command('sleep 2; echo other'));
    // `find` lists the descriptors of the command's bash ($$), which holds what it inherited and nothing
    // else. It is not in a pipeline, where bash would still hold the next stage's pipe while it runs, nor
    // the whole command, which bash would exec in its own place (the builtin `:` after it prevents that).
    const result = await helper.run(command('find /proc/$$/fd -mindepth 1 -printf "%f %l\\n"; :'));
    const descriptors = result.stdout.toString('utf8').trim().split('\n').sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
    expect(descriptors.map((line) => line.split(' ')[0])).toEqual(['0', '1', '2']);
    expect(descriptors[0]).toBe('0 /dev/null');
    // Its stdout and stderr are pipes of its own, not the helper's stdout (the channel to the server).
    const helperStdout = readlinkSync(`/proc/${helper.pid}/fd/1`);
    expect(descriptors.slice(1).map((line) => line.split(' ')[1])).not.toContain(helperStdout);
    expect((await other).stdout.toString('utf8')).toBe('other\n');
    const helperEnv = readFileSync(`/proc/${helper.pid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(helperEnv.map((entry) => entry.split('=')[0])).toEqual(['PATH']);
  });
});

/**
 * SEC-11: the Node program (the server's shared helper, which starts review gates, pipeline scripts
 * and the server's git) passes nothing it inherited either. It is started here with a descriptor
 * left open without close-on-exec at 9 and at 42, as a server started by a careless parent would
 * hand it on; a command must not find them.
 */
describe.skipIf(process.platform !== 'linux')('Node spawn helper descriptors (SEC-11)', () => {
  it('a command of the Node helper holds 0, 1 and 2 only, not what the helper inherited', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-helper-fds-'));
    const secret = join(dir, 'secret');
    writeFileSync(secret, 'inherited-secret');
    const fd = openSync(secret, 'r');
    const stdio: Array<'ignore' | 'inherit' | 'ipc' | number> = ['ignore', 'ignore', 'inherit', 'ipc'];
    while (stdio.length < 42) stdio.push(stdio.length === 9 ? fd : 'ignore');
    stdio.push(fd);
    const helper = new SpawnHelper({ start: () => spawn(process.execPath, SPAWN_HELPER_NODE_ARGS, { stdio, serialization: 'advanced', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }) });
    helpers.push(helper);
    try {
      // One `find`, not a pipeline: while a pipeline runs, bash itself holds the pipe to its next stage,
      // and how many such pipes it holds at that moment depends on scheduling. `; :` keeps bash from
      // exec'ing `find` in its own place, which would list find's descriptors instead of bash's.
      const result = await helper.run(command('find /proc/$$/fd -mindepth 1 -printf "%f "; cat /proc/self/fd/9 /proc/self/fd/42 2>/dev/null; :'));
      const output = result.stdout.toString('utf8');
      expect(output).not.toContain('inherited-secret');
      expect(output.trim().split(' ').map(Number).sort((a, b) => a - b)).toEqual([0, 1, 2]);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
