import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { SPAWN_HELPER_SOURCE } from './spawn-helper-source.js';

/** One command for the helper: what to run, exactly as the server decided it, and its lifecycle rules. */
export interface HelperCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Own process group: stops and the end of the command reach everything it started. */
  detached: boolean;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when the command is stopped; 0 sends SIGKILL at once. */
  killGraceMs: number;
  /** Detached only: how long to wait for the pipes once the command exited; null waits until they close. */
  drainMs: number | null;
  /** Per stream; null keeps all of it. */
  maxOutputBytes: number | null;
  /** Keep the newest `maxOutputBytes` instead of the first (a script's last words explain its failure). */
  keepTail?: boolean;
  /** Stops the command (SIGTERM to its group, then SIGKILL); the result then says `aborted`. */
  signal?: AbortSignal;
}

export interface HelperCommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  /** The resource limit the command reached and was stopped for (SEC-11, `limited-run.ts`). */
  limitReached?: string;
}

/** The helper died while a command ran: the command was killed and has no result. */
export class SpawnHelperDiedError extends Error {
  constructor(detail: string) {
    super(`the spawn helper ${detail} while the command ran; the command was stopped and has no result`);
    this.name = 'SpawnHelperDiedError';
  }
}

interface Pending {
  resolve(result: HelperCommandResult): void;
  reject(error: Error): void;
  detached: boolean;
  pid?: number;
}

type HelperMessage =
  | { type: 'started'; id: number; pid: number }
  | { type: 'exit'; id: number; exitCode: number | null; signal: string | null; stdout: Uint8Array; stderr: Uint8Array; truncated: boolean; timedOut: boolean; aborted: boolean }
  | { type: 'error'; id: number; message: string; code?: string };

/**
 * How the server and a helper exchange messages: Node's IPC channel (the Node program), or JSON lines
 * on the helper's stdin and stdout with the output in base64 (the Python program, `vfork-helper-source.ts`).
 */
export type HelperProtocol = 'ipc' | 'lines';

/** The server's end of a helper's message channel, whichever the protocol. */
interface HelperChannel {
  send(message: object): void;
  readonly open: boolean;
  /** Holds the server's event loop while commands run; an idle helper never keeps the server alive. */
  ref(): void;
  unref(): void;
}

function ipcChannel(child: ChildProcess, receive: (message: HelperMessage) => void): HelperChannel {
  child.on('message', (message: HelperMessage) => receive(message));
  return {
    send: (message) => child.send(message),
    get open() {
      return child.connected;
    },
    ref: () => child.channel?.ref(),
    unref: () => child.channel?.unref(),
  };
}

/** A message as a JSON line: the output bytes are base64 text. */
type LineMessage = Exclude<HelperMessage, { type: 'exit' }> | (Omit<Extract<HelperMessage, { type: 'exit' }>, 'stdout' | 'stderr'> & { stdout: string; stderr: string });

function linesChannel(child: ChildProcess, receive: (message: HelperMessage) => void): HelperChannel {
  const { stdin, stdout } = child;
  if (!stdin || !stdout) throw new Error('a JSON-lines helper needs its stdin and stdout as pipes');
  const decoder = new StringDecoder('utf8');
  let partial = '';
  stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + decoder.write(chunk)).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let message: LineMessage;
      try {
        message = JSON.parse(line) as LineMessage;
      } catch {
        // Not the helper's protocol: it cannot be trusted with its commands any more. Its exit fails them.
        child.kill('SIGKILL');
        return;
      }
      receive(message.type === 'exit' ? { ...message, stdout: Buffer.from(message.stdout, 'base64'), stderr: Buffer.from(message.stderr, 'base64') } : message);
    }
  });
  // A write to a helper that just died fails with EPIPE: its exit, not this, reports it.
  stdin.on('error', () => undefined);
  return {
    send: (message) => stdin.write(`${JSON.stringify(message)}\n`),
    get open() {
      return !stdin.destroyed && stdin.writable;
    },
    ref: () => {
      (stdout as unknown as { ref(): void }).ref();
      (stdin as unknown as { ref(): void }).ref();
    },
    unref: () => {
      (stdout as unknown as { unref(): void }).unref();
      (stdin as unknown as { unref(): void }).unref();
    },
  };
}

/** The helper's heap limit (MB): it holds a few commands' capped output, nothing else. */
const HELPER_HEAP_MB = 64;

/**
 * Starts the server's commands (the built-in `bash`, sandboxed git in a checkout, the server's own
 * git) from a small long-lived Node process instead of from the server (see `spawn-helper-source.ts`
 * for why and for the rules it applies). The helper starts on the first command; if it dies, every
 * command in flight fails with {@link SpawnHelperDiedError} after the server has killed the command's
 * process group, and the next command starts a new helper. Nothing about a command changes: argv,
 * cwd, environment, sandbox, timeouts, stops, output caps, exit codes and signals are the same as
 * when the server forked it itself.
 *
 * The IPC channel holds the event loop only while commands run, so an idle helper never keeps the
 * server alive; when the server exits, the helper sees its channel close, kills what runs and exits.
 */
