import { constants } from 'node:fs';
import { posix } from 'node:path';
import { compareNames, readConfinedProgram, readOpenedFile } from './confined-file-programs.js';
import { resolveConfined, type ConfinedRoot } from './confined-resolve.js';
import { fdPath, performAsync, runAsync, type Dirent, type Stats } from './confined-syscalls.js';
import { errorCode } from './errno-error.js';
import { SKIPPED_DIRECTORIES, type WalkedFile } from './walked-file.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * Deepest directory level a walk descends to. The walk holds one descriptor per level, so this also
 * bounds the descriptors one search keeps open; deeper directories are skipped.
 */
export const MAX_WALK_DEPTH = 256;

type EntryKind = 'directory' | 'file' | 'symlink' | 'other';

async function kindOf(dirFd: number, entry: Dirent): Promise<EntryKind> {
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) return 'other';
  // DT_UNKNOWN (some file systems): ask, without following.
  try {
    const stats = (await performAsync({ op: 'lstat', path: fdPath(dirFd, entry.name) })) as Stats;
    return stats.isDirectory() ? 'directory' : stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * Every file below `startComponents`, depth first in name order (a directory's files, then its
 * subdirectories), `.git` and `node_modules` skipped (SEC-4). The walk descends by opening each
 * subdirectory through the descriptor of its parent with `O_DIRECTORY|O_NOFOLLOW`: a directory
 * swapped for a symlink between listing and descending is skipped, never followed, and no path
 * string is resolved again. Symlinks are yielded as files; reading one follows it confined to the
 * root, like `read` does.
 */
export async function* walkConfined(root: ConfinedRoot, startComponents: readonly string[], start: string, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
  const { fd } = await runAsync(resolveConfined(root, startComponents, { requestedPath: start, onMissing: 'fail', final: { kind: 'open', flags: O_RDONLY | O_DIRECTORY } }));
  try {
    yield* walkDirectory(root, fd, [...startComponents], start, '', 0, signal);
  } finally {
    await performAsync({ op: 'close', fd });
  }
}

async function* walkDirectory(
  root: ConfinedRoot,
  dirFd: number,
  components: string[],
  start: string,
  relativeDirectory: string,
  depth: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<WalkedFile> {
  if (signal?.aborted) return;
  const entries = (await performAsync({ op: 'readdir', path: fdPath(dirFd) })) as Dirent[];
  const files: Array<{ name: string; kind: EntryKind }> = [];
  const subdirectories: string[] = [];
  for (const entry of entries) {
    if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
    const kind = await kindOf(dirFd, entry);
    if (kind === 'directory') subdirectories.push(entry.name);
    else files.push({ name: entry.name, kind });
  }
  // The order `list` shows (directories with their `/`), so results read like the listing.
  files.sort((a, b) => compareNames(a.name, b.name));
  subdirectories.sort((a, b) => compareNames(`${a}/`, `${b}/`));

  for (const file of files) {
    if (signal?.aborted) return;
    const relativePath = relativeDirectory === '' ? file.name : `${relativeDirectory}/${file.name}`;
    const path = start === '.' ? relativePath : posix.join(start, relativePath);
    yield {
      path,
      relativePath,
      readText: async (maxBytes) => {
        let content: Buffer | null;
        if (file.kind === 'symlink') {
          content = await runAsync(readConfinedProgram(root, [...components, file.name], path, maxBytes));
        } else {
          content = await runAsync(
            (function* () {
              const fileFd = (yield { op: 'open', path: fdPath(dirFd, file.name), flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK }) as number;
              return yield* readOpenedFile(fileFd, path, maxBytes);
            })(),
          );
        }
        return content === null ? null : content.toString('utf8');
      },
    };
  }

  if (depth + 1 >= MAX_WALK_DEPTH) return;
  for (const name of subdirectories) {
    if (signal?.aborted) return;
    let childFd: number;
    try {
      childFd = (await performAsync({ op: 'open', path: fdPath(dirFd, name), flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW })) as number;
    } catch (error) {
      // Gone, or no longer a directory (swapped for a symlink or a file): not part of the tree now.
      if (errorCode(error) !== undefined) continue;
      throw error;
    }
    try {
      const relativePath = relativeDirectory === '' ? name : `${relativeDirectory}/${name}`;
      yield* walkDirectory(root, childFd, [...components, name], start, relativePath, depth + 1, signal);
    } finally {
      await performAsync({ op: 'close', fd: childFd });
    }
  }
}
