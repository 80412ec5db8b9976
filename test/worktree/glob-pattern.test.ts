import { describe, expect, it } from 'vitest';
import { globBase, globMatcher } from '../../src/worktree/glob-pattern.js';

describe('glob matcher', () => {
  const cases: [pattern: string, path: string, expected: boolean][] = [
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/deep/er/a.ts', true],
    ['src/**/*.ts', 'lib/a.ts', false],
    ['src/**/*.ts', 'src/a.tsx', false],
    ['src/*.ts', 'src/deep/a.ts', false],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/guide/intro.md', true],
    ['./src/*.ts', 'src/a.ts', true],
    ['src/**', 'src/x/y/z', true],
    ['**', 'anything/at/all', true],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file10.txt', false],
    ['[ab].txt', 'a.txt', true],
    ['[!ab].txt', 'a.txt', false],
    ['[!ab].txt', 'c.txt', true],
    ['{src,test}/**/*.test.ts', 'test/tools/a.test.ts', true],
    ['{src,test}/**/*.test.ts', 'bench/a.test.ts', false],
    ['a.b', 'axb', false],
    ['src/a**b.ts', 'src/aXXb.ts', true],
    ['src/a**b.ts', 'src/a/b.ts', false],
    ['(x)+.ts', '(x)+.ts', true],
  ];
  it.each(cases)('%s against %s is %s', (pattern, path, expected) => {
    expect(globMatcher(pattern)(path)).toBe(expected);
  });

  it('finds the literal directory a pattern starts in', () => {
    expect(globBase('src/lib/**/*.ts')).toBe('src/lib');
    expect(globBase('src/*.ts')).toBe('src');
    expect(globBase('*.ts')).toBe('');
    expect(globBase('{src,test}/*.ts')).toBe('');
    expect(globBase('docs/readme.md')).toBe('docs');
  });
});
