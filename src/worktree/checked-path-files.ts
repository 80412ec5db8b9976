import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, posix, resolve as resolvePath } from 'node:path';
import { PathEscapeError } from './path-escape-error.js';
import { compareNames } from './confined-file-programs.js';
import { MAX_SYMLINK_HOPS } from './confined-resolve.js';
import { errnoError, errorCode } from './errno-error.js';
import { isInside } from './requested-path.js';
import { SKIPPED_DIRECTORIES, type WalkedFile } from './walked-file.js';
import type { WorktreeFiles } from './worktree-files.js';

/**
 * The real path of `path`, also for paths that do not exist yet: the longest existing prefix is
 * resolved with `realpath` and the missing tail appended. A dangling symlink is followed by hand,
 * because writing through it would create its target wherever it points.
 */
async function realpathAllowingMissing(path: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw errnoError('ELOOP', 'too many symbolic links encountered', path);
  let current = path;
  const tail: string[] = [];
  for (;;) {
    try {
      return join(await realpath(current), ...tail);
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    const entry = await lstat(current).catch(() => null);
    if (entry?.isSymbolicLink()) {
      const target = resolvePath(dirname(current), await readlink(current));
      return realpathAllowingMissing(join(target, ...tail), hops + 1);
    }
    const parent = dirname(current);
    if (parent === current) return join(current, ...tail);
    tail.unshift(basename(current));
    current = parent;
  }
}

/**
 * The fallback {@link WorktreeFiles} for systems without `/proc/self/fd` (macOS): each path is
 * resolved with `realpath`, checked to be under the root, and then opened by that string, the last
 * component with `O_NOFOLLOW` for writes. KNOWN LIMIT (SEC-4): a process that swaps a directory for
 * a symlink between the check and the open can win that race; on Linux `ConfinedFiles` is used
 * instead, and on macOS the agent's own processes run under Seatbelt.
 */
export class CheckedPathFiles implements WorktreeFiles {
  private readonly root: string;
  private realRootPromise: Promise<string> | undefined;

  constructor(root: string) {
    this.root = resolvePath(root);
  }

  private realRoot(): Promise<string> {
    this.realRootPromise ??= realpath(this.root);
    return this.realRootPromise;
  }

  async resolve(path: string): Promise<string> {
    if (typeof path !== 'string' || path.includes('\0')) throw new PathEscapeError(String(path), 'invalid');
    const realRoot = await this.realRoot();
    const absolute = isAbsolute(path) ? resolvePath(path) : resolvePath(this.root, path);
    if (!isInside(this.root, absolute) && !isInside(realRoot, absolute)) {
      throw new PathEscapeError(path, isAbsolute(path) ? 'absoluteOutside' : 'parentTraversal');
    }
    const real = await realpathAllowingMissing(absolute);
    if (!isInside(realRoot, real)) throw new PathEscapeError(path, 'symlinkOutside');
    return real;
  }

  async readFile(path: string): Promise<string> {
    const target = await this.resolve(path);
    // A FIFO or a device would block or never end; only regular files are read.
    const entry = await stat(target);
    if (!entry.isFile() && !entry.isDirectory()) throw errnoError('ENOTREG', 'not a regular file', path);
    return readFile(target, 'utf8');
  }

  async writeFile(path: string, content: string): Promise<void> {
    const target = await this.resolve(path);
    await mkdir(dirname(target), { recursive: true });
    const handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
    try {
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
  }

  async list(path: string): Promise<string[]> {
    const entries = await readdir(await this.resolve(path), { withFileTypes: true });
    return entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort(compareNames);
  }

  async exists(path: string): Promise<boolean> {
    const target = await this.resolve(path);
    try {
      await stat(target);
      return true;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw error;
    }
  }

  /** Depth first through {@link list}, so the path rule applies at each step; symlinks are never descended into. */
  async *walk(start: string, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
    const pending: string[] = [''];
    while (pending.length > 0) {
      if (signal?.aborted) return;
      const relativeDirectory = pending.shift() as string;
      const directory = relativeDirectory === '' ? start : posix.join(start, relativeDirectory);
      const entries = await this.list(directory);
      const subdirectories: string[] = [];
      for (const entry of entries) {
        const isDirectory = entry.endsWith('/');
        const name = isDirectory ? entry.slice(0, -1) : entry;
        if (SKIPPED_DIRECTORIES.has(name)) continue;
        const relativePath = relativeDirectory === '' ? name : `${relativeDirectory}/${name}`;
        if (isDirectory) {
          subdirectories.push(relativePath);
          continue;
        }
        const path = start === '.' ? relativePath : posix.join(start, relativePath);
        yield {
          path,
          relativePath,
          readText: async (maxBytes) => {
            const content = await this.readFile(path);
            return maxBytes !== undefined && Buffer.byteLength(content, 'utf8') > maxBytes ? null : content;
          },
        };
      }
      pending.unshift(...subdirectories);
    }
  }
}
