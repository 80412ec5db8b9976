import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeWorktree } from '../../src/worktree/node-worktree.js';
import { PathEscapeError } from '../../src/worktree/path-escape-error.js';
import { readTool } from '../../src/tools/read-tool.js';
import { writeTool } from '../../src/tools/write-tool.js';
import { eventually, isAlive, makeContext, makeTempDir } from '../support/tool-test-support.js';

let base: { path: string; cleanup: () => Promise<void> };
let root: string;
let outside: string;
let worktree: NodeWorktree;

beforeEach(async () => {
  base = await makeTempDir();
  root = join(base.path, 'worktree');
  outside = join(base.path, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(root, 'a.txt'), 'inside\n');
  await writeFile(join(root, 'sub', 'b.txt'), 'nested\n');
  await writeFile(join(outside, 'secret.txt'), 'secret\n');
  worktree = new NodeWorktree(root);
});

afterEach(async () => {
  await base.cleanup();
});

async function refusal(promise: Promise<unknown>): Promise<PathEscapeError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PathEscapeError);
  return error as PathEscapeError;
}

async function missing(path: string): Promise<boolean> {
  return stat(path).then(
    () => false,
    () => true,
  );
}

/**
 * The same path rules hold for the descriptor-pinned resolution (SEC-4, the default on Linux) and for
 * the checked-path fallback used where `/proc/self/fd` is missing.
 */
const FILE_ACCESS_MODES = ['confined', 'checkedPaths'] as const;
let fileAccess: (typeof FILE_ACCESS_MODES)[number] = 'confined';

/** Each case below runs once per mode (both runs share the title, which the honesty matrix cites). */
function use(mode: (typeof FILE_ACCESS_MODES)[number]): void {
  fileAccess = mode;
  worktree = new NodeWorktree(root, { fileAccess });
}

