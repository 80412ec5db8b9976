/**
 * SKL-3: the lock's `computedHash` is the `npx skills` project-lock hash. The expected value here is
 * computed by an independent implementation of the documented algorithm — coreutils `sha256sum` over
 * each regular file's relative path followed by its bytes, in path order, skipping `.git`,
 * `node_modules` and symbolic links — never by the code under test.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSkillFolderHash } from '../../../src/core/skills/skill-folder-hash.js';
import { readSkillFolder } from '../../../src/services/skills/skill-folder-files.js';

let dir: string;

const FILES: Record<string, string> = {
  'SKILL.md': '---\nname: fixture\ndescription: Hash fixture.\n---\n\nBody.\n',
  'references/guide.md': 'Guide text\n',
  'scripts/run.py': 'print("hi")\n',
  'scripts/lib/util.py': 'X = 1\n',
  'assets/data.json': '{"a":1}',
  'node_modules/dep/index.js': 'ignored',
  '.git/HEAD': 'ignored',
  'scripts/node_modules/x.js': 'ignored too',
};
/** The included files in `localeCompare` order, written out by hand. */
const ORDER = ['assets/data.json', 'references/guide.md', 'scripts/lib/util.py', 'scripts/run.py', 'SKILL.md'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-hash-'));
  for (const [path, content] of Object.entries(FILES)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await symlink('SKILL.md', join(dir, 'link.md'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('computeSkillFolderHash (SKL-3, npx skills project lock)', () => {
  it('equals sha256sum over path+content of the regular files in path order', async () => {
    const script = ORDER.map((path) => `printf '%s' '${path}'; cat '${path}'`).join('; ');
    const expected = execFileSync('sh', ['-c', `{ ${script}; } | sha256sum`], { cwd: dir, encoding: 'utf8' }).split(' ')[0];
    const entries = await readSkillFolder(dir);
    const actual = computeSkillFolderHash(entries.filter((entry) => entry.kind === 'file').map((entry) => ({ path: entry.path, content: entry.content! })));
    expect(actual).toBe(expected);
    expect(actual).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes when a file is renamed or its content changes, not when a link or node_modules changes', async () => {
    const base = computeSkillFolderHash([{ path: 'a.md', content: new TextEncoder().encode('x') }]);
    expect(computeSkillFolderHash([{ path: 'b.md', content: new TextEncoder().encode('x') }])).not.toBe(base);
    expect(computeSkillFolderHash([{ path: 'a.md', content: new TextEncoder().encode('y') }])).not.toBe(base);
    expect(computeSkillFolderHash([{ path: 'a.md', content: new TextEncoder().encode('x') }, { path: 'node_modules/z.js', content: new TextEncoder().encode('z') }])).toBe(base);
  });
});