export interface SpawnHelperOptions {
  /**
   * Starts the helper process with an IPC channel (`stdio[3] = 'ipc'`, advanced serialization).
   * Default: a bare Node on the host. A warm sandbox (`warm-sandbox.ts`) starts the same program
   * inside bubblewrap instead.
   */
  start?: () => ChildProcess;
  /**
   * The pids the helper reports belong to a pid namespace of its own (a sandbox): the server must
   * not signal them (they name other processes on the host). The namespace ends with the helper, and
   * everything in it with it, so there is nothing left to kill when it dies.
   */
  namespacedPids?: boolean;
  /** Called when a command settles or the helper dies (a warm sandbox times its idle stop from it). */
  onSettled?: () => void;
  /** How `start`'s helper talks (default `ipc`; `lines` needs stdin and stdout as pipes). */
  protocol?: HelperProtocol;
}

export class SpawnHelper {
  private child: ChildProcess | null = null;
  private channel: HelperChannel | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly options: SpawnHelperOptions = {}) {}

  /** Commands in flight. */
  get running(): number {
    return this.pending.size;
  }

  /** Whether a helper process is up (it starts on the first command). */
  get alive(): boolean {
    return this.child !== null;
  }

  /** The helper's pid while one runs (for measurements and tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  run(command: HelperCommand): Promise<HelperCommandResult> {
    const channel = this.ensure();
    const id = this.nextId++;
    return new Promise<HelperCommandResult>((resolve, reject) => {
      const onAbort = () => {
        if (channel.open) channel.send({ type: 'stop', id });
      };
      const done = () => {
        command.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        if (this.pending.size === 0) channel.unref();
        this.options.onSettled?.();
      };
      this.pending.set(id, {
        detached: command.detached,
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      channel.ref();
      channel.send({
        type: 'run',
        id,
        command: command.command,
        args: command.args,
        cwd: command.cwd,
        env: command.env,
        detached: command.detached,
        timeoutMs: command.timeoutMs,
        killGraceMs: command.killGraceMs,
        drainMs: command.drainMs,
        maxOutputBytes: command.maxOutputBytes,
        keepTail: command.keepTail ?? false,
        // The pid is only needed to kill the command should the helper die (`died` below). Inside a
        // namespace the server never signals it, and not asking saves the server a wake-up per command
        // (~0.15 ms of CPU on a VM).
        reportPid: !this.options.namespacedPids,
      });
      if (command.signal?.aborted) onAbort();
      else command.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Resolves once the current helper process, if any, has exited and its commands have been failed. */
  protected exited(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    // Registered after the one `ensure` adds, so it runs after the helper has been forgotten.
    return new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Stops the helper (and with it every command it runs). */
  close(): void {
    this.child?.kill('SIGKILL');
  }

  private ensure(): HelperChannel {
    if (this.child && this.channel) return this.channel;
    const child = (this.options.start ?? startBareHelper)();
    const receive = (message: HelperMessage) => this.receive(message);
    const channel = this.options.protocol === 'lines' ? linesChannel(child, receive) : ipcChannel(child, receive);
    child.unref();
    channel.unref();
    const died = (detail: string) => {
      if (this.child !== child) return;
      this.child = null;
      this.channel = null;
      for (const [, pending] of this.pending) {
        // The helper can no longer stop what it started: the server does, by the pid it was told.
        if (pending.pid !== undefined && !this.options.namespacedPids) killStarted(pending.pid, pending.detached);
        pending.reject(new SpawnHelperDiedError(detail));
      }
    };
    child.once('exit', (code, signal) => died(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    child.once('error', (error) => died(`failed (${error.message})`));
    this.child = child;
    this.channel = channel;
    return channel;
  }

  private receive(message: HelperMessage): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'started') {
      pending.pid = message.pid;
    } else if (message.type === 'exit') {
      pending.resolve({ ...message, stdout: Buffer.from(message.stdout), stderr: Buffer.from(message.stderr) });
    } else {
      pending.reject(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
    }
  }
}

/** The helper's argv after the Node binary: a small heap, the program, nothing inherited. */
export const SPAWN_HELPER_NODE_ARGS = [`--max-old-space-size=${HELPER_HEAP_MB}`, '--input-type=module', '-e', SPAWN_HELPER_SOURCE];

/**
 * Starts a helper program (`command args`, bare or inside a sandbox launch) wired for `protocol`:
 * Node IPC on descriptor 3 with advanced serialization, or JSON lines on its stdin and stdout. Its
 * environment is PATH only: each command brings its own.
 */
export function startHelperProcess(command: string, args: readonly string[], protocol: HelperProtocol): ChildProcess {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (protocol === 'lines') return spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env });
  return spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced', env });
}

/** A bare Node on the host: no loader, no NODE_OPTIONS, no inherited flags. */
function startBareHelper(): ChildProcess {
  return startHelperProcess(process.execPath, SPAWN_HELPER_NODE_ARGS, 'ipc');
}

function killStarted(pid: number, detached: boolean): void {
  try {
    process.kill(detached ? -pid : pid, 'SIGKILL');
  } catch {
    // ESRCH: it ended with the helper.
  }
}

let shared: SpawnHelper | null = null;

/**
 * The process's spawn helper, started on first use. One per process, like the sandbox probe: the
 * commands of every workspace and run go through it, and a dead one is replaced on the next command.
 */
export function sharedSpawnHelper(): SpawnHelper {
  shared ??= new SpawnHelper();
  return shared;
}
