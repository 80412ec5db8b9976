import { spawn } from 'node:child_process';
import { pipeline } from 'node:stream/promises';

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
}

export interface GitBackendResult {
  /** git's exit code; null when it was ended by a signal. */
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Why the server stopped git before it ended on its own (a limit), or null. */
  stopped: string | null;
}

/** Runs one git backend process to its end, feeding it `body`, and returns what it wrote. */
export async function runGitBackend(request: GitBackendRequest): Promise<GitBackendResult> {
  const child = spawn(request.git ?? 'git', [...request.args], { env: request.env, cwd: request.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolveExit, reject) => {
    child.on('error', reject);
    child.on('close', resolveExit);
  });
  if (Buffer.isBuffer(request.body)) child.stdin.end(request.body);
  else {
    const source = failureOf(request.body);
    // A write error here only means git stopped reading (it answers why on stdout); a body error is ours.
    await pipeline(source.chunks, child.stdin).catch(() => undefined);
    if (source.failure.error !== undefined) {
      child.kill('SIGTERM');
      await exited.catch(() => null);
      throw source.failure.error;
    }
  }
  const code = await exited;
  return { code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), stopped: null };
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
