import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { WORKTREE_FILE_SIZE_CAP, type WorktreeFiles } from '../core/shell/worktree-files.js';

/** Reads nothing: for a worktree that cannot be resolved. */
const NO_FILES: WorktreeFiles = { read: () => null, exists: () => false };

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}${sep}`);
}

/** A path the classifier may ask for: relative, `/`-separated, without empty, `.` or `..` segments. */
function isPlainRelative(relativePath: string): boolean {
  if (relativePath === '' || relativePath.startsWith('/') || relativePath.includes('\0')) return false;
  return relativePath.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * The classifier's read-only view of one worktree (SEC-5): files are read confined to the worktree's
 * real path, so a symlink (in the last component or any directory above it) pointing outside reads as
 * `null` — the classifier then treats the code as unseen, never as something read elsewhere.
 *
 * How: the directory is resolved first and must be inside the root; the file is opened with
 * `O_NOFOLLOW` (a final symlink fails), `O_NONBLOCK` (a FIFO cannot stall the server) and `O_NOCTTY`;
 * the opened descriptor's own path (`/proc/self/fd/N`) must still be inside the root, so a directory
 * swapped for a symlink between the check and the open is caught; only regular files up to
 * {@link WORKTREE_FILE_SIZE_CAP} bytes are read. Without `/proc` (not Linux) nothing is read.
 *
 * Swap point: when the confined reader of the file tools (`readConfinedFile`) lands, `read` should
 * call it with the same size cap instead of this open-and-verify sequence.
 */
export function worktreeFileReader(worktreeRoot: string): WorktreeFiles {
  let root: string;
  try {
    root = realpathSync(worktreeRoot);
  } catch {
    return NO_FILES;
  }
  return {
    read(relativePath: string): string | null {
      if (!isPlainRelative(relativePath)) return null;
      const path = join(root, relativePath);
      let fd: number;
      try {
        if (!isInside(realpathSync(dirname(path)), root)) return null;
        fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
      } catch {
        return null;
      }
      try {
        if (!isInside(readlinkSync(`/proc/self/fd/${fd}`), root)) return null;
        const stat = fstatSync(fd);
        if (!stat.isFile() || stat.size > WORKTREE_FILE_SIZE_CAP) return null;
        // Sized from fstat; one spare byte notices a file that grew past the cap while being read.
        const buffer = Buffer.allocUnsafe(Math.min(stat.size, WORKTREE_FILE_SIZE_CAP) + 1);
        let length = 0;
        for (;;) {
          const count = readSync(fd, buffer, length, buffer.length - length, null);
          if (count === 0) break;
          length += count;
          if (length === buffer.length) return null;
        }
        return buffer.subarray(0, length).toString('utf8');
      } catch {
        return null;
      } finally {
        closeSync(fd);
      }
    },
    exists(relativePath: string): boolean {
      if (!isPlainRelative(relativePath)) return false;
      try {
        lstatSync(join(root, relativePath));
        return true;
      } catch {
        return false;
      }
    },
  };
}
