import { constants } from 'node:fs';
import { isAbsolute } from 'node:path';
import { PathEscapeError } from './path-escape-error.js';
import { fdPath, type Stats, type SyscallProgram } from './confined-syscalls.js';
import { errnoError, errorCode } from './errno-error.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/** Symlink hops allowed while resolving one path (Linux's own limit is 40). */
export const MAX_SYMLINK_HOPS = 40;
/** How often a missing directory is created again when something keeps removing it under us. */
const MAX_CREATE_RETRIES = 8;

/** The directory every resolution starts from, and the absolute names a symlink may use for it. */
export interface ConfinedRoot {
  /** The root with its own symlinks resolved; opened by this path (its ancestors are server-owned). */
  realPath: string;
  /** Absolute prefixes that name the root (the configured path and the real one). */
  aliases: readonly string[];
}

/** What the last component of the path is used for. */
export type FinalStep =
  /** Open it with these flags (`O_NOFOLLOW` is added); a symlink there is followed, confined. */
  | { kind: 'open'; flags: number; mode?: number }
  /** Stop at its parent directory; a symlink there is followed, confined, unless `followLast` is false. */
  | { kind: 'parent'; followLast: boolean };

export interface ResolveOptions {
  /** The path as the tool received it, for error messages. */
  requestedPath: string;
  final: FinalStep;
  /**
   * A missing intermediate directory: `fail` with ENOENT, `create` it (mkdir -p, for writes), or
   * `report` it (stop there and hand back the unresolved rest, for display only).
   */
  onMissing: 'fail' | 'create' | 'report';
}

export interface Resolved {
  /** `open`: the opened final component. `parent`: the directory holding `name` (or the directory itself when `name` is null). The caller closes it. */
  fd: number;
  /** The last component's name inside `fd`; null when the path names a directory reached without one (the root, `x/..`). */
  name: string | null;
  /** Names from the root down to the directory `fd` (for `parent`) or holding the opened file (for `open`). */
  segments: string[];
  /** With `onMissing: 'report'`: the components from the first missing directory on, unresolved. */
  unresolved: string[];
}

interface Frame {
  fd: number;
  name: string;
}

/** True for the codes an `O_NOFOLLOW` open gives when the name is a symlink (or, for directories, not one). */
function maybeSymlink(code: string | undefined): boolean {
  return code === 'ELOOP' || code === 'ENOTDIR';
}

/**
 * Resolves `components` below the root one name at a time, holding a descriptor for every directory
 * on the way (SEC-4). Each name is looked up through `/proc/self/fd/<dirfd>/<name>` with
 * `O_NOFOLLOW`, so it is found in the directory already opened — a parent swapped for a symlink after
 * it was opened changes nothing, and no symlink is ever followed by the kernel.
 *
 * Symlinks met on the way are read and followed here, confined like `openat2(RESOLVE_IN_ROOT)` but
 * stricter: a relative target continues from the link's directory, `..` pops a descriptor this
 * resolution holds (never the kernel's `..`), an absolute target is allowed only when it names a
 * place under the root by one of its {@link ConfinedRoot.aliases}, and a target that climbs above
 * the root or names anything else is refused with {@link PathEscapeError} (`symlinkOutside`). At
 * most {@link MAX_SYMLINK_HOPS} links per resolution, then ELOOP.
 */
