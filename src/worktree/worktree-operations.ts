import type { WalkedFile } from './walked-file.js';

/**
 * File and process access inside one conversation's worktree (HAR-7). Every path is resolved
 * against the worktree root and refused when it leaves it: `..` that climbs out, absolute paths
 * outside the root (an absolute path inside it is fine), and symlinks whose target is outside —
 * also when another process swaps directories and symlinks while the call runs (SEC-4).
 * Implementations: the real file system (`NodeWorktree`), and any test double.
 */
export interface WorktreeOperations {
  /** Absolute path of the worktree root. */
  readonly root: string;
  /** Where a worktree-relative path lands, as an absolute path, or PathEscapeError. For display only: never open it. */
  resolve(path: string): Promise<string>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string): Promise<void>;
  /** Entries of a directory, directories suffixed with `/`. */
  list(path: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
  /** Every file below a directory, depth first in name order, `.git` and `node_modules` skipped, symlinked directories not entered. */
  walk(start: string, signal?: AbortSignal): AsyncIterable<WalkedFile>;
  /** Runs a shell command with the worktree as cwd; output is capped, the process killed on timeout/abort. */
  exec(command: string, options: { timeoutMs: number; maxOutputBytes: number; signal: AbortSignal; env?: Record<string, string> }): Promise<ExecResult>;
}

export interface ExecResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  /** True when the caller's signal stopped the command (the run was cancelled). */
  aborted?: boolean;
  /** The resource limit (SEC-11) the command reached, for which it and everything it started were stopped. */
  limitReached?: string;
}
