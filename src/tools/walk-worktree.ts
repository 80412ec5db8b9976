import { posix } from 'node:path';
import type { WorktreeOperations } from './worktree-operations.js';

/** Directories a search never descends into: version-control internals and installed dependencies. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export interface WalkedFile {
  /** The path to hand back to the worktree (and to show): `start` joined with `relativePath`. */
  path: string;
  /** `/`-separated path below `start`, what glob patterns are matched against. */
  relativePath: string;
}

/**
 * Every file below `start`, depth first in name order, through {@link WorktreeOperations.list} so the
 * path rules apply at each step. Symlinks are listed but never descended into (no loops, no way out),
 * and `.git` and `node_modules` are skipped.
 */
export async function* walkFiles(worktree: WorktreeOperations, start: string, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
  const pending: string[] = [''];
  while (pending.length > 0) {
    if (signal?.aborted) return;
    const relativeDirectory = pending.shift() as string;
    const directory = relativeDirectory === '' ? start : posix.join(start, relativeDirectory);
    const entries = await worktree.list(directory);
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const isDirectory = entry.endsWith('/');
      const name = isDirectory ? entry.slice(0, -1) : entry;
      if (SKIPPED_DIRECTORIES.has(name)) continue;
      const relativePath = relativeDirectory === '' ? name : `${relativeDirectory}/${name}`;
      if (isDirectory) subdirectories.push(relativePath);
      else yield { path: posix.join(start, relativePath), relativePath };
    }
    // Depth first: this directory's subdirectories come before its siblings' contents.
    pending.unshift(...subdirectories);
  }
}