describe('NodeWorktree path rules (HAR-7)', () => {
  it.each(FILE_ACCESS_MODES)('resolves relative paths, `..` that stays inside, and absolute paths inside the root', async (mode) => {
    use(mode);
    expect(await worktree.resolve('a.txt')).toBe(join(root, 'a.txt'));
    expect(await worktree.resolve('sub/../a.txt')).toBe(join(root, 'a.txt'));
    expect(await worktree.resolve('.')).toBe(root);
    expect(await worktree.resolve(join(root, 'sub', 'b.txt'))).toBe(join(root, 'sub', 'b.txt'));
    expect(await worktree.readFile(join(root, 'a.txt'))).toBe('inside\n');
    expect(await worktree.resolve('new/deeper/file.txt')).toBe(join(root, 'new', 'deeper', 'file.txt'));
  });

  it.each(FILE_ACCESS_MODES)('refuses `..` that climbs out', async (mode) => {
    use(mode);
    const error = await refusal(worktree.resolve('../outside/secret.txt'));
    expect(error.code).toBe('path_escape');
    expect(error.reason).toBe('parentTraversal');
    expect((await refusal(worktree.resolve('sub/../../outside/secret.txt'))).reason).toBe('parentTraversal');
    await refusal(worktree.readFile('..'));
  });

  it.each(FILE_ACCESS_MODES)('refuses absolute paths outside the root', async (mode) => {
    use(mode);
    const error = await refusal(worktree.readFile(join(outside, 'secret.txt')));
    expect(error.reason).toBe('absoluteOutside');
    await refusal(worktree.readFile('/etc/passwd'));
    // A sibling whose name merely starts with the root's name is still outside.
    await mkdir(`${root}-sibling`);
    await refusal(worktree.resolve(`${root}-sibling/x`));
  });

  it.each(FILE_ACCESS_MODES)('refuses reading through a symlinked file that points outside', async (mode) => {
    use(mode);
    await symlink(join(outside, 'secret.txt'), join(root, 'leak.txt'));
    expect((await refusal(worktree.readFile('leak.txt'))).reason).toBe('symlinkOutside');
  });

  it.each(FILE_ACCESS_MODES)('refuses a symlinked directory that points outside, for reads, lists and writes of new files', async (mode) => {
    use(mode);
    await symlink(outside, join(root, 'out'));
    await refusal(worktree.readFile('out/secret.txt'));
    await refusal(worktree.list('out'));
    expect((await refusal(worktree.writeFile('out/new.txt', 'x'))).reason).toBe('symlinkOutside');
    await refusal(worktree.writeFile('out/deeper/new.txt', 'x'));
    expect(await missing(join(outside, 'new.txt'))).toBe(true);
    expect(await missing(join(outside, 'deeper'))).toBe(true);
  });

  it.each(FILE_ACCESS_MODES)('refuses writing through a dangling symlink whose target would be created outside', async (mode) => {
    use(mode);
    await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling.txt'));
    expect((await refusal(worktree.writeFile('dangling.txt', 'x'))).reason).toBe('symlinkOutside');
    expect(await missing(join(outside, 'not-yet.txt'))).toBe(true);
    // A dangling link in the middle of the path, through a relative target.
    await symlink('../outside/later', join(root, 'later'));
    await refusal(worktree.writeFile('later/file.txt', 'x'));
    expect(await missing(join(outside, 'later'))).toBe(true);
  });

  it.each(FILE_ACCESS_MODES)('allows symlinks that stay inside the root', async (mode) => {
    use(mode);
    await symlink(join(root, 'sub'), join(root, 'alias'));
    await symlink('a.txt', join(root, 'a-link.txt'));
    expect(await worktree.readFile('alias/b.txt')).toBe('nested\n');
    expect(await worktree.readFile('a-link.txt')).toBe('inside\n');
    await worktree.writeFile('alias/c.txt', 'via alias');
    expect(await readFile(join(root, 'sub', 'c.txt'), 'utf8')).toBe('via alias');
  });

  it.each(FILE_ACCESS_MODES)('works when the root itself is reached through a symlink', async (mode) => {
    use(mode);
    const linkedRoot = join(base.path, 'linked-root');
    await symlink(root, linkedRoot);
    const linked = new NodeWorktree(linkedRoot, { fileAccess });
    expect(await linked.readFile('a.txt')).toBe('inside\n');
    expect(await linked.readFile(join(linkedRoot, 'a.txt'))).toBe('inside\n');
    expect(await linked.readFile(join(root, 'a.txt'))).toBe('inside\n');
    await refusal(linked.readFile('../outside/secret.txt'));
  });

  it.each(FILE_ACCESS_MODES)('refuses a symlink loop and NUL bytes without hanging', async (mode) => {
    use(mode);
    await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
    await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
    await expect(worktree.writeFile('loop-a', 'x')).rejects.toMatchObject({ code: 'ELOOP' });
    expect((await refusal(worktree.resolve('a\0b'))).reason).toBe('invalid');
  });

  it.each(FILE_ACCESS_MODES)('writes create parent directories; list marks directories; exists answers', async (mode) => {
    use(mode);
    await worktree.writeFile('made/on/demand.txt', 'hello');
    expect(await readFile(join(root, 'made', 'on', 'demand.txt'), 'utf8')).toBe('hello');
    expect(await worktree.list('.')).toEqual(['a.txt', 'made/', 'sub/']);
    expect(await worktree.exists('made/on/demand.txt')).toBe(true);
    expect(await worktree.exists('nope.txt')).toBe(false);
    expect(await worktree.exists('a.txt/child')).toBe(false);
  });

  it.each(FILE_ACCESS_MODES)('tools turn a refused path into an isError result the model reads', async (mode) => {
    use(mode);
    await symlink(outside, join(root, 'out'));
    const context = makeContext(root, {}, { fileAccess });
    const read = await readTool.execute({ path: '../outside/secret.txt' }, context);
    expect(read.isError).toBe(true);
    expect(read.content).toMatch(/Refused path/);
    expect(read.content).not.toContain('secret\n');
    const write = await writeTool.execute({ path: 'out/planted.txt', content: 'x' }, context);
    expect(write.isError).toBe(true);
    expect(write.details).toMatchObject({ code: 'path_escape', reason: 'symlinkOutside' });
    expect(await missing(join(outside, 'planted.txt'))).toBe(true);
  });
  it.each(FILE_ACCESS_MODES)('walks files depth first in name order, skipping .git and node_modules, not entering symlinked directories', async (mode) => {
    use(mode);
    await mkdir(join(root, '.git'));
    await writeFile(join(root, '.git', 'HEAD'), 'x');
    await mkdir(join(root, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(root, 'node_modules', 'dep', 'i.js'), 'x');
    await mkdir(join(root, 'sub', 'deep'));
    await writeFile(join(root, 'sub', 'deep', 'c.txt'), 'deep\n');
    await writeFile(join(root, 'z.txt'), 'last\n');
    await symlink(outside, join(root, 'out'));
    await symlink('a.txt', join(root, 'a-link.txt'));
    const seen: Array<[string, string | null]> = [];
    for await (const file of worktree.walk('.')) seen.push([file.path, file.relativePath === 'out' ? null : await file.readText()]);
    expect(seen).toEqual([
      ['a-link.txt', 'inside\n'],
      ['a.txt', 'inside\n'],
      ['out', null],
      ['z.txt', 'last\n'],
      ['sub/b.txt', 'nested\n'],
      ['sub/deep/c.txt', 'deep\n'],
    ]);
    const below: string[] = [];
    for await (const file of worktree.walk('sub')) below.push(`${file.path}|${file.relativePath}`);
    expect(below).toEqual(['sub/b.txt|b.txt', 'sub/deep/c.txt|deep/c.txt']);
  });

  it.each(FILE_ACCESS_MODES)('keeps an existing file\'s mode on write and refuses a file without the write bit', async (mode) => {
    use(mode);
    await writeFile(join(root, 'run.sh'), 'echo 1\n', { mode: 0o755 });
    await chmod(join(root, 'run.sh'), 0o755);
    await worktree.writeFile('run.sh', 'echo 2\n');
    expect((await stat(join(root, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(root, 'run.sh'), 'utf8')).toBe('echo 2\n');
    if (fileAccess === 'confined') {
      // Checked by mode bits, so it holds for a server running as root too (an in-place open would not refuse).
      await chmod(join(root, 'a.txt'), 0o444);
      await expect(worktree.writeFile('a.txt', 'changed')).rejects.toMatchObject({ code: 'EACCES' });
      expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('inside\n');
    }
    // No temporary file is left behind by either write.
    expect((await worktree.list('.')).filter((name) => name.includes('cc-write'))).toEqual([]);
  });
});

describe('NodeWorktree.exec', () => {
  const run = (command: string, options: { timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal; env?: Record<string, string> } = {}) =>
    worktree.exec(command, {
      timeoutMs: options.timeoutMs ?? 10_000,
      maxOutputBytes: options.maxOutputBytes ?? 100_000,
      signal: options.signal ?? new AbortController().signal,
      ...(options.env ? { env: options.env } : {}),
    });

  it('runs bash in the worktree root and reports exit code, stdout and stderr', async () => {
    const result = await run('pwd; cat a.txt; echo oops >&2; exit 3');
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe(`${root}\ninside\n`);
    expect(result.stderr).toBe('oops\n');
    expect(result.timedOut).toBe(false);
    expect(result.truncated).toBe(false);
  });

  it('kills the whole process group on timeout, quickly', async () => {
    const started = Date.now();
    const result = await run('sleep 100 & echo $! > child.pid; sleep 100', { timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    const childPid = Number((await readFile(join(root, 'child.pid'), 'utf8')).trim());
    expect(await eventually(async () => !(await isAlive(childPid)))).toBe(true);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const grace = new NodeWorktree(root, { killGraceMs: 300 });
    const started = Date.now();
    const result = await grace.exec("trap '' TERM; sleep 100 & echo $! > child.pid; while true; do sleep 0.1; done", {
      timeoutMs: 300,
      maxOutputBytes: 1_000,
      signal: new AbortController().signal,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
  });

  it('stops the command when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const result = await run('sleep 100', { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBeNull();
  });

  it('does not start a command when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run('touch should-not-exist', { signal: controller.signal });
    expect(result.aborted).toBe(true);
    expect(await missing(join(root, 'should-not-exist'))).toBe(true);
  });

  it('caps output, keeping the head and marking it truncated', async () => {
    const result = await run("printf 'HEAD'; head -c 200000 /dev/zero | tr '\\0' a; echo err >&2", { maxOutputBytes: 1_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toHaveLength(1_000);
    expect(result.stdout.startsWith('HEADaaa')).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.stderr).toBe('err\n');
  });

  it('stops processes the command leaves behind, and does not wait on one that escaped the group', async () => {
    const started = Date.now();
    const result = await run('sleep 100 & echo $! > bg.pid; echo done');
    expect(result.stdout).toBe('done\n');
    const backgroundPid = Number((await readFile(join(root, 'bg.pid'), 'utf8')).trim());
    expect(await eventually(async () => !(await isAlive(backgroundPid)))).toBe(true);

    const escaped = await run('setsid sleep 30 & echo $! > escaped.pid; echo done');
    expect(escaped.stdout).toBe('done\n');
    expect(Date.now() - started).toBeLessThan(8_000);
    const escapedPid = Number((await readFile(join(root, 'escaped.pid'), 'utf8')).trim());
    try {
      process.kill(escapedPid, 'SIGKILL');
    } catch {
      // already gone
    }
  });

  it('starts the command through wrapCommand, in the root, and disposes the wrapper when it ended', async () => {
    const seen: string[][] = [];
    let disposed = 0;
    const wrapped = new NodeWorktree(root, {
      wrapCommand: async (argv) => {
        seen.push(argv);
        return { command: 'env', args: ['WRAPPED=yes', ...argv], dispose: async () => void (disposed += 1) };
      },
    });
    const result = await wrapped.exec('echo "$WRAPPED"; pwd', { timeoutMs: 10_000, maxOutputBytes: 10_000, signal: new AbortController().signal });
    expect(seen).toEqual([['bash', '-c', 'echo "$WRAPPED"; pwd']]);
    expect(result.stdout).toBe(`yes\n${root}\n`);
    expect(disposed).toBe(1);
    const refusing = new NodeWorktree(root, { wrapCommand: async () => Promise.reject(new Error('sandbox unavailable')) });
    await expect(refusing.exec('touch ran.txt', { timeoutMs: 10_000, maxOutputBytes: 10_000, signal: new AbortController().signal })).rejects.toThrow('sandbox unavailable');
    expect(await missing(join(root, 'ran.txt'))).toBe(true);
  });

  it('runs with a sanitized environment unless one is given', async () => {
    process.env.CC_TOOLS_TEST_SECRET = 'hunter2';
    try {
      const result = await run('echo "${CC_TOOLS_TEST_SECRET:-unset} $GIT_TERMINAL_PROMPT"; command -v bash >/dev/null && echo has-path');
      expect(result.stdout).toBe('unset 0\nhas-path\n');
      const explicit = await run('echo "$ONLY"', { env: { ONLY: 'this', PATH: process.env.PATH ?? '' } });
      expect(explicit.stdout).toBe('this\n');
    } finally {
      delete process.env.CC_TOOLS_TEST_SECRET;
    }
  });
});
