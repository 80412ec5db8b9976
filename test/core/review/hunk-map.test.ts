import { describe, expect, it } from 'vitest';
import { anchorProblem, parseHunkMap, unquoteGitPath } from '../../../src/core/review/hunk-map.js';

const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,5 +1,6 @@',
  ' one',
  '-two',
  '+TWO',
  '+two and a half',
  ' three',
  ' four',
  '@@ -20,3 +21,2 @@',
  ' twenty',
  '-twenty-one',
  ' twenty-two',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1,2 +0,0 @@',
  '-x',
  '-y',
  'diff --git "a/sp\\303\\251cial \\"q\\".md" "b/sp\\303\\251cial \\"q\\".md"',
  'new file mode 100644',
  '--- /dev/null',
  '+++ "b/sp\\303\\251cial \\"q\\".md"',
  '@@ -0,0 +1,2 @@',
  '+--- not a header',
  '++++ nor this',
  'diff --git a/img.png b/img.png',
  'Binary files a/img.png and b/img.png differ',
  '',
].join('\n');

describe('hunk map', () => {
  it('maps each file to its changed head-side lines; a pure deletion marks where it was', () => {
    expect(parseHunkMap(DIFF)).toEqual({
      'src/a.ts': [
        [2, 3],
        [22, 22],
      ],
      'gone.txt': [[1, 1]],
      'spécial "q".md': [[1, 2]],
    });
  });

  it('unquotes C-style quoted paths', () => {
    expect(unquoteGitPath('"tab\\there"')).toBe('tab\there');
    expect(unquoteGitPath('plain')).toBe('plain');
  });

  it('checks anchors: inside the changed lines only, on a changed file only', () => {
    const map = parseHunkMap(DIFF);
    expect(anchorProblem({ path: 'src/a.ts', startLine: 3, endLine: 3 }, map)).toBeNull();
    expect(anchorProblem({ path: 'src/a.ts', startLine: 1, endLine: 2 }, map)).toBeNull();
    expect(anchorProblem({ path: 'src/a.ts', startLine: 5, endLine: 20 }, map)).toMatch(/outside the diff \(changed lines: 2-3, 22\)/);
    expect(anchorProblem({ path: 'other.ts', startLine: 1, endLine: 1 }, map)).toMatch(/not a file changed/);
    expect(anchorProblem({ path: 'src/a.ts', startLine: 4, endLine: 3 }, map)).toMatch(/not a valid range/);
    expect(anchorProblem({ path: '__proto__', startLine: 1, endLine: 1 }, map)).toMatch(/not a file changed/);
  });
});
