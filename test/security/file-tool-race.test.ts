import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext, ToolResult } from '../../src/tools/define-tool.js';
import { editTool } from '../../src/tools/edit-tool.js';
import { globTool } from '../../src/tools/glob-tool.js';
import { grepTool } from '../../src/tools/grep-tool.js';
import { listTool } from '../../src/tools/list-tool.js';
import { readTool } from '../../src/tools/read-tool.js';
import { writeTool } from '../../src/tools/write-tool.js';
import { readConfinedFile, readConfinedFileSync } from '../../src/worktree/read-confined-file.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { makeContext, makeTempDir } from '../support/tool-test-support.js';

/**
 * SEC-4: the built-in file tools cannot be raced out of the worktree. A second process swaps a
 * directory (or a file) of the worktree with a symlink to the outside as fast as it can, while the
 * real tools run against the same path again and again. No read may ever return the secret, no
 * listing may ever show an outside name, and nothing outside may ever be created or changed.
 *
 * Hard links are not a variant: from inside the shell sandbox the outside is a different mount (or
 * absent), and link(2) across mounts is EXDEV, so the agent cannot make one; writes replace files by
 * rename, so even a hard link in the worktree would not carry a write out.
 */

const ITERATIONS = 150;
const SECRET = 'SECRET-7f3a9c';

/**
 * The swapper: an endless loop of renames that makes `path` alternately the real entry and a symlink
 * to `target`. Run as its own process, so it races the server's thread pool for real.
 */
const SWAPPER = `
const fs = require('node:fs');
const [path, target] = process.argv.slice(1);
const real = path + '.swap-real';
const link = path + '.swap-link';
fs.symlinkSync(target, link);
process.stdout.write('ready\\n');
for (;;) {
  try { fs.renameSync(path, real); } catch {}
  try { fs.renameSync(link, path); } catch {}
  try { fs.renameSync(path, link); } catch {}
  try { fs.renameSync(real, path); } catch {}
}
`;

interface Swapper {
  child: ChildProcess;
  path: string;
}

async function startSwapper(path: string, target: string): Promise<Swapper> {
  const child = spawn(process.execPath, ['-e', SWAPPER, path, target], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`swapper exited early (${code})`)));
    child.stdout!.once('data', () => resolve());
  });
  return { child, path };
}

