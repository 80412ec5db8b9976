import { isAbsolute, relative, resolve as resolvePath, sep } from 'node:path';
import { PathEscapeError } from './path-escape-error.js';

/** True when `child` is `parent` or below it. Works for a root of `/` too. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The components of a path a tool asked for, relative to the worktree root, with `.` and `..`
 * folded lexically (HAR-7). A relative path is taken from `root`; an absolute one must name a place
 * under `root` or under `realRoot` (the same directory with its own symlinks resolved). A path that
 * climbs out, names an absolute place outside, or holds a NUL byte is refused here, before any file
 * is touched. Symlinks are not looked at: that is the resolver's job.
 */
export function requestedComponents(root: string, realRoot: string, path: string): string[] {
  if (typeof path !== 'string' || path.includes('\0')) throw new PathEscapeError(String(path), 'invalid');
  const absolute = isAbsolute(path) ? resolvePath(path) : resolvePath(root, path);
  let rel: string;
  if (isInside(root, absolute)) rel = relative(root, absolute);
  else if (isInside(realRoot, absolute)) rel = relative(realRoot, absolute);
  else throw new PathEscapeError(path, isAbsolute(path) ? 'absoluteOutside' : 'parentTraversal');
  return rel.split(sep).filter((component) => component !== '');
}
