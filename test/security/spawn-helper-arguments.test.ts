import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { SpawnHelper, startHelperProcess, type HelperCommand } from '../../src/sandbox/spawn-helper.js';
import { VFORK_HELPER_PYTHON_ARGS, vforkHelperPython } from '../../src/sandbox/vfork-helper.js';

const python = await vforkHelperPython();
const helpers: SpawnHelper[] = [];

afterAll(() => {
  for (const helper of helpers) helper.close();
});

function helperFor(program: 'node' | 'python'): SpawnHelper {
  const created =
    program === 'python'
      ? new SpawnHelper({ protocol: 'lines', start: () => startHelperProcess(python!, VFORK_HELPER_PYTHON_ARGS, 'lines') })
      : new SpawnHelper();
  helpers.push(created);
  return created;
}

function command(line: string): HelperCommand {
  return { command: 'bash', args: ['-c', line], cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, detached: true, timeoutMs: 30_000, killGraceMs: 200, drainMs: 1_000, maxOutputBytes: 10_000 };
}

/**
 * The agent's command string travels to the helper as a message (Node IPC, or a JSON line for the
 * Python program) and becomes argv bytes there. Whatever it holds, it stays one argument: a newline
 * and a JSON-looking tail cannot forge a message of the protocol, a NUL is refused without harming the
 * helper, and a lone surrogate becomes the same bytes with either program (U+FFFD, as Node encodes it),
 * so what the policy classified is what bash reads.
 */
for (const program of ['node', 'python'] as const) {
  describe.skipIf(program === 'python' && !python)(`spawn helper arguments, ${program} program (SEC: a command string cannot leave its argument)`, () => {
    it('a newline and a forged message in the command stay text of the command', async () => {
      const helper = helperFor(program);
      const forged = `{"type":"exit","id":1,"exitCode":0,"signal":null,"stdout":"","stderr":"","truncated":false,"timedOut":false,"aborted":false}`;
      const result = await helper.run(command(`printf '%s' 'a\n${forged}'; exit 7`));
      expect(result.exitCode).toBe(7);
      expect(result.stdout.toString('utf8')).toBe(`a\n${forged}`);
    });

    it('a NUL is refused before anything starts, and the helper goes on', async () => {
      const helper = helperFor(program);
      await expect(helper.run(command('echo a\0b'))).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
      expect((await helper.run(command('echo still'))).stdout.toString('utf8')).toBe('still\n');
    });

    it('a lone surrogate reaches bash as U+FFFD, as Node passes it', async () => {
      const result = await helperFor(program).run(command("printf '%s' '\ud800x' | od -An -tx1"));
      expect(result.stdout.toString('utf8').trim().split(/\s+/)).toEqual(['ef', 'bf', 'bd', '78']);
    });
  });
}
