import type { WalkedFile } from './walked-file.js';

/**
 * File access inside one worktree, as the file tools need it (HAR-7, SEC-4). Every path is taken
 * relative to the root (an absolute path under the root is accepted) and refused with
 * `PathEscapeError` when it leaves the root, by `..`, by an absolute name, or through a symlink.
 */
export interface WorktreeFiles {
  /** Where the path lands, as an absolute path — for display only, never to be opened. */
  resolve(path: string): Promise<string>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string): Promise<void>;
  /** Entries of a directory, directories suffixed with `/`, sorted. */
  list(path: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
  /** Every file below a directory, depth first in name order, `.git` and `node_modules` skipped. */
  walk(start: string, signal?: AbortSignal): AsyncIterable<WalkedFile>;
}
