import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDataRoot } from './test-server.js';

/** A real `control-center serve` child process on its own data root (the multi-process tests). */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  token: string;
  dataRoot: string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** SIGTERM, waits for the exit, removes the data root. */
  stop(): Promise<void>;
}

/**
 * CC_PROF_DIR (benches only): every `serve` and `worker` child writes a V8 CPU profile there when it
 * exits normally (SIGTERM, not SIGKILL). Its sample times are the system's monotonic clock in µs, the
 * clock the benches print their windows in, so a profile can be cut to the window measured.
 */
function profilingFlags(): string[] {
  const dir = process.env.CC_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** Starts `serve` on port 0 with `env` added to this process's environment; resolves once it listens. */
export async function startServeProcess(env: Record<string, string>, extraArgs: string[] = []): Promise<ServeProcess> {
  return startServeOn(await makeDataRoot(), env, extraArgs);
}

/**
 * `serve` on an existing data root — a restart after a kill starts a second process on the first one's
 * root. `stop()` still removes the root.
 */
export async function startServeOn(
  dataRoot: string,
  env: Readonly<Record<string, string>>,
  extraArgs: string[] = [],
  /** Descriptors the server inherits besides its stdio, as whoever starts it might leave them: child fd → an open fd of this process. */
  inherited: Readonly<Record<number, number>> = {},
): Promise<ServeProcess> {
  const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe'];
  for (const [childFd, fd] of Object.entries(inherited)) {
    while (stdio.length < Number(childFd)) stdio.push('ignore');
    stdio[Number(childFd)] = fd;
  }
  const child = spawn(process.execPath, [...profilingFlags(), '--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataRoot, ...extraArgs], {
    env: { ...process.env, ...env },
    stdio,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('curl')) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
  const token = (await readFile(join(dataRoot, 'operator-token'), 'utf8')).trim();
  return {
    child,
    url,
    token,
    dataRoot,
    async api(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dataRoot, { recursive: true, force: true });
    },
  };
}

/** Starts `control-center worker` with `args` and `env` added to this process's environment; resolves once it claims work. */
export function startWorkerProcess(args: string[], env: Readonly<Record<string, string>>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...profilingFlags(), '--import', 'tsx', 'src/cli/main.ts', 'worker', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('claiming work')) resolve(child);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${output.slice(-2_000)}`)));
  });
}
