import {
  closeSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  close as closeCallback,
  open as openCallback,
  fchmod as fchmodCallback,
  fstat as fstatCallback,
  read as readCallback,
  write as writeCallback,
  type Dirent,
  type Stats,
} from 'node:fs';
import { lstat, mkdir, readdir, readlink, rename, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';

/**
 * One file-system call of a confined resolution, as data. The resolution algorithms are written once,
 * as generators that yield these and receive the result (or the thrown errno error); {@link runSync}
 * and {@link runAsync} perform them. So the synchronous variant (for the shell classifier, SEC-5) and
 * the asynchronous one (for the file tools, SEC-4) cannot drift apart.
 *
 * Every `path` here is a `/proc/self/fd/<dirfd>/<name>` path from {@link fdPath}: the kernel looks
 * `name` up in the directory the descriptor holds, whatever that directory is called now.
 */
export type Syscall =
  | { op: 'open'; path: string; flags: number; mode?: number }
  | { op: 'close'; fd: number }
  | { op: 'readlink'; path: string }
  | { op: 'lstat'; path: string }
  | { op: 'fstat'; fd: number }
  | { op: 'mkdir'; path: string }
  /** Entries with their types (`d_type`), unsorted. */
  | { op: 'readdir'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'unlink'; path: string }
  | { op: 'fchmod'; fd: number; mode: number }
  /** Reads into `buffer` at `offset`, up to its end, from the current file position; resolves to the byte count. */
  | { op: 'read'; fd: number; buffer: Buffer; offset: number }
  /** Writes the whole buffer. */
  | { op: 'write'; fd: number; data: Buffer };

/** A confined operation: yields syscalls, receives their results, returns `T`. */
export type SyscallProgram<T> = Generator<Syscall, T, unknown>;

/** The path through which `name` inside the directory held by `dirFd` is opened, pinned to that directory. */
export function fdPath(dirFd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${dirFd}` : `/proc/self/fd/${dirFd}/${name}`;
}

const openAsync = promisify(openCallback) as (path: string, flags: number, mode?: number) => Promise<number>;
const fstatAsync = promisify(fstatCallback);
const closeAsync = promisify(closeCallback);
const fchmodAsync = promisify(fchmodCallback);
const readAsync = promisify(readCallback);
const writeAsync = promisify(writeCallback);

function performSync(call: Syscall): unknown {
  switch (call.op) {
    case 'open':
      return openSync(call.path, call.flags, call.mode);
    case 'close':
      try {
        closeSync(call.fd);
      } catch {
        // A close that fails leaves nothing to undo; the resolution's own result stands.
      }
      return undefined;
    case 'readlink':
      return readlinkSync(call.path);
    case 'lstat':
      return lstatSync(call.path);
    case 'fstat':
      return fstatSync(call.fd);
    case 'mkdir':
      return mkdirSync(call.path, 0o777);
    case 'readdir':
      return readdirSync(call.path, { withFileTypes: true });
    case 'rename':
      return renameSync(call.from, call.to);
    case 'unlink':
      return unlinkSync(call.path);
    case 'fchmod':
      return fchmodSync(call.fd, call.mode);
    case 'read':
      return readSync(call.fd, call.buffer, call.offset, call.buffer.length - call.offset, null);
    case 'write': {
      let offset = 0;
      while (offset < call.data.length) offset += writeSync(call.fd, call.data, offset, call.data.length - offset);
      return undefined;
    }
  }
}

/** Performs one call on libuv's thread pool (for code that needs a single call, not a program). */
export async function performAsync(call: Syscall): Promise<unknown> {
  switch (call.op) {
    case 'open':
      // Not fs.promises.open: its FileHandle closes the descriptor when garbage-collected, under the program's feet.
      return openAsync(call.path, call.flags, call.mode);
    case 'close':
      await closeAsync(call.fd).catch(() => undefined);
      return undefined;
    case 'readlink':
      return readlink(call.path);
    case 'lstat':
      return lstat(call.path);
    case 'fstat':
      return fstatAsync(call.fd);
    case 'mkdir':
      return mkdir(call.path, 0o777);
    case 'readdir':
      return readdir(call.path, { withFileTypes: true });
    case 'rename':
      return rename(call.from, call.to);
    case 'unlink':
      return unlink(call.path);
    case 'fchmod':
      return fchmodAsync(call.fd, call.mode);
    case 'read':
      return (await readAsync(call.fd, call.buffer, call.offset, call.buffer.length - call.offset, null)).bytesRead;
    case 'write': {
      let offset = 0;
      while (offset < call.data.length) offset += (await writeAsync(call.fd, call.data, offset, call.data.length - offset)).bytesWritten;
      return undefined;
    }
  }
}

/** Runs a program with blocking calls (short metadata operations; for callers that cannot await). */
export function runSync<T>(program: SyscallProgram<T>): T {
  let step = program.next();
  while (!step.done) {
    let result: unknown;
    let failure: { error: unknown } | undefined;
    try {
      result = performSync(step.value);
    } catch (error) {
      failure = { error };
    }
    step = failure ? program.throw(failure.error) : program.next(result);
  }
  return step.value;
}

/** Runs a program on libuv's thread pool, one call at a time. */
export async function runAsync<T>(program: SyscallProgram<T>): Promise<T> {
  let step = program.next();
  while (!step.done) {
    let result: unknown;
    let failure: { error: unknown } | undefined;
    if (step.value.op === 'close') {
      // Nothing waits on a close: the program never uses the descriptor again, and each awaited
      // round trip through the thread pool is what a resolution costs.
      closeCallback(step.value.fd, () => undefined);
      step = program.next(undefined);
      continue;
    }
    try {
      result = await performAsync(step.value);
    } catch (error) {
      failure = { error };
    }
    step = failure ? program.throw(failure.error) : program.next(result);
  }
  return step.value;
}

export type { Dirent, Stats };