/** Kills the swapper (by its own pid) and puts the real entry back under its name. */
async function stopSwapper(swapper: Swapper): Promise<void> {
  if (swapper.child.exitCode === null && swapper.child.signalCode === null) {
    const exited = new Promise((resolve) => swapper.child.once('exit', resolve));
    swapper.child.kill('SIGKILL');
    await exited;
  }
  const real = `${swapper.path}.swap-real`;
  const link = `${swapper.path}.swap-link`;
  if (existsSync(real) || isSymlink(real)) {
    if (isSymlink(swapper.path)) unlinkSync(swapper.path);
    // A write's mkdir -p may have made a fresh directory while the name was briefly free.
    else if (existsSync(swapper.path)) rmSync(swapper.path, { recursive: true, force: true });
    renameSync(real, swapper.path);
  }
  if (isSymlink(swapper.path)) renameSync(swapper.path, link);
  if (isSymlink(link)) unlinkSync(link);
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Every path below `directory` with its content (files) or a marker (directories, links). */
function snapshot(directory: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    result[path] = entry.isFile() ? readFileSync(path, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>';
  }
  return result;
}

let base: { path: string; cleanup: () => Promise<void> };
let root: string;
let outside: string;
let context: ToolContext;
let swapper: Swapper | undefined;

beforeEach(async () => {
  base = await makeTempDir('cc-race-');
  root = join(base.path, 'worktree');
  outside = join(base.path, 'outside');
  // The worktree: a harmless tree the tools may read and change.
  mkdirSync(join(root, 'dir', 'sub'), { recursive: true });
  writeFileSync(join(root, 'dir', 'file.txt'), 'harmless\n');
  writeFileSync(join(root, 'dir', 'sub', 'file.txt'), 'harmless\n');
  // The outside mirrors its names, so a path that slips through finds something to read or change.
  mkdirSync(join(outside, 'sub'), { recursive: true });
  for (const directory of [outside, join(outside, 'sub')]) {
    writeFileSync(join(directory, 'file.txt'), `${SECRET} harmless\nedited\n`);
    writeFileSync(join(directory, 'secret-entry.txt'), `${SECRET}\n`);
  }
  context = makeContext(root);
});

afterEach(async () => {
  if (swapper) await stopSwapper(swapper);
  swapper = undefined;
  await base.cleanup();
});

interface Variant {
  name: string;
  /** Worktree-relative path the swapper swaps, and where its symlink points. */
  swap: (root: string, outside: string) => { path: string; target: string };
  /** The directory and the file the tools ask for. */
  directory: string;
  file: string;
}

const VARIANTS: Variant[] = [
  { name: 'parent directory swapped for an absolute symlink', swap: (r, o) => ({ path: join(r, 'dir'), target: o }), directory: 'dir', file: 'dir/file.txt' },
  { name: 'deeper component swapped', swap: (r, o) => ({ path: join(r, 'dir', 'sub'), target: join(o, 'sub') }), directory: 'dir/sub', file: 'dir/sub/file.txt' },
  { name: 'last component swapped for a symlink', swap: (r, o) => ({ path: join(r, 'dir', 'file.txt'), target: join(o, 'file.txt') }), directory: 'dir', file: 'dir/file.txt' },
  { name: 'parent swapped for a symlink through /proc/self/root', swap: (r, o) => ({ path: join(r, 'dir'), target: `/proc/self/root${o}` }), directory: 'dir', file: 'dir/file.txt' },
  {
    name: 'parent swapped for a relative `..` symlink, asked for with `..` components',
    swap: (r) => ({ path: join(r, 'dir'), target: '../outside' }),
    directory: 'dir/sub/..',
    file: 'dir/sub/../file.txt',
  },
];

type ToolName = 'read' | 'write' | 'edit' | 'list' | 'glob' | 'grep';

/** One call of a tool against the variant's paths; iteration `index` varies names and edits. */
function callTool(tool: ToolName, variant: Variant, index: number): Promise<ToolResult> {
  switch (tool) {
    case 'read':
      return readTool.execute({ path: variant.file }, context);
    case 'write': {
      // The last-component variant overwrites the swapped file; the others create new files in the swapped directory.
      const path = variant.name.startsWith('last') ? variant.file : `${variant.directory}/new-${index}.txt`;
      return writeTool.execute({ path, content: `written ${index}\n` }, context);
    }
    case 'edit':
      return index % 2 === 0
        ? editTool.execute({ path: variant.file, oldText: 'harmless', newText: 'edited' }, context)
        : editTool.execute({ path: variant.file, oldText: 'edited', newText: 'harmless' }, context);
    case 'list':
      return listTool.execute({ path: variant.directory }, context);
    case 'glob':
      return globTool.execute({ pattern: '**/*', path: variant.directory }, context);
    case 'grep':
      return grepTool.execute({ pattern: 'SECRET|harmless', path: variant.directory }, context);
  }
}

describe('file tools under a concurrent directory/symlink swapper (SEC-4)', () => {
  for (const variant of VARIANTS) {
    describe(variant.name, () => {
      for (const tool of ['read', 'write', 'edit', 'list', 'glob', 'grep'] as const) {
        it(`${tool} never reaches the outside`, async () => {
          const before = snapshot(outside);
          const siblings = readdirSync(base.path).sort();
          const { path, target } = variant.swap(root, outside);
          swapper = await startSwapper(path, target);
          const leaks: string[] = [];
          for (let index = 0; index < ITERATIONS; index += 1) {
            const result = await callTool(tool, variant, index);
            if (result.content.includes(SECRET) || result.content.includes('secret-entry')) leaks.push(result.content);
          }
          await stopSwapper(swapper);
          swapper = undefined;

          expect(leaks).toEqual([]);
          expect(snapshot(outside)).toEqual(before);
          expect(readdirSync(base.path).sort()).toEqual(siblings);
          // With the swapper gone the same call works: the refusals were the race, not a broken tool.
          const settled = await callTool(tool, variant, ITERATIONS);
          if (tool !== 'edit') expect(settled.isError).toBe(false);
        });
      }
    });
  }
});

describe('symlinks the resolver meets are confined to the root (SEC-4)', () => {
  it('refuses /proc/self/root, absolute and climbing targets, and follows ones that stay inside', async () => {
    symlinkSync('/proc/self/root', join(root, 'host'));
    symlinkSync(outside, join(root, 'abs'));
    symlinkSync('../outside/file.txt', join(root, 'climb.txt'));
    symlinkSync('dir/sub/../file.txt', join(root, 'inside.txt'));
    symlinkSync(join(root, 'dir'), join(root, 'abs-inside'));
    for (const path of [`host${outside}/file.txt`, 'abs/file.txt', 'climb.txt']) {
      const result = await readTool.execute({ path }, context);
      expect(result.isError).toBe(true);
      expect(result.details).toMatchObject({ code: 'path_escape', reason: 'symlinkOutside' });
      expect(result.content).not.toContain(SECRET);
    }
    expect((await readTool.execute({ path: 'inside.txt' }, context)).content).toBe('1\tharmless');
    expect((await readTool.execute({ path: 'abs-inside/sub/file.txt' }, context)).content).toBe('1\tharmless');
    const write = await writeTool.execute({ path: 'abs/planted.txt', content: 'x' }, context);
    expect(write.details).toMatchObject({ code: 'path_escape', reason: 'symlinkOutside' });
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });

  it('refuses a FIFO instead of blocking on it, in read and in grep', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(root, 'dir', 'pipe')]);
    const read = await readTool.execute({ path: 'dir/pipe' }, context);
    expect(read.isError).toBe(true);
    expect(read.content).toMatch(/not a regular file/);
    const grep = await grepTool.execute({ pattern: 'harmless', path: 'dir' }, context);
    expect(grep.content).toContain('dir/file.txt:1: harmless');
  });

  it('write replaces a hard-linked file instead of writing through the shared inode', async () => {
    const linked = join(base.path, 'linked.txt');
    writeFileSync(linked, 'outside content\n');
    // Made by the test (an agent in the sandbox cannot link across mounts); the point is the write path.
    const { linkSync } = await import('node:fs');
    linkSync(linked, join(root, 'dir', 'hard.txt'));
    const result = await writeTool.execute({ path: 'dir/hard.txt', content: 'new\n' }, context);
    expect(result.isError).toBe(false);
    expect(readFileSync(linked, 'utf8')).toBe('outside content\n');
    expect(readFileSync(join(root, 'dir', 'hard.txt'), 'utf8')).toBe('new\n');
  });
});

