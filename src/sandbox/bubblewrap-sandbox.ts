import { execFile } from 'node:child_process';
import { mkdir, realpath, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { startLoopbackRelays } from './loopback-relay.js';
import { LaunchCgroup } from './process-cgroup.js';
import { describeLimits, processLimits, rlimitCommands, type ProcessLimits } from './process-limits.js';
import type { SandboxBackend, SandboxLaunch, SandboxLauncher, SandboxSpec } from './sandbox-spec.js';

const execFileAsync = promisify(execFile);

/** Where the relay sockets appear inside the sandbox (on its private /tmp). */
export const SANDBOX_RELAY_DIR = '/tmp/.cc-net';

/** Steps of 10 ms the sandbox's init waits for its socat listeners before giving up (5 s). */
const RELAY_WAIT_STEPS = 500;

/** Exit status of the sandbox's init when a relay listener never came up. */
export const RELAY_FAILED_EXIT = 97;

interface MountOp {
  kind: 'tmpfs' | 'bind' | 'ro-bind';
  path: string;
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The init script that runs first inside a loopback-only sandbox: one socat per allowed port,
 * listening on 127.0.0.1 and relaying to the host through a bind-mounted unix socket; it waits until
 * every listener is up (read from /proc/net/tcp, so no connection is opened), then execs the runner.
 */
export function relayInitScript(ports: readonly number[]): string {
  const unique = [...new Set(ports)];
  const lines = ['set -e'];
  for (const port of unique) {
    lines.push(`socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SANDBOX_RELAY_DIR}/${port}.sock &`);
  }
  lines.push('waited=0');
  for (const port of unique) {
    const hex = port.toString(16).toUpperCase().padStart(4, '0');
    lines.push(
      `until grep -q '0100007F:${hex} 00000000:0000 0A' /proc/net/tcp; do waited=$((waited+1)); ` +
        `if [ "$waited" -gt ${RELAY_WAIT_STEPS} ]; then echo 'sandbox: the loopback relay for port ${port} did not start' >&2; exit ${RELAY_FAILED_EXIT}; fi; sleep 0.01; done`,
    );
  }
  lines.push('exec "$@"');
  return lines.join('\n');
}

/**
 * The bubblewrap argument list for a spec (pure; paths are taken as given). Mount order matters:
 * every mount is applied parent-first (by path depth; tmpfs before binds at equal depth, read-only
 * binds after writable ones), so a hidden directory's re-exposed children stay visible, and hidden
 * directories are remounted read-only last (non-recursively: the binds inside keep their own flags).
 *
 * `--cap-drop ALL` matters when the server runs as root: without it the sandboxed process keeps its
 * capabilities and can simply `mount -o remount,rw /` (verified with bubblewrap 0.8.0).
 */
export function bubblewrapArguments(spec: SandboxSpec, relaySocketPath?: (port: number) => string): string[] {
  const args = ['--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (spec.network.kind === 'loopback') args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  const ops: MountOp[] = [];
  const tmpfs = new Set(['/tmp', ...spec.privateTmp, ...spec.hidden]);
  for (const path of tmpfs) ops.push({ kind: 'tmpfs', path });
  for (const path of spec.writable) ops.push({ kind: 'bind', path });
  for (const path of spec.readOnly) ops.push({ kind: 'ro-bind', path });
  const rank = { tmpfs: 0, bind: 1, 'ro-bind': 2 } as const;
  ops.sort((a, b) => depth(a.path) - depth(b.path) || rank[a.kind] - rank[b.kind]);
  for (const op of ops) {
    if (op.kind === 'tmpfs') args.push('--tmpfs', op.path);
    else args.push(op.kind === 'bind' ? '--bind' : '--ro-bind', op.path, op.path);
  }
  if (spec.network.kind === 'loopback') {
    const ports = new Set(spec.network.ports);
    if (ports.size > 0 && !relaySocketPath) throw new Error('a loopback-only sandbox needs the host relay sockets');
    for (const port of ports) args.push('--ro-bind', relaySocketPath!(port), `${SANDBOX_RELAY_DIR}/${port}.sock`);
  }
  for (const path of spec.hidden) args.push('--remount-ro', path);
  args.push('--chdir', spec.cwd, '--');
  if (spec.network.kind === 'loopback') {
    args.push('sh', '-c', relayInitScript(spec.network.ports), 'cc-sandbox-init', spec.command, ...spec.args);
  } else {
    args.push(spec.command, ...spec.args);
  }
  return args;
}

/**
 * The `sh` that starts bubblewrap (SEC-11): it moves itself into the launch's cgroup before it execs
 * anything, so bubblewrap and every process below it are counted there from the first one; it sets
 * the rlimits, which bubblewrap and everything below inherit and, with capabilities dropped, cannot
 * raise; then it becomes bubblewrap. A cgroup it cannot join fails the launch (`set -e`): never a
 * command that runs unbounded.
 */
export function limitedLaunchArguments(limits: ProcessLimits, procsFiles: readonly string[], command: string, args: readonly string[]): string[] {
  const script = ['set -e', ...procsFiles.map((file) => `echo $$ > ${shellQuote(file)}`), ...rlimitCommands(limits), 'exec "$@"'].join('\n');
  return ['-c', script, 'cc-limits', command, ...args];
}

/** One line for the run log: what the sandbox allows. */
export function describeBubblewrap(spec: SandboxSpec): string {
  const network =
    spec.network.kind === 'loopback'
      ? `network: loopback ports ${[...new Set(spec.network.ports)].join(', ') || 'none'} only`
      : `network: host namespace (${spec.network.reason})`;
  const worktree = spec.writable.includes(spec.cwd) ? 'worktree writable' : 'worktree read-only';
  return `bubblewrap: ${worktree}; rest of the filesystem read-only; ${spec.hidden.length} hidden path(s); private /tmp and HOME; ${network}`;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function realOrSelf(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

/** Resolves symlinks (bubblewrap mounts the real path) and drops paths that do not exist. */
async function normalize(spec: SandboxSpec): Promise<SandboxSpec> {
  const resolveAll = async (paths: string[], create: boolean) => {
    const resolved: string[] = [];
    for (const path of paths) {
      if (create) await mkdir(path, { recursive: true });
      if (await exists(path)) resolved.push(await realOrSelf(path));
    }
    return [...new Set(resolved)];
  };
  return {
    ...spec,
    cwd: await realOrSelf(spec.cwd),
    writable: await resolveAll(spec.writable, true),
    readOnly: await resolveAll(spec.readOnly, false),
    hidden: await resolveAll(spec.hidden, false),
    privateTmp: await Promise.all(spec.privateTmp.map(realOrSelf)),
  };
}

export interface BubblewrapProbe {
  available: boolean;
  /** Why it is not available (for the `none: …` sandbox line), or the versions found. */
  detail: string;
}

let probed: Promise<BubblewrapProbe> | null = null;

/**
 * Checks once per process that `bwrap` and `socat` exist and that a loopback-only, capability-free
 * sandbox actually starts here (containers often forbid the namespaces bubblewrap needs).
 */
export function probeBubblewrap(options: { bwrap?: string; refresh?: boolean } = {}): Promise<BubblewrapProbe> {
  if (probed && !options.refresh) return probed;
  const bwrap = options.bwrap ?? 'bwrap';
  probed = (async (): Promise<BubblewrapProbe> => {
    if (process.platform !== 'linux') return { available: false, detail: `bubblewrap is Linux-only (this host is ${process.platform})` };
    try {
      const { stdout } = await execFileAsync(bwrap, ['--version'], { timeout: 5_000 });
      const version = stdout.trim();
      await execFileAsync(
        bwrap,
        ['--die-with-parent', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', 'socat', '-V'],
        { timeout: 10_000 },
      );
      return { available: true, detail: version };
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      return { available: false, detail: `bubblewrap/socat unusable: ${message}` };
    }
  })();
  return probed;
}

/** The Linux backend (SBX-1): bubblewrap, with socat relays for loopback-only networking. */
export class BubblewrapSandbox implements SandboxBackend {
  readonly id = 'bubblewrap' as const;

  constructor(private readonly bwrap = 'bwrap') {}

  async prepare(input: SandboxSpec): Promise<SandboxLaunch> {
    return this.launch(await normalize(input));
  }

  /**
   * The run's paths are the server's own (the checkout, the shared objects, the hidden data
   * directories): the agent cannot swap them for symlinks, since the checkout is a mount point inside
   * the sandbox and everything around it is hidden or read-only. So resolving them once per run gives
   * every command the same mounts as resolving them per command; the loopback relays stay per command.
   */
  async launcher(input: Omit<SandboxSpec, 'command' | 'args'>): Promise<SandboxLauncher> {
    const resolved = await normalize({ ...input, command: 'true', args: [] });
    return (command, args) => this.launch({ ...resolved, command, args });
  }

  private async launch(spec: SandboxSpec): Promise<SandboxLaunch> {
    const limits = processLimits(spec.limits);
    const cgroup = await LaunchCgroup.create(limits);
    // No port to relay (a checkout's git: no network at all): no relay directory to make and remove per command.
    const relays =
      spec.network.kind === 'loopback' && spec.network.ports.length > 0
        ? await startLoopbackRelays(spec.network.ports).catch(async (error: unknown) => {
            await cgroup?.remove();
            throw error;
          })
        : null;
    const cgroupPhrase = cgroup ? cgroup.description : 'process count and total memory not bounded (no writable cgroup on this host)';
    return {
      command: '/bin/sh',
      args: limitedLaunchArguments(limits, cgroup?.procsFiles ?? [], this.bwrap, bubblewrapArguments(spec, relays ? (port) => relays.socketPath(port) : undefined)),
      description: `${describeBubblewrap(spec)}; ${describeLimits(limits, cgroupPhrase)}`,
      cgroup,
      dispose: async () => {
        await cgroup?.remove();
        await relays?.close();
      },
    };
  }
}

/** For logs and docs: the command line as a shell would show it. */
export function formatCommandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map((part) => (/^[\w./=:,@%+-]+$/.test(part) ? part : shellQuote(part))).join(' ');
}
