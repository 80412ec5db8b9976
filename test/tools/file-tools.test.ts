import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/tools/define-tool.js';
import { editTool } from '../../src/tools/edit-tool.js';
import { globTool } from '../../src/tools/glob-tool.js';
import { grepTool } from '../../src/tools/grep-tool.js';
import { listTool } from '../../src/tools/list-tool.js';
import { readTool } from '../../src/tools/read-tool.js';
import { writeTool } from '../../src/tools/write-tool.js';
import { makeContext, makeTempDir } from '../support/tool-test-support.js';

let base: { path: string; cleanup: () => Promise<void> };
let root: string;
let context: ToolContext;

async function put(path: string, content: string): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

beforeEach(async () => {
  base = await makeTempDir();
  root = join(base.path, 'wt');
  await mkdir(root);
  await put('src/index.ts', 'export const answer = 42;\nexport function hello() {\n  return "hello";\n}\n');
  await put('src/lib/util.ts', 'export const TODO = 1; // TODO: remove\n');
  await put('src/lib/view.tsx', 'export const View = () => null; // todo later\n');
  await put('README.md', '# Project\n\nTODO: write docs\n');
  await put('node_modules/dep/index.ts', 'TODO in a dependency\n');
  await put('.git/config', 'TODO in git internals\n');
  await put('bin.dat', 'abc\0def TODO\n');
  context = makeContext(root);
});

afterEach(async () => {
  await base.cleanup();
});

describe('read', () => {
  it('returns numbered lines', async () => {
    const result = await readTool.execute({ path: 'src/index.ts' }, context);
    expect(result.isError).toBe(false);
    expect(result.content).toBe('1\texport const answer = 42;\n2\texport function hello() {\n3\t  return "hello";\n4\t}');
  });

  it('pages with offset and limit and says how to continue', async () => {
    await put('long.txt', Array.from({ length: 12 }, (_, index) => `line ${index + 1}`).join('\n'));
    const result = await readTool.execute({ path: 'long.txt', offset: 9, limit: 2 }, context);
    expect(result.content).toBe(' 9\tline 9\n10\tline 10\n[lines 9-10 of 12; continue with offset 11]');
    const past = await readTool.execute({ path: 'long.txt', offset: 20 }, context);
    expect(past.isError).toBe(true);
    expect(past.content).toMatch(/offset 20 is past the end of long.txt, which has 12 lines/);
  });

  it('gives clear errors for a missing file, a directory and a binary file', async () => {
    const missing = await readTool.execute({ path: 'nope.ts' }, context);
    expect(missing).toMatchObject({ isError: true, content: 'nope.ts: no such file or directory.' });
    const directory = await readTool.execute({ path: 'src' }, context);
    expect(directory.isError).toBe(true);
    expect(directory.content).toMatch(/src is a directory/);
    const binary = await readTool.execute({ path: 'bin.dat' }, context);
    expect(binary.isError).toBe(true);
    expect(binary.content).toMatch(/binary/);
  });

  it('reports an empty file', async () => {
    await put('empty.txt', '');
    expect(await readTool.execute({ path: 'empty.txt' }, context)).toMatchObject({ isError: false, content: 'empty.txt is empty.' });
  });
});

describe('list', () => {
  it('lists a directory with directories marked', async () => {
    const result = await listTool.execute({}, context);
    expect(result.content.split('\n')).toEqual(['.git/', 'README.md', 'bin.dat', 'node_modules/', 'src/']);
    expect((await listTool.execute({ path: 'src' }, context)).content).toBe('index.ts\nlib/');
  });

  it('errors for a missing path and for a file', async () => {
    expect(await listTool.execute({ path: 'nowhere' }, context)).toMatchObject({ isError: true, content: 'nowhere: no such file or directory.' });
    const file = await listTool.execute({ path: 'README.md' }, context);
    expect(file.isError).toBe(true);
    expect(file.content).toMatch(/not a directory/);
  });
});

describe('glob', () => {
  it('matches `**` patterns, sorted, skipping .git and node_modules', async () => {
    const result = await globTool.execute({ pattern: 'src/**/*.ts' }, context);
    expect(result.content).toBe('src/index.ts\nsrc/lib/util.ts');
    const everywhere = await globTool.execute({ pattern: '**/*.ts' }, context);
    expect(everywhere.content).toBe('src/index.ts\nsrc/lib/util.ts');
  });

  it('matches a bare file-name pattern at any depth, with braces', async () => {
    expect((await globTool.execute({ pattern: '*.{ts,tsx}' }, context)).content).toBe('src/index.ts\nsrc/lib/util.ts\nsrc/lib/view.tsx');
    expect((await globTool.execute({ pattern: 'src/*.ts' }, context)).content).toBe('src/index.ts');
  });

  it('searches below a path and caps results', async () => {
    expect((await globTool.execute({ pattern: '*.ts', path: 'src/lib' }, context)).content).toBe('src/lib/util.ts');
    const capped = await globTool.execute({ pattern: '**/*', maxResults: 2 }, context);
    expect(capped.content.split('\n').slice(0, 2)).toEqual(['README.md', 'bin.dat']);
    expect(capped.content).toMatch(/3 more not shown/);
  });

  it('says when nothing matches, and refuses a path outside', async () => {
    expect((await globTool.execute({ pattern: 'docs/**/*.md' }, context)).content).toBe('No files match docs/**/*.md.');
    const outside = await globTool.execute({ pattern: '*', path: '..' }, context);
    expect(outside.isError).toBe(true);
    expect(outside.content).toMatch(/Refused path/);
  });

  it('does not follow a symlinked directory out of the worktree', async () => {
    const outside = join(base.path, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'secret.ts'), 'x');
    await symlink(outside, join(root, 'escape'));
    const result = await globTool.execute({ pattern: '**/*.ts' }, context);
    expect(result.content).not.toContain('secret.ts');
  });
});