export function* resolveConfined(root: ConfinedRoot, components: readonly string[], options: ResolveOptions): SyscallProgram<Resolved> {
  const rootFd = (yield { op: 'open', path: root.realPath, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW }) as number;
  const stack: Frame[] = [{ fd: rootFd, name: '' }];
  const queue = [...components];
  let hops = 0;
  let createRetries = 0;
  let kept = -1;
  const segments = (): string[] => stack.slice(1).map((frame) => frame.name);

  /** Puts a symlink's target in front of what is left to resolve; returns how many frames to pop first. */
  const followTarget = (target: string): number => {
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) throw errnoError('ELOOP', 'too many symbolic links encountered', options.requestedPath);
    let rest = target;
    let popAll = false;
    if (isAbsolute(target)) {
      const alias = root.aliases.find((prefix) => target === prefix || target.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
      if (alias === undefined) throw new PathEscapeError(options.requestedPath, 'symlinkOutside');
      rest = target.slice(alias.length);
      popAll = true;
    }
    queue.unshift(...rest.split('/'));
    return popAll ? stack.length - 1 : 0;
  };

  try {
    while (queue.length > 0) {
      const name = queue.shift() as string;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        // Only a symlink's target can bring `..` here: the requested path was folded lexically.
        if (stack.length === 1) throw new PathEscapeError(options.requestedPath, 'symlinkOutside');
        yield { op: 'close', fd: (stack.pop() as Frame).fd };
        continue;
      }
      const top = stack[stack.length - 1] as Frame;
      const path = fdPath(top.fd, name);
      const isLast = queue.every((rest) => rest === '' || rest === '.');
      let popCount = -1;

      if (!isLast) {
        try {
          const fd = (yield { op: 'open', path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW }) as number;
          stack.push({ fd, name });
          continue;
        } catch (error) {
          const code = errorCode(error);
          if (code === 'ENOENT' && options.onMissing === 'report') {
            kept = top.fd;
            return { fd: top.fd, name: null, segments: segments(), unresolved: [name, ...queue].filter((rest) => rest !== '' && rest !== '.') };
          }
          if (code === 'ENOENT' && options.onMissing === 'create' && createRetries < MAX_CREATE_RETRIES) {
            createRetries += 1;
            try {
              // mkdir does not follow its last component either: a symlink there is EEXIST, and the
              // next open (O_NOFOLLOW) finds it and follows it confined.
              yield { op: 'mkdir', path };
            } catch (mkdirError) {
              if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
            }
            queue.unshift(name);
            continue;
          }
          if (!maybeSymlink(code)) throw error;
          const target = yield* readTarget(path);
          if (target === null) throw error;
          popCount = followTarget(target);
        }
      } else if (options.final.kind === 'open') {
        try {
          const fd = (yield { op: 'open', path, flags: options.final.flags | O_NOFOLLOW, mode: options.final.mode }) as number;
          kept = fd;
          return { fd, name, segments: segments(), unresolved: [] };
        } catch (error) {
          if (!maybeSymlink(errorCode(error))) throw error;
          const target = yield* readTarget(path);
          if (target === null) throw error;
          popCount = followTarget(target);
        }
      } else {
        let entry: Stats | null = null;
        if (options.final.followLast) {
          try {
            entry = (yield { op: 'lstat', path }) as Stats;
          } catch (error) {
            const code = errorCode(error);
            if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
          }
        }
        if (entry === null || !entry.isSymbolicLink()) {
          kept = top.fd;
          return { fd: top.fd, name, segments: segments(), unresolved: [] };
        }
        const target = yield* readTarget(path);
        // Swapped back to a plain entry between lstat and readlink: take it as it is now.
        if (target === null) {
          kept = top.fd;
          return { fd: top.fd, name, segments: segments(), unresolved: [] };
        }
        popCount = followTarget(target);
      }
      for (let index = 0; index < popCount; index += 1) yield { op: 'close', fd: (stack.pop() as Frame).fd };
    }

    // The path ends at a directory this resolution already holds (the root, or after `..`).
    const top = stack[stack.length - 1] as Frame;
    if (options.final.kind === 'open') {
      // Re-opening the held directory through its own descriptor cannot land anywhere else.
      const fd = (yield { op: 'open', path: fdPath(top.fd), flags: options.final.flags, mode: options.final.mode }) as number;
      kept = fd;
      return { fd, name: null, segments: segments(), unresolved: [] };
    }
    kept = top.fd;
    return { fd: top.fd, name: null, segments: segments(), unresolved: [] };
  } finally {
    for (const frame of stack) if (frame.fd !== kept) yield { op: 'close', fd: frame.fd };
  }
}

/** The target of the symlink at `path`, or null when it is not a symlink (any more). */
function* readTarget(path: string): SyscallProgram<string | null> {
  try {
    return (yield { op: 'readlink', path }) as string;
  } catch (error) {
    if (errorCode(error) === 'EINVAL' || errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}
