import type { WalkedFile } from './walked-file.js';
import type { WorktreeOperations } from './worktree-operations.js';

export { SKIPPED_DIRECTORIES, type WalkedFile } from './walked-file.js';

/**
 * Every file below `start`, depth first in name order, `.git` and `node_modules` skipped; symlinks
 * are listed but never descended into. The worktree does the walking, so it can hold each directory
 * open while it descends (SEC-4) instead of resolving path strings again.
 */
export function walkFiles(worktree: WorktreeOperations, start: string, signal?: AbortSignal): AsyncIterable<WalkedFile> {
  return worktree.walk(start, signal);
}
