import { realpathSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { CheckedPathFiles } from './checked-path-files.js';
import { ConfinedFiles } from './confined-files.js';
import { procFdSupported } from './proc-fd-support.js';
import type { WalkedFile } from './walked-file.js';
import type { WorktreeFiles } from './worktree-files.js';
import { sanitizedEnv } from '../sandbox/sanitized-env.js';
import { runWithinLimits } from '../sandbox/limited-run.js';
import type { LaunchCgroup } from '../sandbox/process-cgroup.js';
import { sharedSpawnHelper, type SpawnHelper } from '../sandbox/spawn-helper.js';
import type { ExecResult, WorktreeOperations } from './worktree-operations.js';

/** What to spawn instead of a command's own argv, and what to clean up once it ended. */
export interface WrappedCommand {
  command: string;
  args: string[];
  /** The cgroup whose limits bind the command (SEC-11): watched while it runs. */
  cgroup?: LaunchCgroup | null;
  dispose(): Promise<void>;
}

/**
 * Turns the argv of one command (`['bash', '-c', line]`) into the argv that actually runs, for
 * example the same command inside an OS sandbox (`src/sandbox/command-sandbox.ts`). A wrapper that
 * throws means the command does not run.
 */
export type CommandWrapper = (argv: string[]) => Promise<WrappedCommand>;

export interface NodeWorktreeOptions {
  /** Time between SIGTERM and SIGKILL when a command is stopped (timeout or abort). Default 2 s. */
  killGraceMs?: number;
  /** Environment for `exec` calls that pass none. Default: {@link sanitizedEnv} of the server's environment. */
  defaultEnv?: Record<string, string>;
  /** How `exec` starts its command. Default: `bash -c` as it is. */
  wrapCommand?: CommandWrapper;
  /**
   * How file paths are resolved: `confined` (descriptor-pinned, SEC-4; needs `/proc/self/fd`) or
   * `checkedPaths` (check, then open by name; raceable — the fallback where `/proc` is missing, and
   * what tests use to cover that fallback). Default: `confined` wherever it is supported.
   */
  fileAccess?: 'confined' | 'checkedPaths';
  /** Who forks the commands. Default: the process's {@link sharedSpawnHelper}, so the server never forks itself. */
  spawnHelper?: SpawnHelper;
}

const DEFAULT_KILL_GRACE_MS = 2_000;
/** How long to wait for the output pipes to close once the shell itself has exited. */
const PIPE_DRAIN_MS = 1_000;
/**
 * The real {@link WorktreeOperations} over a directory on this machine (HAR-7).
 *
 * Path rule: a path is resolved against the root (an absolute path under the root is accepted),
 * folded lexically, and refused with `PathEscapeError` when it lands outside the root. File access
 * then goes through {@link ConfinedFiles} (SEC-4): every lookup is pinned to a directory descriptor
 * already held, symlinks are followed only while they stay under the root, writes replace the file
 * through a temporary file in the held parent, and walks descend by descriptor — a concurrent swap of
 * a directory and a symlink cannot carry a read or a write outside. Where `/proc/self/fd` is missing
 * (macOS) it falls back to {@link CheckedPathFiles}: check the real path, then open it (raceable).
 *
 * Commands run under `bash -c` in their own process group, so a timeout or an abort stops the whole
 * tree of processes the command started, and so does the end of the command: a tool call leaves no
 * process behind. The commands are forked by the spawn helper (`sandbox/spawn-helper.ts`), not by
 * this process, with the same argv, environment and rules. A `wrapCommand` option starts the same `bash -c` inside something else (the run
 * executor passes the host's OS sandbox); the path rules above do not change with it.
 */
export class NodeWorktree implements WorktreeOperations {
  readonly root: string;
  private realRootPromise: Promise<string> | undefined;
  private readonly files: WorktreeFiles;
  private readonly killGraceMs: number;
  private readonly defaultEnv: Record<string, string> | undefined;
  private readonly wrapCommand: CommandWrapper | undefined;
  private readonly spawnHelper: SpawnHelper;

  constructor(root: string, options: NodeWorktreeOptions = {}) {
    this.root = resolvePath(root);
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.defaultEnv = options.defaultEnv;
    this.wrapCommand = options.wrapCommand;
    this.spawnHelper = options.spawnHelper ?? sharedSpawnHelper();
    const confined = (options.fileAccess ?? 'confined') === 'confined' && procFdSupported();
    this.files = confined ? new ConfinedFiles(this.root) : new CheckedPathFiles(this.root);
  }

  /** The root with its own symlinks resolved (a worktree under a symlinked temp dir is still one tree). */
  realRoot(): Promise<string> {
    // Synchronous, once per worktree (a run's first command): cheaper than the thread pool's round trip.
    this.realRootPromise ??= new Promise((resolve) => resolve(realpathSync.native(this.root)));
    return this.realRootPromise;
  }

  resolve(path: string): Promise<string> {
    return this.files.resolve(path);
  }

  readFile(path: string): Promise<string> {
    return this.files.readFile(path);
  }

  writeFile(path: string, content: string): Promise<void> {
    return this.files.writeFile(path, content);
  }

  list(path: string): Promise<string[]> {
    return this.files.list(path);
  }

  exists(path: string): Promise<boolean> {
    return this.files.exists(path);
  }

  walk(start: string, signal?: AbortSignal): AsyncIterable<WalkedFile> {
    return this.files.walk(start, signal);
  }

  async exec(
    command: string,
    options: { timeoutMs: number; maxOutputBytes: number; signal: AbortSignal; env?: Record<string, string> },
  ): Promise<ExecResult> {
    const cwd = await this.realRoot();
    if (options.signal.aborted) {
      return { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, truncated: false, aborted: true };
    }
    const argv = ['bash', '-c', command];
    const launch = this.wrapCommand ? await this.wrapCommand(argv) : { command: argv[0]!, args: argv.slice(1), dispose: async () => undefined };
    try {
      return await this.spawnAndWait(launch, cwd, options);
    } finally {
      await launch.dispose().catch(() => undefined);
    }
  }

  private async spawnAndWait(
    launch: WrappedCommand,
    cwd: string,
    options: { timeoutMs: number; maxOutputBytes: number; signal: AbortSignal; env?: Record<string, string> },
  ): Promise<ExecResult> {
    const result = await runWithinLimits(this.spawnHelper, {
      command: launch.command,
      args: launch.args,
      cwd,
      env: options.env ?? this.defaultEnv ?? sanitizedEnv(),
      // Its own process group: a stop and the command's end reach everything it started.
      detached: true,
      timeoutMs: options.timeoutMs,
      killGraceMs: this.killGraceMs,
      drainMs: PIPE_DRAIN_MS,
      maxOutputBytes: options.maxOutputBytes,
      signal: options.signal,
    }, launch.cgroup);
    // A cut in the middle of a multi-byte character becomes U+FFFD; that is fine for a model to read.
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      stdout: result.stdout.toString('utf8'),
      stderr: result.stderr.toString('utf8'),
      timedOut: result.timedOut,
      truncated: result.truncated,
      aborted: result.aborted,
      ...(result.limitReached ? { limitReached: result.limitReached } : {}),
    };
  }
}
