import { realpath, stat } from 'node:fs/promises';
import { ValidationError } from '../../errors/index.js';
import { tryGit } from '../../git/run-git.js';

/**
 * Refuses a space's `repoPath` unless it is the top-level directory of an existing git repository
 * with a working tree (finding 7 of the security issue; there is no operator allow-list of other
 * directories). git runs through {@link tryGit} with the path as its working directory, never as an
 * argument, so no value can be read as an option; an option-shaped value is refused before that
 * anyway. Errors are 400s naming `repoPath`.
 */
export async function assertRepositoryPath(repoPath: string): Promise<void> {
  // Said as a person reads it: the UI puts the field's label before it ("Repo path: the folder … does not exist").
  const refuse = (why: string) => new ValidationError('repoPath', `the folder ${JSON.stringify(repoPath)} ${why}`);
  if (repoPath.startsWith('-')) throw refuse('must not start with "-"');
  let real: string;
  try {
    real = await realpath(repoPath);
  } catch {
    throw refuse('does not exist');
  }
  if (!(await stat(real)).isDirectory()) throw refuse('is not a directory');
  const top = await tryGit(['rev-parse', '--show-toplevel'], { cwd: real }).catch(() => null);
  if (!top) throw refuse('is not a git repository with a working tree');
  const topReal = await realpath(top.stdout.trim()).catch(() => null);
  if (topReal !== real) throw refuse(`is inside the git repository ${JSON.stringify(top.stdout.trim())} but is not its top-level directory`);
}
