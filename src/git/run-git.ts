import { GitCommandError } from './git-command-error.js';
import { configEnvironment, hardenedGitArgs, hardenedGitEnvironment, mayRunConfiguredPrograms, patternedOverrides, pinTransportPrograms, type GitRepositoryTrust } from './git-hardening.js';
import { assertGitOperand } from './git-operand.js';
import { limitedLaunchArguments } from '../sandbox/bubblewrap-sandbox.js';
import { runWithinLimits } from '../sandbox/limited-run.js';
import { LaunchCgroup } from '../sandbox/process-cgroup.js';
import { COMMAND_CPU_SECONDS, processLimits, type ProcessLimits } from '../sandbox/process-limits.js';
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
  /** Longest the command may run (default {@link GIT_TIMEOUT_MS}); then it is killed with every process it started. */
  timeoutMs?: number;
  /**
   * Runs the command within SEC-11's process limits, in a cgroup of its own (overrides of
   * `DEFAULT_PROCESS_LIMITS`; CPU time defaults to {@link COMMAND_CPU_SECONDS}): for git that reads
   * from a source the server does not control (a URL an operator typed), whose pack, deltas and
   * helpers must not take the host's disk or memory. `fileSizeBytes` then bounds the pack it writes.
   */
  limits?: Partial<ProcessLimits>;
}

export interface GitOutput {
  stdout: string;
  stderr: string;
}

/** Output beyond this (per stream) fails the command, as execFile's maxBuffer did. */
const GIT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/**
 * Longest a server-side git command may take unless its caller says otherwise (SEC-11): generous
 * for bookkeeping in a large repository, and a bound on a fetch from a server that accepts the
 * connection and never answers, which git itself would wait on for ever.
 */
export const GIT_TIMEOUT_MS = 10 * 60_000;

/** What bounds one command: its timeout, and its process limits when its caller gave some. */
interface ExecBounds {
  timeoutMs: number;
  limits: ProcessLimits | null;
}

/** For messages: 120000 → "120 s", 1500 → "1500 ms". */
export function formatTimeout(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * One git process, forked by the spawn helper rather than by the server (`sandbox/spawn-helper.ts`):
 * no shell reads its arguments (a limited command starts through a fixed `sh` script that execs
 * `"$@"`), the given cwd and environment, and any failure — a non-zero exit, a signal, output over
 * the cap, the timeout, a limit, a git that cannot start — as a {@link GitCommandError}.
 */
async function execGit(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, reported: readonly string[], bounds: ExecBounds): Promise<GitOutput> {
  const definedEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) definedEnv[name] = value;
  const cgroup = bounds.limits ? await LaunchCgroup.create(bounds.limits) : null;
  // Limited: a `sh` joins the cgroup and sets the rlimits before it becomes git, as sandbox launches do.
  const launch = bounds.limits ? { command: '/bin/sh', args: limitedLaunchArguments(bounds.limits, cgroup?.procsFiles ?? [], 'git', args) } : { command: 'git', args: [...args] };
  const result = await runWithinLimits(
    sharedSpawnHelper(),
    // Its own process group: the timeout kills git's helpers (remote-https, index-pack) with it.
    { ...launch, cwd, env: definedEnv, detached: true, timeoutMs: bounds.timeoutMs, killGraceMs: 0, drainMs: null, maxOutputBytes: GIT_MAX_OUTPUT_BYTES },
    cgroup,
  )
    .catch((error: unknown) => {
      throw new GitCommandError(reported, null, error instanceof Error ? error.message : String(error));
    })
    .finally(() => cgroup?.remove());
  const stdout = result.stdout.toString('utf8');
  const stderr = result.stderr.toString('utf8');
  if (result.timedOut) throw new GitCommandError(reported, null, `git ${reported[0] ?? ''} did not finish within ${formatTimeout(bounds.timeoutMs)} and was stopped with every process it started`);
  if (result.limitReached) throw new GitCommandError(reported, null, `${result.limitReached}; git ${reported[0] ?? ''} and every process it started were stopped`);
  if (result.truncated) throw new GitCommandError(reported, null, `git printed more than ${GIT_MAX_OUTPUT_BYTES} bytes`);
  if (result.exitCode !== 0) throw new GitCommandError(reported, result.exitCode, stderr || `git ${result.signal ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`}`, stdout);
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
  const bounds: ExecBounds = {
    timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS,
    limits: options.limits ? processLimits({ cpuSeconds: COMMAND_CPU_SECONDS, ...options.limits, stopWhenReached: true }) : null,
  };
  const operands = (options.operands ?? []).map((operand, index) => assertGitOperand(operand, `git operand ${index + 1}`));
  for (const name of Object.keys(options.env ?? {})) {
    if (name.startsWith('GIT_CONFIG')) throw new Error(`runGit: ${name} cannot be passed in env; config overrides are runGit's own`);
  }
  const base = hardenedGitEnvironment(process.env, trust);
  const prefix = hardenedGitArgs(trust);
  let overrides: Array<[string, string]> = [];
  if (trust === 'agentWritable' && mayRunConfiguredPrograms(args)) {
    const listed = await execGit([...prefix, 'config', '--list', '--name-only', '-z'], options.cwd, base, ['config', '--list', '--name-only'], bounds).catch((error: unknown) => {
      // Outside a repository (or with no config at all) there is nothing to override; any other
      // failure is fatal, because the command would run with an unknown config.
      if (error instanceof GitCommandError && error.exitCode === 1) return { stdout: '', stderr: '' };
      throw error;
    });
    overrides = patternedOverrides(listed.stdout.split('\0').filter(Boolean));
  }
  const env = { ...base, ...options.env, ...configEnvironment([...overrides, ...(options.secretConfig ?? [])]) };
  const fullArgs = [...prefix, ...pinTransportPrograms(args), ...(operands.length > 0 ? ['--end-of-options', ...operands] : [])];
  return execGit(fullArgs, options.cwd, env, [...args, ...operands], bounds);
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
