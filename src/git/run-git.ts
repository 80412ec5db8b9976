import { GitCommandError } from './git-command-error.js';
import { configEnvironment, hardenedGitArgs, hardenedGitEnvironment, mayRunConfiguredPrograms, patternedOverrides, pinTransportPrograms, type GitRepositoryTrust } from './git-hardening.js';
import { assertGitOperand } from './git-operand.js';
import { sharedSpawnHelper } from '../sandbox/spawn-helper.js';

export type { GitRepositoryTrust } from './git-hardening.js';

export interface RunGitOptions {
  cwd: string;
  /** Added to the environment (for example `GIT_INDEX_FILE` for a temporary index). Never `GIT_CONFIG_*`. */
  env?: Record<string, string>;
  /**
   * Values that come from outside the server's own code — refs, paths, URLs, names read from a
   * repository (SEC-2). They are appended after `--end-of-options`, so git never reads one as an
   * option, and each is refused beforehand if it starts with `-` or holds a control character.
   * `args` then holds only the server's literal subcommand and options.
   */
  operands?: readonly string[];
  /** Whose config the repository at `cwd` holds (default `agentWritable`); see {@link GitRepositoryTrust}. */
  trust?: GitRepositoryTrust;
  /**
   * Config the server itself sets for this one command, passed through `GIT_CONFIG_COUNT` (the
   * environment) rather than `-c`, because a value such as a forge's `http.extraHeader` carries a
   * credential that must not show on a command line other users can list (SEC-6).
   */
  secretConfig?: ReadonlyArray<readonly [string, string]>;
}

export interface GitOutput {
  stdout: string;
  stderr: string;
}

/** Output beyond this (per stream) fails the command, as execFile's maxBuffer did. */
const GIT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** The longest delay a Node timer takes: git's own bookkeeping has no timeout of its own. */
const NO_TIMEOUT_MS = 2_147_483_647;

/**
 * One git process, forked by the spawn helper rather than by the server (`sandbox/spawn-helper.ts`):
 * no shell, the given cwd and environment, and any failure — a non-zero exit, a signal, output over
 * the cap, a git that cannot start — as a {@link GitCommandError}.
 */
async function execGit(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, reported: readonly string[]): Promise<GitOutput> {
  const definedEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) definedEnv[name] = value;
  const result = await sharedSpawnHelper()
    .run({ command: 'git', args: [...args], cwd, env: definedEnv, detached: false, timeoutMs: NO_TIMEOUT_MS, killGraceMs: 0, drainMs: null, maxOutputBytes: GIT_MAX_OUTPUT_BYTES })
    .catch((error: unknown) => {
      throw new GitCommandError(reported, null, error instanceof Error ? error.message : String(error));
    });
  const stdout = result.stdout.toString('utf8');
  const stderr = result.stderr.toString('utf8');
  if (result.truncated) throw new GitCommandError(reported, null, `git printed more than ${GIT_MAX_OUTPUT_BYTES} bytes`);
  if (result.exitCode !== 0) throw new GitCommandError(reported, result.exitCode, stderr || `git ${result.signal ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`}`);
  return { stdout, stderr };
}

/**
 * Runs git the way the Control Center's own bookkeeping needs it (SEC-2): `execFile` (no shell), an
 * explicit `cwd`, no inherited `GIT_*` variables, no terminal prompts, outside values only as
 * operands after `--end-of-options`, transports limited by `GIT_ALLOW_PROTOCOL`, every config key
 * that names a program overridden, and the upload/receive-pack program pinned on the command line of
 * the subcommands that start one (`git-hardening.ts`). For an agent-writable repository (the
 * default) the effective config is listed first and each program-naming key with an agent-chosen
 * name (`filter.<x>.clean`, `diff.<x>.textconv`, …) is switched off for the command: an agent that
 * writes the config (or points `.git` at a config of its own) cannot make the server run a program.
 * Subcommands that never start such programs (`rev-parse`, `for-each-ref`, …) skip the listing.
 *
 * Known limit: the listing and the command are two processes; a config key added between them by a
 * process still running in the sandbox is not overridden. Conversation checkouts whose git metadata
 * the server alone records (SEC-3) are what makes that window irrelevant.
 */
export async function runGit(args: readonly string[], options: RunGitOptions): Promise<GitOutput> {
  const trust = options.trust ?? 'agentWritable';
  const operands = (options.operands ?? []).map((operand, index) => assertGitOperand(operand, `git operand ${index + 1}`));
  for (const name of Object.keys(options.env ?? {})) {
    if (name.startsWith('GIT_CONFIG')) throw new Error(`runGit: ${name} cannot be passed in env; config overrides are runGit's own`);
  }
  const base = hardenedGitEnvironment(process.env, trust);
  const prefix = hardenedGitArgs(trust);
  let overrides: Array<[string, string]> = [];
  if (trust === 'agentWritable' && mayRunConfiguredPrograms(args)) {
    const listed = await execGit([...prefix, 'config', '--list', '--name-only', '-z'], options.cwd, base, ['config', '--list', '--name-only']).catch((error: unknown) => {
      // Outside a repository (or with no config at all) there is nothing to override; any other
      // failure is fatal, because the command would run with an unknown config.
      if (error instanceof GitCommandError && error.exitCode === 1) return { stdout: '', stderr: '' };
      throw error;
    });
    overrides = patternedOverrides(listed.stdout.split('\0').filter(Boolean));
  }
  const env = { ...base, ...options.env, ...configEnvironment([...overrides, ...(options.secretConfig ?? [])]) };
  const fullArgs = [...prefix, ...pinTransportPrograms(args), ...(operands.length > 0 ? ['--end-of-options', ...operands] : [])];
  return execGit(fullArgs, options.cwd, env, [...args, ...operands]);
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
