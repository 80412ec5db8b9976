import { execFile } from 'node:child_process';
import { GitCommandError } from './git-command-error.js';

/** Variables that would point git at another repository or index than the one `cwd` names. */
const REPOSITORY_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

export interface RunGitOptions {
  cwd: string;
  /** Added to the environment (for example `GIT_INDEX_FILE` for a temporary index). */
  env?: Record<string, string>;
}

export interface GitOutput {
  stdout: string;
  stderr: string;
}

/**
 * Runs git the way the Control Center's own bookkeeping needs it: `execFile` (no shell), an explicit
 * `cwd`, no inherited repository variables, no terminal prompts, and hooks switched off. Hooks live in
 * the repository, which agents can write; running them here would execute agent-written code in the
 * server, outside every sandbox.
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitOutput> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete env[name];
  Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' }, options.env);
  // Agents can write the worktree (and, through it, config the repository reads): nothing git does
  // here may run a program they chose — no hooks, no fsmonitor, no pager, no external diff.
  const fullArgs = [
    '-c', 'core.hooksPath=/dev/null',
    '-c', 'core.fsmonitor=false',
    '-c', 'core.pager=cat',
    '-c', 'diff.external=',
    '--no-pager',
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile('git', fullArgs, { cwd: options.cwd, env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        const exitCode = typeof error.code === 'number' ? error.code : null;
        reject(new GitCommandError(args, exitCode, stderr || error.message));
        return;
      }
      resolve({ stdout, stderr });
    });
  });
}

/** Like {@link runGit} but returns `null` instead of throwing when git exits non-zero (for `--verify` probes). */
export async function tryGit(args: readonly string[], options: RunGitOptions): Promise<GitOutput | null> {
  try {
    return await runGit(args, options);
  } catch (error) {
    if (error instanceof GitCommandError && error.exitCode !== null) return null;
    throw error;
  }
}