describe('any path through any mix of links stays inside (SEC-4, property)', () => {
  it('read, list and write never return or touch the outside, whatever segments and links the path combines', async () => {
    symlinkSync('..', join(root, 'dir', 'up'));
    symlinkSync('../..', join(root, 'dir', 'up2'));
    symlinkSync(outside, join(root, 'dir', 'abs-out'));
    symlinkSync('/proc/self/root', join(root, 'dir', 'host'));
    symlinkSync('sub', join(root, 'dir', 'down'));
    symlinkSync(join(root, 'dir'), join(root, 'abs-in'));
    symlinkSync('loop', join(root, 'loop'));
    const before = snapshot(outside);
    const segment = fc.constantFrom('dir', 'sub', 'file.txt', 'up', 'up2', 'abs-out', 'host', 'down', 'abs-in', 'loop', '..', '.', 'outside', 'tmp', 'secret-entry.txt');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 7 }), fc.boolean(), async (segments, absolute) => {
        const path = (absolute ? `${root}/` : '') + segments.join('/');
        const read = await readTool.execute({ path }, context);
        expect(read.content).not.toContain(SECRET);
        const list = await listTool.execute({ path }, context);
        // The outside's own entry name (the error text may echo the requested path, which can contain it).
        expect((list.details as { entries?: string[] } | undefined)?.entries ?? []).not.toContain('secret-entry.txt');
        await writeTool.execute({ path: `${path}/planted.txt`, content: 'x' }, context);
        expect(existsSync(join(outside, 'planted.txt')) || existsSync(join(outside, 'sub', 'planted.txt'))).toBe(false);
      }),
      { numRuns: 300 },
    );
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('readConfinedFile for the server itself (SEC-4, for SEC-5)', () => {
  it('reads a file inside and gives null for anything outside, too large or raced', async () => {
    writeFileSync(join(root, 'script.sh'), 'echo hi\n');
    symlinkSync(join(outside, 'file.txt'), join(root, 'leak.sh'));
    expect((await readConfinedFile(root, 'script.sh'))?.toString()).toBe('echo hi\n');
    expect(readConfinedFileSync(root, 'script.sh')?.toString()).toBe('echo hi\n');
    expect(await readConfinedFile(root, 'leak.sh')).toBeNull();
    expect(readConfinedFileSync(root, '../outside/file.txt')).toBeNull();
    expect(await readConfinedFile(root, 'script.sh', { maxBytes: 3 })).toBeNull();
    swapper = await startSwapper(join(root, 'dir'), outside);
    for (let index = 0; index < ITERATIONS; index += 1) {
      const asynchronous = await readConfinedFile(root, 'dir/file.txt');
      const synchronous = readConfinedFileSync(root, 'dir/file.txt');
      for (const content of [asynchronous, synchronous]) expect(content?.toString() ?? '').not.toContain(SECRET);
    }
  });
});

