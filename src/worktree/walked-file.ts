/** One file met by a walk below a start directory (glob, grep). */
export interface WalkedFile {
  /** The path to hand back to the worktree (and to show): `start` joined with `relativePath`. */
  path: string;
  /** `/`-separated path below `start`, what glob patterns are matched against. */
  relativePath: string;
  /**
   * The file's content as UTF-8, or null when it is larger than `maxBytes`. Read through the
   * directory the walk holds, so it is the file the walk saw (SEC-4). Valid only until the walk
   * moves on to the next entry.
   */
  readText(maxBytes?: number): Promise<string | null>;
}

/** Directories a search never descends into: version-control internals and installed dependencies. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);
