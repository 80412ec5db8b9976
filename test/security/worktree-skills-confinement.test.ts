/**
 * SKL-5 / SEC-4: materializing the scanned skills into an agent's checkout (ACP agents) must never
 * write or delete outside it, nor over anything that is not the server's own: the checkout is the
 * agent's and every folder on the way may have been replaced. Real folders, links and files in temp
 * directories.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SkillFolderEntry } from '../../src/core/skills/scan/scan-types.js';
import { materializeWorktreeSkills, type ScannedSkill } from '../../src/services/skills/materialize-worktree-skills.js';

let worktree: string;
let outside: string;
let serverDir: string;

beforeEach(async () => {
  worktree = await mkdtemp(join(tmpdir(), 'cc-wt-skills-'));
  outside = await mkdtemp(join(tmpdir(), 'cc-wt-outside-'));
  serverDir = await mkdtemp(join(tmpdir(), 'cc-wt-server-'));
  await mkdir(join(worktree, '.git'));
});

afterEach(async () => {
  for (const dir of [worktree, outside, serverDir]) await rm(dir, { recursive: true, force: true });
});

const file = (path: string, text: string): SkillFolderEntry => ({ path, kind: 'file', mode: 0o644, content: new TextEncoder().encode(text) });
const skill = (name: string, body = `${name} body`, extra: SkillFolderEntry[] = []): ScannedSkill => ({ name, entries: [file('SKILL.md', `---\nname: ${name}\ndescription: d\n---\n${body}\n`), ...extra] });
const materialize = (skills: ScannedSkill[], folders = ['.agents/skills', '.claude/skills']) =>
  materializeWorktreeSkills({ worktreePath: worktree, folders, skills, recordPath: join(serverDir, 'record.json') });

describe('materializing skills into a checkout stays inside it (SKL-5, SEC-4)', () => {
  it('writes each scanned skill into every folder and records it outside the checkout', async () => {
    const outcome = await materialize([skill('zebra', 'stripes', [file('refs/notes.md', 'n')])]);
    expect(outcome).toEqual({ written: ['.agents/skills/zebra', '.claude/skills/zebra'], refused: [] });
    expect(readFileSync(join(worktree, '.claude', 'skills', 'zebra', 'refs', 'notes.md'), 'utf8')).toBe('n');
    expect(Object.keys(JSON.parse(readFileSync(join(serverDir, 'record.json'), 'utf8')).folders)).toEqual(['.agents/skills/zebra', '.claude/skills/zebra']);
  });

  it('refuses a skills folder that is a link out of the checkout, at any level, and writes nothing through it', async () => {
    await symlink(outside, join(worktree, '.claude'));
    await mkdir(join(worktree, '.agents'));
    await symlink(outside, join(worktree, '.agents', 'skills'));
    const outcome = await materialize([skill('zebra')]);
    expect(outcome.written).toEqual([]);
    expect(outcome.refused.map((refused) => refused.path)).toEqual(['.agents/skills', '.claude/skills']);
    expect(outcome.refused[0]!.reason).toContain('symbolic link');
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses a skill name with .. or / and an entry path that climbs out', async () => {
    const outcome = await materialize([skill('..'), skill('a/b'), skill('UPPER'), { name: 'climber', entries: [file('SKILL.md', 'x'), file('../../escaped.md', 'x')] }], ['.claude/skills']);
    expect(outcome.written).toEqual([]);
    expect(outcome.refused.map((refused) => refused.path)).toEqual(['.claude/skills/..', '.claude/skills/a/b', '.claude/skills/UPPER', '.claude/skills/climber']);
    expect(existsSync(join(worktree, 'escaped.md'))).toBe(false);
    expect(existsSync(join(worktree, '.claude', 'escaped.md'))).toBe(false);
    // The half-written folder of the refused skill is taken back.
    expect(existsSync(join(worktree, '.claude', 'skills', 'climber'))).toBe(false);
    expect(await readdir(join(worktree, '.claude', 'skills'))).toEqual([]);
  });

  it('never writes over a folder, file or link that is already there and not the server’s', async () => {
    await mkdir(join(worktree, '.claude', 'skills', 'zebra'), { recursive: true });
    await writeFile(join(worktree, '.claude', 'skills', 'zebra', 'SKILL.md'), 'the repository’s own');
    await mkdir(join(worktree, '.agents', 'skills'), { recursive: true });
    await symlink(outside, join(worktree, '.agents', 'skills', 'zebra'));
    const outcome = await materialize([skill('zebra')]);
    expect(outcome.written).toEqual([]);
    expect(outcome.refused.map((refused) => refused.reason)).toEqual([
      "'.agents/skills/zebra' is already there and was not written by the Control Center",
      "'.claude/skills/zebra' is already there and was not written by the Control Center",
    ]);
    expect(readFileSync(join(worktree, '.claude', 'skills', 'zebra', 'SKILL.md'), 'utf8')).toBe('the repository’s own');
    expect(await readdir(outside)).toEqual([]);
  });

  it('replaces its own unchanged copy on the next run, but leaves one the agent changed or swapped for a link', async () => {
    await materialize([skill('zebra', 'v1'), skill('okapi'), skill('tapir')], ['.claude/skills']);
    const root = join(worktree, '.claude', 'skills');
    // The agent edits okapi, and replaces tapir with a link to a folder outside holding a file.
    await writeFile(join(root, 'okapi', 'SKILL.md'), 'edited by the agent');
    await rm(join(root, 'tapir'), { recursive: true });
    await writeFile(join(outside, 'keep.txt'), 'keep');
    await symlink(outside, join(root, 'tapir'));
    const outcome = await materialize([skill('zebra', 'v2'), skill('okapi'), skill('tapir')], ['.claude/skills']);
    expect(outcome.written).toEqual(['.claude/skills/zebra']);
    expect(outcome.refused.map((refused) => refused.path)).toEqual(['.claude/skills/okapi', '.claude/skills/tapir']);
    expect(readFileSync(join(root, 'zebra', 'SKILL.md'), 'utf8')).toContain('v2');
    expect(readFileSync(join(root, 'okapi', 'SKILL.md'), 'utf8')).toBe('edited by the agent');
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('a skill dropped from the set is removed on the next run', async () => {
    await materialize([skill('zebra'), skill('okapi')], ['.claude/skills']);
    await materialize([skill('zebra')], ['.claude/skills']);
    expect(await readdir(join(worktree, '.claude', 'skills'))).toEqual(['zebra']);
  });

  it('writes the git exclude lines only into the checkout’s own .git/info, never through a link', async () => {
    await symlink(outside, join(worktree, '.git', 'info'));
    expect((await materialize([skill('zebra')], ['.claude/skills'])).written).toEqual(['.claude/skills/zebra']);
    expect(await readdir(outside)).toEqual([]);
    await rm(join(worktree, '.git', 'info'));
    await materialize([skill('zebra')], ['.claude/skills']);
    expect(readFileSync(join(worktree, '.git', 'info', 'exclude'), 'utf8')).toContain('/.claude/skills/zebra/\n');
  });
});
