/**
 * File and process access inside one conversation's worktree (HAR-7). Every path is resolved
 * against the worktree root and refused when it leaves it: `..` that climbs out, absolute paths
 * outside the root (an absolute path inside it is fine), and symlinks whose target is outside.
 * Implementations: the real file system (`NodeWorktree`), and any test double.
 */
export interface WorktreeOperations {
  /** Absolute path of the worktree root. */
  readonly root: string;
  /** Resolves a worktree-relative path to an absolute one, or throws PathEscapeError. */
  resolve(path: string): Promise<string>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string): Promise<void>;
  /** Entries of a directory, directories suffixed with `/`. */
  list(path: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
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
}
