import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { PathEscapeError } from './path-escape-error.js';
import { sanitizedEnv } from './sanitized-env.js';
import type { ExecResult, WorktreeOperations } from './worktree-operations.js';

/** What to spawn instead of a command's own argv, and what to clean up once it ended. */
export interface WrappedCommand {
  command: string;
  args: string[];
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
}

const DEFAULT_KILL_GRACE_MS = 2_000;
/** How long to wait for the output pipes to close once the shell itself has exited. */
const PIPE_DRAIN_MS = 1_000;
/** Symlink hops allowed while resolving one path (Linux's own limit is 40). */
const MAX_SYMLINK_HOPS = 40;

/** True when `child` is `parent` or below it. Works for a root of `/` too. */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function symlinkLoop(path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ELOOP: too many symbolic links encountered, '${path}'`);
  error.code = 'ELOOP';
  error.path = path;
  return error;
}

/**
 * The real path of `path`, also for paths that do not exist yet: the longest existing prefix is
 * resolved with `realpath` (following every symlink in it) and the missing tail is appended. A dangling
 * symlink is followed by hand, because writing through it would create its target wherever it points.
 */
async function realpathAllowingMissing(path: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw symlinkLoop(path);
  let current = path;
  const tail: string[] = [];
  for (;;) {
    try {
      return join(await realpath(current), ...tail);
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    const entry = await lstat(current).catch(() => null);
    if (entry?.isSymbolicLink()) {
      const target = resolvePath(dirname(current), await readlink(current));
      return realpathAllowingMissing(join(target, ...tail), hops + 1);
    }
    const parent = dirname(current);
    if (parent === current) return join(current, ...tail);
    tail.unshift(basename(current));
    current = parent;
  }
}

/** Keeps the first `limit` bytes of a stream and counts what it drops. */
class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true;
      return;
    }
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (piece.length < chunk.length) this.truncated = true;
    this.chunks.push(piece);
    this.kept += piece.length;
  }

  text(): string {
    // A cut in the middle of a multi-byte character becomes U+FFFD; that is fine for a model to read.
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * The real {@link WorktreeOperations} over a directory on this machine (HAR-7).
 *
 * Path rule: a path is resolved against the root (an absolute path is taken as is), normalized, and
 * refused with {@link PathEscapeError} when it lands outside the root. It is then resolved with
 * `realpath` on its longest existing prefix, so a symlink anywhere in it that leads outside is refused
 * too — also for a file that does not exist yet, which is what a write creates. The checked real path
 * is the one that is opened, and writes open the last component with `O_NOFOLLOW`.
 *
 * Commands run under `bash -c` in their own process group, so a timeout or an abort stops the whole
 * tree of processes the command started, and so does the end of the command: a tool call leaves no
 * process behind. A `wrapCommand` option starts the same `bash -c` inside something else (the run
 * executor passes the host's OS sandbox); the path rules above do not change with it.
 */
export class NodeWorktree implements WorktreeOperations {
  readonly root: string;
  private realRootPromise: Promise<string> | undefined;
  private readonly killGraceMs: number;
  private readonly defaultEnv: Record<string, string> | undefined;
  private readonly wrapCommand: CommandWrapper | undefined;

  constructor(root: string, options: NodeWorktreeOptions = {}) {
    this.root = resolvePath(root);
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.defaultEnv = options.defaultEnv;
    this.wrapCommand = options.wrapCommand;
  }

  /** The root with its own symlinks resolved (a worktree under a symlinked temp dir is still one tree). */
  realRoot(): Promise<string> {
    this.realRootPromise ??= realpath(this.root);
    return this.realRootPromise;
  }

  async resolve(path: string): Promise<string> {
    if (typeof path !== 'string' || path.includes('\0')) throw new PathEscapeError(String(path), 'invalid');
    const realRoot = await this.realRoot();
    const absolute = isAbsolute(path) ? resolvePath(path) : resolvePath(this.root, path);
    if (!isInside(this.root, absolute) && !isInside(realRoot, absolute)) {
      throw new PathEscapeError(path, isAbsolute(path) ? 'absoluteOutside' : 'parentTraversal');
    }
    const real = await realpathAllowingMissing(absolute);
    if (!isInside(realRoot, real)) throw new PathEscapeError(path, 'symlinkOutside');
    return real;
  }

  async readFile(path: string): Promise<string> {
    return readFile(await this.resolve(path), 'utf8');
  }

  async writeFile(path: string, content: string): Promise<void> {
    const target = await this.resolve(path);
    await mkdir(dirname(target), { recursive: true });
    // O_NOFOLLOW: if a symlink appeared at the last component since resolve(), fail rather than follow it.
    const handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
    try {
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
  }

  async list(path: string): Promise<string[]> {
    const entries = await readdir(await this.resolve(path), { withFileTypes: true });
    return entries
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async exists(path: string): Promise<boolean> {
    const target = await this.resolve(path);
    try {
      await stat(target);
      return true;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw error;
    }
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
    const stdout = new CappedBuffer(options.maxOutputBytes);
    const stderr = new CappedBuffer(options.maxOutputBytes);
    const child = spawn(launch.command, launch.args, {
      cwd,
      env: options.env ?? this.defaultEnv ?? sanitizedEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const stop = (): void => {
      if (killTimer) return;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), this.killGraceMs);
      killTimer.unref();
    };
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });

    try {
      const { exitCode, signal } = await new Promise<{ exitCode: number | null; signal: string | null }>((resolveExit, rejectExit) => {
        let exited: { exitCode: number | null; signal: string | null } | undefined;
        let drainTimer: NodeJS.Timeout | undefined;
        child.once('error', rejectExit);
        child.once('exit', (code, signalName) => {
          exited = { exitCode: code, signal: signalName };
          // Whatever the command left running in its group goes with it; that also closes the pipes.
          killGroup('SIGKILL');
          // A process that left the group (setsid) may still hold the pipes; do not wait for it forever.
          drainTimer = setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
            resolveExit(exited ?? { exitCode: code, signal: signalName });
          }, PIPE_DRAIN_MS);
          drainTimer.unref();
        });
        child.once('close', (code, signalName) => {
          if (drainTimer) clearTimeout(drainTimer);
          resolveExit(exited ?? { exitCode: code, signal: signalName });
        });
      });
      return {
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
        aborted,
      };
    } finally {
      clearTimeout(timeoutTimer);
      if (killTimer) clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
    }
  }
}
