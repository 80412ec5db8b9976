/**
 * SEC-12: a skill folder's links are resolved as the file system would — chains, links through
 * linked folders, `..` climbing from where a link really leads — and judged by where they end.
 */
import { describe, expect, it } from 'vitest';
import { resolveFolderLinks } from '../../../src/core/skills/scan/folder-links.js';
import type { SkillFolderEntry } from '../../../src/core/skills/scan/scan-types.js';

const file = (path: string): SkillFolderEntry => ({ path, kind: 'file', mode: 0o644, content: new Uint8Array([120]) });
const link = (path: string, linkTarget: string): SkillFolderEntry => ({ path, kind: 'symlink', mode: 0o120000, linkTarget });

function resolve(entries: SkillFolderEntry[], path: string) {
  return resolveFolderLinks([file('SKILL.md'), ...entries]).get(path)!;
}

describe('resolveFolderLinks (SEC-12)', () => {
  it('follows chains and linked folders to a file or folder inside', () => {
    const entries = [file('refs/guide.md'), link('deep/er/j', '../../refs'), link('a', 'b'), link('b', 'deep/er/j/guide.md'), link('docs', 'refs')];
    expect(resolve(entries, 'a')).toEqual({ ok: true, kind: 'file', path: 'refs/guide.md', via: ['a', 'b', 'deep/er/j'] });
    expect(resolve(entries, 'docs')).toMatchObject({ ok: true, kind: 'directory', path: 'refs' });
  });

  it('climbs from where a linked folder really is, not from where its name sits', () => {
    // Each link's text reads as inside; together `t` lands one level above the folder.
    const entries = [file('refs/guide.md'), link('deep/er/j', '../../refs'), link('t', 'deep/er/j/../../../secret')];
    expect(resolve(entries, 'deep/er/j').ok).toBe(true);
    expect(resolve(entries, 't')).toEqual({ ok: false, problem: 'leads outside the skill folder', via: ['t', 'deep/er/j'] });
  });

  it('refuses links that climb out, are absolute, dangle, go through a file, loop, or lead to a folder holding them', () => {
    const cases: Array<[SkillFolderEntry[], string, RegExp]> = [
      [[link('x', '../outside')], 'x', /outside/],
      [[link('x', '/etc/passwd')], 'x', /absolute/],
      [[link('x', 'missing.md')], 'x', /nothing/],
      [[link('x', 'SKILL.md/..')], 'x', /through a file/],
      [[link('x', 'SKILL.md/')], 'x', /through a file/],
      [[link('x', 'y'), link('y', 'x')], 'x', /loop/],
      [[file('sub/deep/f.md'), link('sub/deep/up', '..')], 'sub/deep/up', /holds the link/],
      [[link('x', '.')], 'x', /holds the link/],
      [[link('a', 'b'), link('b', '/root/.ssh/id_rsa')], 'a', /absolute/],
      // Each leads to a folder not holding it, but the two folders lead into each other.
      [[file('a/f.md'), file('b/g.md'), link('a/x', '../b'), link('b/y', '../a')], 'a/x', /lead back to it \(a loop\)/],
      [[file('a/f.md'), file('b/g.md'), link('a/x', '../b'), link('b/y', '../a')], 'b/y', /lead back to it \(a loop\)/],
    ];
    for (const [entries, path, problem] of cases) {
      const resolution = resolve(entries, path);
      expect(resolution.ok, JSON.stringify(entries)).toBe(false);
      if (!resolution.ok) expect(resolution.problem).toMatch(problem);
    }
  });

  it('refuses every link of a loop through folders, however long, what leads into one, and what resolves through one; keeps the rest', () => {
    const entries = [
      file('a/f.md'), file('b/deep/g.md'), file('c/h.md'), file('d/i.md'),
      // a/x → b, b/deep/y → c, c/z → a: a three-link loop, the last one climbing to an ancestor of b/deep.
      link('a/x', '../b'), link('b/deep/y', '../../c'), link('c/z', '../a'),
      // Into a folder of the loop: walking it never ends either.
      link('d/in', '../a'),
      // Through a loop's link: it would dangle once that link is not written.
      link('through', 'a/x/deep/g.md'),
      // A folder holding a link into the loop, but none back to itself: its own walk ends.
      link('e', 'd'), link('f/to-e', '../e'),
    ];
    const resolutions = resolveFolderLinks([file('SKILL.md'), ...entries]);
    for (const path of ['a/x', 'b/deep/y', 'c/z', 'd/in']) expect(resolutions.get(path), path).toMatchObject({ ok: false, problem: expect.stringMatching(/lead back to it/) });
    expect(resolutions.get('through')).toMatchObject({ ok: false, problem: 'goes through a link that loops', via: ['through', 'a/x'] });
    expect(resolutions.get('e')).toMatchObject({ ok: true, kind: 'directory', path: 'd' });
    expect(resolutions.get('f/to-e')).toMatchObject({ ok: true, kind: 'directory', path: 'd', via: ['f/to-e', 'e'] });
  });
});