describe('grep', () => {
  it('finds lines by regex as path:line: text, skipping binaries, .git and node_modules', async () => {
    const result = await grepTool.execute({ pattern: 'TODO' }, context);
    expect(result.isError).toBe(false);
    expect(result.content.split('\n')).toEqual(['README.md:3: TODO: write docs', 'src/lib/util.ts:1: export const TODO = 1; // TODO: remove']);
  });

  it('filters with a glob, ignores case, and searches one file', async () => {
    const result = await grepTool.execute({ pattern: 'todo', ignoreCase: true, glob: '*.tsx' }, context);
    expect(result.content).toBe('src/lib/view.tsx:1: export const View = () => null; // todo later');
    const single = await grepTool.execute({ pattern: 'hello', path: 'src/index.ts' }, context);
    expect(single.content).toBe('src/index.ts:2: export function hello() {\nsrc/index.ts:3:   return "hello";');
  });

  it('stops at maxResults and says so', async () => {
    const result = await grepTool.execute({ pattern: 'export', maxResults: 2 }, context);
    expect(result.content.split('\n').slice(0, 2)).toHaveLength(2);
    expect(result.content).toMatch(/stopped at 2 matches/);
  });

  it('reports an invalid regex, no matches and a missing path', async () => {
    const invalid = await grepTool.execute({ pattern: '(unclosed' }, context);
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toMatch(/not a valid regular expression/);
    expect((await grepTool.execute({ pattern: 'zebra' }, context)).content).toMatch(/^No matches for \/zebra\//);
    expect((await grepTool.execute({ pattern: 'x', path: 'nowhere' }, context)).isError).toBe(true);
  });
});

describe('write', () => {
  it('creates a file with its parent directories, then overwrites it', async () => {
    const created = await writeTool.execute({ path: 'new/dir/file.txt', content: 'first' }, context);
    expect(created).toMatchObject({ isError: false, content: 'Created new/dir/file.txt (5 bytes).' });
    const overwritten = await writeTool.execute({ path: 'new/dir/file.txt', content: 'second!' }, context);
    expect(overwritten.content).toBe('Overwrote new/dir/file.txt (7 bytes).');
    expect(await readFile(join(root, 'new/dir/file.txt'), 'utf8')).toBe('second!');
  });

  it('errors when the target is a directory', async () => {
    const result = await writeTool.execute({ path: 'src', content: 'x' }, context);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/is a directory/);
  });
});

describe('edit', () => {
  it('replaces a unique occurrence exactly', async () => {
    const result = await editTool.execute({ path: 'src/index.ts', oldText: 'return "hello";', newText: 'return "hi";' }, context);
    expect(result).toMatchObject({ isError: false, content: 'Replaced 1 occurrence in src/index.ts (first at line 3).' });
    expect(await readFile(join(root, 'src/index.ts'), 'utf8')).toContain('return "hi";');
  });

  it('errors clearly when oldText is missing, and leaves the file alone', async () => {
    const before = await readFile(join(root, 'src/index.ts'), 'utf8');
    const result = await editTool.execute({ path: 'src/index.ts', oldText: 'return "bye";', newText: 'x' }, context);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/oldText was not found in src\/index.ts/);
    expect(await readFile(join(root, 'src/index.ts'), 'utf8')).toBe(before);
  });

  it('refuses an ambiguous oldText, naming the count, unless replaceAll', async () => {
    await put('dup.txt', 'x = 1\nx = 1\nx = 1\n');
    const ambiguous = await editTool.execute({ path: 'dup.txt', oldText: 'x = 1', newText: 'x = 2' }, context);
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.content).toMatch(/appears 3 times in dup.txt/);
    expect(ambiguous.details).toMatchObject({ occurrences: 3 });
    expect(await readFile(join(root, 'dup.txt'), 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');
    const all = await editTool.execute({ path: 'dup.txt', oldText: 'x = 1', newText: 'x = $&2' , replaceAll: true }, context);
    expect(all.content).toBe('Replaced 3 occurrences in dup.txt (first at line 1).');
    expect(await readFile(join(root, 'dup.txt'), 'utf8')).toBe('x = $&2\nx = $&2\nx = $&2\n');
  });

  it('errors for a missing file and for identical texts', async () => {
    expect((await editTool.execute({ path: 'nope.txt', oldText: 'a', newText: 'b' }, context)).content).toBe('nope.txt: no such file or directory.');
    expect((await editTool.execute({ path: 'README.md', oldText: 'TODO', newText: 'TODO' }, context)).isError).toBe(true);
  });

  it('matches a file with CRLF line endings', async () => {
    await put('windows.txt', 'one\r\ntwo\r\nthree\r\n');
    const result = await editTool.execute({ path: 'windows.txt', oldText: 'one\ntwo', newText: 'one\n2' }, context);
    expect(result.isError).toBe(false);
    expect(await readFile(join(root, 'windows.txt'), 'utf8')).toBe('one\r\n2\r\nthree\r\n');
  });
});
