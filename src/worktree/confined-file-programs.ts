import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { resolveConfined, type ConfinedRoot } from './confined-resolve.js';
import { fdPath, type Dirent, type Stats, type SyscallProgram } from './confined-syscalls.js';
import { errnoError, errorCode } from './errno-error.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

/** Smallest buffer added when a file grows while it is read. */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Reads the file already opened as `fd` and closes it. Refuses a directory (EISDIR) and anything that
 * is not a regular file (ENOTREG: a FIFO or a device would block the server or never end). With
 * `maxBytes`, a larger file gives null instead of its content.
 */
export function* readOpenedFile(fd: number, requestedPath: string, maxBytes?: number): SyscallProgram<Buffer | null> {
  try {
    const entry = (yield { op: 'fstat', fd }) as Stats;
    if (entry.isDirectory()) throw errnoError('EISDIR', 'illegal operation on a directory', requestedPath);
    if (!entry.isFile()) throw errnoError('ENOTREG', 'not a regular file', requestedPath);
    if (maxBytes !== undefined && entry.size > maxBytes) return null;
    // One byte more than the size: a regular file's read comes back short only at its end, so a
    // file that did not change is read in one call.
    let buffer = Buffer.allocUnsafe(entry.size + 1);
    let total = 0;
    for (;;) {
      const bytes = (yield { op: 'read', fd, buffer, offset: total }) as number;
      total += bytes;
      if (maxBytes !== undefined && total > maxBytes) return null;
      if (bytes === 0 || total < buffer.length) break;
      // It grew while we read: make room and go on until the end.
      const larger = Buffer.allocUnsafe(Math.max(buffer.length * 2, READ_CHUNK_BYTES));
      buffer.copy(larger, 0, 0, total);
      buffer = larger;
    }
    return buffer.subarray(0, total);
  } finally {
    yield { op: 'close', fd };
  }
}

/** Reads a regular file below the root (SEC-4); see {@link readOpenedFile} for what is refused. */
export function* readConfinedProgram(root: ConfinedRoot, components: readonly string[], requestedPath: string, maxBytes?: number): SyscallProgram<Buffer | null> {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused right after, by fstat.
  const { fd } = yield* resolveConfined(root, components, { requestedPath, onMissing: 'fail', final: { kind: 'open', flags: O_RDONLY | O_NONBLOCK } });
  return yield* readOpenedFile(fd, requestedPath, maxBytes);
}

/** A name for the temporary file of an atomic write; short, so a long target name still fits. */
function temporaryName(): string {
  return `.cc-write-${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Replaces (or creates) a file below the root atomically (SEC-4): missing parent directories are
 * created one by one through held descriptors, the content goes to a new temporary file created
 * with `O_CREAT|O_EXCL|O_NOFOLLOW` in the resolved parent directory, and that file is renamed over
 * the name. Nothing is ever written through an existing inode, so neither a symlink nor a hard link
 * at the name can carry the write elsewhere; a symlink at the name that stays inside is followed
 * (confined) and its target replaced. An existing file keeps its permission bits; one without the
 * owner's write bit is refused (EACCES) as an in-place write would be.
 */
export function* writeConfinedProgram(root: ConfinedRoot, components: readonly string[], requestedPath: string, data: Buffer): SyscallProgram<{ created: boolean }> {
  const { fd: dirFd, name } = yield* resolveConfined(root, components, { requestedPath, onMissing: 'create', final: { kind: 'parent', followLast: true } });
  try {
    if (name === null) throw errnoError('EISDIR', 'illegal operation on a directory', requestedPath);
    let existingMode: number | null = null;
    try {
      const entry = (yield { op: 'lstat', path: fdPath(dirFd, name) }) as Stats;
      if (entry.isDirectory()) throw errnoError('EISDIR', 'illegal operation on a directory', requestedPath);
      if (!entry.isFile()) throw errnoError('ENOTREG', 'not a regular file', requestedPath);
      if ((entry.mode & 0o200) === 0) throw errnoError('EACCES', 'permission denied', requestedPath);
      existingMode = entry.mode & 0o7777;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    const temporary = temporaryName();
    const temporaryPath = fdPath(dirFd, temporary);
    const fileFd = (yield { op: 'open', path: temporaryPath, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o666 }) as number;
    try {
      try {
        yield { op: 'write', fd: fileFd, data };
        if (existingMode !== null) yield { op: 'fchmod', fd: fileFd, mode: existingMode };
      } finally {
        yield { op: 'close', fd: fileFd };
      }
      // rename(2) does not follow its last components; both are looked up in the held directory.
      yield { op: 'rename', from: temporaryPath, to: fdPath(dirFd, name) };
    } catch (error) {
      try {
        yield { op: 'unlink', path: temporaryPath };
      } catch {
        // Already gone; nothing to clean.
      }
      throw error;
    }
    return { created: existingMode === null };
  } finally {
    yield { op: 'close', fd: dirFd };
  }
}

/** The entries of a directory below the root, directories suffixed with `/`, sorted (symlinks are listed as names, not followed). */
export function* listConfinedProgram(root: ConfinedRoot, components: readonly string[], requestedPath: string): SyscallProgram<string[]> {
  const { fd } = yield* resolveConfined(root, components, { requestedPath, onMissing: 'fail', final: { kind: 'open', flags: O_RDONLY | O_DIRECTORY } });
  try {
    const entries = (yield { op: 'readdir', path: fdPath(fd) }) as Dirent[];
    return entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort(compareNames);
  } finally {
    yield { op: 'close', fd };
  }
}

/** Whether the path names something below the root (a symlink there is followed, confined). */
export function* existsConfinedProgram(root: ConfinedRoot, components: readonly string[], requestedPath: string): SyscallProgram<boolean> {
  let resolved;
  try {
    resolved = yield* resolveConfined(root, components, { requestedPath, onMissing: 'fail', final: { kind: 'parent', followLast: true } });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
  try {
    if (resolved.name === null) return true;
    yield { op: 'lstat', path: fdPath(resolved.fd, resolved.name) };
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  } finally {
    yield { op: 'close', fd: resolved.fd };
  }
}

/**
 * Where the path lands below the root, as names (for display and messages only: the returned string
 * is never opened). Missing directories are reported as they were asked for.
 */
export function* locateConfinedProgram(root: ConfinedRoot, components: readonly string[], requestedPath: string): SyscallProgram<string[]> {
  const resolved = yield* resolveConfined(root, components, { requestedPath, onMissing: 'report', final: { kind: 'parent', followLast: true } });
  yield { op: 'close', fd: resolved.fd };
  return [...resolved.segments, ...(resolved.name === null ? [] : [resolved.name]), ...resolved.unresolved];
}

/** Byte order of names, as `ls` in the C locale; shared by list and the walk. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