describe('through a real server run with the scripted model (SEC-4)', () => {
  let fixture: HarnessFixture | undefined;
  afterEach(async () => {
    if (swapper) await stopSwapper(swapper);
    swapper = undefined;
    await fixture?.dispose();
    fixture = undefined;
  });

  it('reads and writes racing a swap of a worktree directory and the data directory never see the operator token', async () => {
    fixture = await startHarnessFixture();
    const worktree = join(fixture.workspaceDir, 'worktrees', fixture.conversationId);
    mkdirSync(join(worktree, 'dir'), { recursive: true });
    writeFileSync(join(worktree, 'dir', 'operator-token'), 'harmless\n');
    const dataRoot = fixture.server.dataRoot;
    const token = readFileSync(join(dataRoot, 'operator-token'), 'utf8').trim();
    const before = readdirSync(dataRoot).sort();
    const CALLS = 60;
    let step = reply();
    for (let index = 0; index < CALLS; index += 1) {
      step = step.tool('read', { path: 'dir/operator-token' }).tool('write', { path: `dir/planted-${index}.txt`, content: 'x' });
    }
    fixture.model.script(step, reply().text('done'));
    swapper = await startSwapper(join(worktree, 'dir'), dataRoot);
    const runId = await fixture.send('read the token');
    const detail = await fixture.waitForRun(runId, 60_000);
    await stopSwapper(swapper);
    swapper = undefined;

    expect(detail.toolCalls).toHaveLength(CALLS * 2);
    for (const call of detail.toolCalls) expect(String(call.output)).not.toContain(token);
    expect(readdirSync(dataRoot).sort()).toEqual(before);
    expect(statSync(join(worktree, 'dir')).isDirectory()).toBe(true);
    rmSync(join(worktree, 'dir'), { recursive: true, force: true });
  });
});
