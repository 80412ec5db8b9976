import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One file of a fixture skill: text, or a symlink when `link` is set; `mode` 0o755 marks it executable. */
export interface FixtureFile {
  content?: string | Uint8Array;
  link?: string;
  mode?: number;
}

export function skillMd(name: string, description = `The ${name} skill.`, body = `Do ${name} things carefully.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.com', '-c', 'commit.gpgSign=false', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** A real local git repository holding skill folders (`files` maps repo paths to content); returns its path. */
export async function makeSkillSource(files: Record<string, FixtureFile | string>): Promise<{ dir: string; commit(files: Record<string, FixtureFile | string>, message?: string): Promise<string>; head(): string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-skill-src-'));
  git(dir, 'init', '-q', '-b', 'main');
  const commit = async (next: Record<string, FixtureFile | string>, message = 'skills'): Promise<string> => {
    for (const [path, spec] of Object.entries(next)) {
      const file = typeof spec === 'string' ? { content: spec } : spec;
      const full = join(dir, path);
      await mkdir(dirname(full), { recursive: true });
      if (file.link !== undefined) await symlink(file.link, full);
      else {
        await writeFile(full, file.content ?? '');
        if (file.mode) await chmod(full, file.mode);
      }
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  };
  await commit(files, 'initial');
  return { dir, commit, head: () => git(dir, 'rev-parse', 'HEAD') };
}
