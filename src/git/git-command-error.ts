/**
 * A git command the Control Center ran failed. An infrastructure failure (convention 5), so it is
 * thrown, with the arguments, exit code and stderr kept for the log.
 */
export class GitCommandError extends Error {
  readonly code = 'git_failed';
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;
  /** What git printed before it failed: some commands answer on stdout with a non-zero exit (`merge-tree` lists conflicts). */
  readonly stdout: string;

  constructor(args: readonly string[], exitCode: number | null, stderr: string, stdout = '') {
    super(`git ${args.join(' ')} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no message'}`);
    this.name = 'GitCommandError';
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
    this.stdout = stdout;
  }
}
