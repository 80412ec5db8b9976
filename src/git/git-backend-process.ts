import { spawn } from 'node:child_process';
import { pipeline } from 'node:stream/promises';
import { limitedLaunchArguments } from '../sandbox/bubblewrap-sandbox.js';
import { LaunchCgroup } from '../sandbox/process-cgroup.js';
import { COMMAND_CPU_SECONDS, formatBytes, processLimits, type ProcessLimits } from '../sandbox/process-limits.js';
import { formatTimeout } from './run-git.js';

/**
 * Longest a backend run may take, reading the body included (SEC-11). A push of the largest allowed
 * pack (512 MiB) to a slow real remote fits; a remote or a client that hangs does not hold a
 * process, a staging repository's lock and the client's connection for ever.
 */
export const GIT_BACKEND_TIMEOUT_MS = 10 * 60_000;

/**
 * What git may write to stdout, kept in memory until it ends (SEC-10): receive-pack's answer is a
 * status line per ref and progress, far below this; more means something is wrong, and it must not
 * grow the server. A caller that serves packs (upload-pack) passes its own, larger cap.
 */
export const GIT_BACKEND_STDOUT_BYTES = 16 * 1024 * 1024;

/** The end of stderr that is kept: git's last words explain its failure. */
const STDERR_KEPT_BYTES = 64 * 1024;

/** One run of a server-side git program that serves a client (`git http-backend`, `git upload-pack`). */
export interface GitBackendRequest {
  /** The git program (default `git`). */
  git?: string;
  /** Its arguments, e.g. `['http-backend']`. */
  args: readonly string[];
  /** Its whole environment (nothing else is inherited). */
  env: Record<string, string | undefined>;
  cwd?: string;
  /**
   * What git reads on stdin. A streamed body is piped with backpressure; when the body itself fails
   * (a cap the route set, a corrupt gzip stream) git is stopped before it finished reading, so
   * receive-pack never runs its hooks, and the body's error is thrown on.
   */
  body: Buffer | AsyncIterable<Buffer>;
  /** Overrides of the process limits (default: SEC-11's, with {@link COMMAND_CPU_SECONDS} of CPU per process). */
  limits?: Partial<ProcessLimits>;
  /** Default {@link GIT_BACKEND_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Default {@link GIT_BACKEND_STDOUT_BYTES}. */
  maxStdoutBytes?: number;
}

export interface GitBackendResult {
  /** git's exit code; null when it was ended by a signal. */
  code: number | null;
  stdout: Buffer;
  /** The last 64 KiB of what git wrote to stderr. */
  stderr: Buffer;
  /**
   * Why the server stopped git before it ended on its own (a process, memory or CPU limit, the
   * timeout, too much output), or null. What git wrote until then is no answer to send on.
   */
  stopped: string | null;
}

/**
 * Runs one git backend process to its end, feeding it `body`, within the limits every process an
 * agent causes gets (SEC-11): a hostile pack sent by an agent is unpacked by index-pack or
 * unpack-objects here, and the staging repository's hook runs a push from here too. It starts as
 * the sandbox's launches do (`limitedLaunchArguments`): a `sh` joins its own cgroup (process count,
 * memory together; watched, everything killed when a limit is reached), sets the rlimits (address
 * space, CPU time, file size, open files) and execs git, in a process group of its own, so that the
 * timeout kills the whole group also where the host has no cgroup to give.
 */
export async function runGitBackend(request: GitBackendRequest): Promise<GitBackendResult> {
  const limits = processLimits({ cpuSeconds: COMMAND_CPU_SECONDS, ...request.limits, stopWhenReached: true });
  const timeoutMs = request.timeoutMs ?? GIT_BACKEND_TIMEOUT_MS;
  const maxStdoutBytes = request.maxStdoutBytes ?? GIT_BACKEND_STDOUT_BYTES;
  const git = request.git ?? 'git';
  const name = `git ${request.args[0] ?? ''}`.trim();
  const cgroup = await LaunchCgroup.create(limits);
  try {
    const child = spawn('/bin/sh', limitedLaunchArguments(limits, cgroup?.procsFiles ?? [], git, request.args), {
      env: request.env,
      cwd: request.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stopped: string | null = null;
    const stop = (reason: string) => {
      stopped ??= reason;
      killGroup(child.pid);
      void cgroup?.killAll();
      // A body still streaming to git ends now, not at its next chunk.
      child.stdin.destroy();
    };
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr = new TailBuffer(STDERR_KEPT_BYTES);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxStdoutBytes) stop(`${name} wrote more than ${formatBytes(maxStdoutBytes)} of output`);
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => undefined);
    const exited = new Promise<number | null>((resolveExit, reject) => {
      child.on('error', reject);
      child.on('close', resolveExit);
    });
    const timer = setTimeout(() => stop(`${name} ran longer than ${formatTimeout(timeoutMs)} and was stopped with every process it started`), timeoutMs);
    const unwatch = cgroup?.watch((message) => stop(`${message}; ${name} and every process it started were stopped`));
    try {
      if (Buffer.isBuffer(request.body)) child.stdin.end(request.body);
      else {
        const source = failureOf(request.body);
        // A write error here only means git stopped reading (it answers why on stdout); a body error is ours.
        await pipeline(source.chunks, child.stdin).catch(() => undefined);
        if (source.failure.error !== undefined) {
          stop('the request body failed');
          await exited.catch(() => null);
          throw source.failure.error;
        }
      }
      const code = await exited;
      // One last read: a limit reached between two reads of the watch (a process killed for memory just before the end).
      const limitReached = await cgroup?.reached();
      if (limitReached && !stopped) stopped = `${limitReached}; ${name} and every process it started were stopped`;
      return { code, stdout: Buffer.concat(stdout), stderr: stderr.value(), stopped };
    } finally {
      clearTimeout(timer);
      unwatch?.();
      // Whatever git left running in its group (a hook's background process) ends with it.
      killGroup(child.pid);
    }
  } finally {
    await cgroup?.remove();
  }
}

/** SIGKILL to the process group `pid` leads (the launch's `sh`, which became git); nothing when it is gone. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group has ended.
  }
}

/** The newest `limit` bytes of a stream. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes - this.chunks[0]!.length >= this.limit) this.bytes -= this.chunks.shift()!.length;
  }

  value(): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.length > this.limit ? all.subarray(all.length - this.limit) : all;
  }
}

/** `chunks` passed through, remembering the error it threw (to tell a body failure from a write failure). */
function failureOf(chunks: AsyncIterable<Buffer>): { chunks: AsyncIterable<Buffer>; failure: { error?: unknown } } {
  const failure: { error?: unknown } = {};
  async function* watched() {
    try {
      yield* chunks;
    } catch (error) {
      failure.error = error;
      throw error;
    }
  }
  return { chunks: watched(), failure };
}
