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
    ];
    for (const [entries, path, problem] of cases) {
      const resolution = resolve(entries, path);
      expect(resolution.ok, JSON.stringify(entries)).toBe(false);
      if (!resolution.ok) expect(resolution.problem).toMatch(problem);
    }
  });
});
