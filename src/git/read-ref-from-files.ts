import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { statOrNull } from '../worktree/stat-or-null.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Branch refs the server reads this way: `refs/heads/…` made of plain name characters, no `..`. */
const PLAIN_BRANCH = /^refs\/heads\/[A-Za-z0-9._/-]+$/;

/** True for a branch ref the server may read from files: `refs/heads/…` of plain name characters, no `..`, no `.lock`. */
export function isPlainBranchRef(ref: string): boolean {
  return PLAIN_BRANCH.test(ref) && !ref.includes('..') && !ref.endsWith('/') && !ref.endsWith('.lock');
}

/**
 * A branch's tip read from the files of a repository the server trusts (the user's repository,
 * never an agent's checkout), without starting git: the loose ref first, then `packed-refs`, as
 * git's files backend reads them. Returns null when the branch does not exist, and undefined
 * whenever only git can tell (a reftable repository, a symbolic or unreadable ref, an unusual name):
 * the caller then asks git. Spawning git costs the server tens of milliseconds of CPU per process
 * under load, and a tool turn reads this ref once per run.
 *
 * The reftable check and the loose ref are read synchronously (a stat and a read of at most 256 bytes,
 * a few microseconds, where a trip through libuv's thread pool costs tens of microseconds of CPU and
 * wakes two threads); the loose ref is opened non-blocking and must be a small regular
 * file, so nothing at that path can hold the event loop. `packed-refs`, megabytes in a large
 * repository, is read off the event loop.
 */
export async function readRefFromFiles(gitDir: string, ref: string): Promise<string | null | undefined> {
  if (!isPlainBranchRef(ref)) return undefined;
  if (statOrNull(join(gitDir, 'reftable'), 'follow')) return undefined;
  const loose = readLooseRef(join(gitDir, ref));
  if (loose !== 'missing') return loose !== null && SHA.test(loose) ? loose : undefined;
  let packed: string;
  try {
    packed = await readFile(join(gitDir, 'packed-refs'), 'utf8');
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? null : undefined;
  }
  for (const line of packed.split('\n')) {
    if (line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space < 0 || line.slice(space + 1).trimEnd() !== ref) continue;
    const sha = line.slice(0, space);
    return SHA.test(sha) ? sha : undefined;
  }
  return null;
}

/** A loose ref file is 41 or 65 bytes; anything much larger is not one. */
const MAX_LOOSE_REF_BYTES = 256;

/**
 * A loose ref file's text, trimmed; 'missing' when there is no file at `path`; null when what is there
 * is not a small regular file or cannot be read (a directory, a FIFO, a device…): git then decides.
 */
function readLooseRef(path: string): string | null | 'missing' {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? 'missing' : null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_LOOSE_REF_BYTES) return null;
    const buffer = Buffer.alloc(MAX_LOOSE_REF_BYTES);
    const length = readSync(fd, buffer, 0, MAX_LOOSE_REF_BYTES, 0);
    return buffer.toString('utf8', 0, length).trim();
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}


function errorCode(error: unknown): string | undefined {
  return error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}
