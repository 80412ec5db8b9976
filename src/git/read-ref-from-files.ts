import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

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
 * Synchronous: a stat and one or two reads of a small file, a few microseconds each, where a trip
 * through libuv's thread pool costs tens of microseconds of CPU and wakes two threads (issue 11).
 */
export function readRefFromFiles(gitDir: string, ref: string): string | null | undefined {
  if (!isPlainBranchRef(ref)) return undefined;
  if (exists(join(gitDir, 'reftable'))) return undefined;
  try {
    const loose = readFileSync(join(gitDir, ref), 'utf8').trim();
    return SHA.test(loose) ? loose : undefined;
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') return undefined;
  }
  let packed: string;
  try {
    packed = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
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

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function errorCode(error: unknown): string | undefined {
  return error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}
