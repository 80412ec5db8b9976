import { rmdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes, type ProcessLimits } from './process-limits.js';

/**
 * Where this host lets the server make a cgroup per launch (SEC-11):
 * - `v2`: the unified hierarchy, where the server's own cgroup delegates `pids` and `memory` to its children;
 * - `v1`: the legacy `pids` hierarchy (and `memory`, where that one is writable too), under the
 *   server's own cgroup in each;
 * - `none`: neither (a container without a writable cgroup mount, a server not allowed to write
 *   there); only the rlimits apply, and the process count is not bounded when the server runs as root.
 */
export type CgroupSupport =
  | { kind: 'v2'; parent: string; detail: string }
  | { kind: 'v1'; pids: string; memory: string | null; detail: string }
  | { kind: 'none'; detail: string };

/** How often a watched launch's counters are read (only while something of it runs). */
const WATCH_INTERVAL_MS = 100;
/** Rounds of SIGKILL over a cgroup's processes (a fork bomb at its maximum cannot add new ones). */
const KILL_ROUNDS = 200;

const CHILD_PREFIX = 'cc-launch-';

async function readText(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch(() => null);
}

/** `name value` lines (pids.events, memory.events, memory.oom_control): the value of `name`, 0 when absent. */
function counter(text: string | null, name: string): number {
  const match = text ? new RegExp(`^${name} (\\d+)$`, 'm').exec(text) : null;
  return match ? Number(match[1]) : 0;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a child cgroup can be made (and removed) in `dir`. */
async function canMakeChild(dir: string): Promise<boolean> {
  const probe = join(dir, `${CHILD_PREFIX}${process.pid}-probe`);
  try {
    await mkdir(probe);
    await rmdir(probe);
    return true;
  } catch {
    return false;
  }
}

/** Launch cgroups a server that is gone left behind (a crash between start and removal); empty ones go. */
async function removeStale(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const owner = new RegExp(`^${CHILD_PREFIX}(\\d+)-`).exec(name);
    if (owner && !processAlive(Number(owner[1]))) await rmdir(join(dir, name)).catch(() => undefined);
  }
}

async function detect(): Promise<CgroupSupport> {
  if (process.platform !== 'linux') return { kind: 'none', detail: `no cgroups on ${process.platform}` };
  const own = await readText('/proc/self/cgroup');
  if (!own) return { kind: 'none', detail: '/proc/self/cgroup is unreadable' };
  const paths = new Map<string, string>();
  for (const line of own.trim().split('\n')) {
    const [, controllers = '', path = '/'] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    for (const controller of controllers === '' ? ['unified'] : controllers.split(',')) paths.set(controller, path);
  }
  const unified = paths.get('unified');
  if (unified !== undefined) {
    for (const mount of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
      const parent = join(mount, unified);
      const delegated = (await readText(join(parent, 'cgroup.subtree_control')))?.split(/\s+/) ?? [];
      if (delegated.includes('pids') && delegated.includes('memory') && (await canMakeChild(parent))) {
        await removeStale(parent);
        return { kind: 'v2', parent, detail: `cgroup v2 (${parent})` };
      }
    }
  }
  const pidsPath = paths.get('pids');
  const pids = pidsPath === undefined ? null : join('/sys/fs/cgroup/pids', pidsPath);
  if (pids && (await canMakeChild(pids))) {
    const memoryPath = paths.get('memory');
    const memoryDir = memoryPath === undefined ? null : join('/sys/fs/cgroup/memory', memoryPath);
    const memory = memoryDir && (await canMakeChild(memoryDir)) ? memoryDir : null;
    await removeStale(pids);
    if (memory) await removeStale(memory);
    return { kind: 'v1', pids, memory, detail: memory ? 'cgroup v1 pids and memory' : 'cgroup v1 pids (memory: rlimits only)' };
  }
  return { kind: 'none', detail: 'no writable cgroup with the pids controller: rlimits only, process count unbounded for root' };
}

/** Whether `dir` is gone (removed now, or already). */
function removeDir(dir: string): Promise<boolean> {
  return rmdir(dir).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

/** Cgroups whose removal is still being retried: tried once more, synchronously, when the process exits. */
const pendingRemovals = new Set<string>();
let exitHook = false;

async function retryRemoval(dir: string): Promise<void> {
  pendingRemovals.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const pending of pendingRemovals) {
        try {
          rmdirSync(pending);
        } catch {
          // Still busy: the next server removes it (`removeStale`).
        }
      }
    });
  }
  for (let attempt = 0; attempt < 50; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20).unref());
    if (await removeDir(dir)) break;
  }
  pendingRemovals.delete(dir);
}

let probed: Promise<CgroupSupport> | null = null;

/** What this host offers, probed once per process. */
export function cgroupSupport(): Promise<CgroupSupport> {
  probed ??= detect();
  return probed;
}

let launches = 0;

/**
 * The cgroup of one launch (a sandboxed command, a warm sandbox, a runner): made before the launch
 * starts, its limits written, and the launch's first process moved into it before it execs anything
 * (`procsFiles`), so every process the launch ever has is counted. Removed by {@link remove}, after
 * everything still in it was killed.
 */
export class LaunchCgroup {
  private watchers = 0;
  private timer: NodeJS.Timeout | null = null;
  private reachedMessage: string | null = null;
  /** Counters already accounted for (a warm sandbox goes on after a limit was reached once). */
  private baseline = { max: 0, oomKill: 0 };
  private readonly listeners = new Set<(message: string) => void>();

  private constructor(
    private readonly dirs: { kind: 'v1' | 'v2'; pids: string; memory: string | null },
    private readonly limits: ProcessLimits,
  ) {}

  /** A cgroup for a launch with `limits`, or null where the host has none to give (`cgroupSupport`). */
  static async create(limits: ProcessLimits): Promise<LaunchCgroup | null> {
    const support = await cgroupSupport();
    if (support.kind === 'none') return null;
    const name = `${CHILD_PREFIX}${process.pid}-${++launches}`;
    if (support.kind === 'v2') {
      const dir = join(support.parent, name);
      await mkdir(dir);
      const cgroup = new LaunchCgroup({ kind: 'v2', pids: dir, memory: dir }, limits);
      await cgroup.write(dir, 'pids.max', limits.maxProcesses);
      await cgroup.write(dir, 'memory.max', limits.memoryBytes);
      // Swap would let a memory bomb go on past memory.max, slowly, on the host's disk.
      await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      return cgroup;
    }
    const pids = join(support.pids, name);
    await mkdir(pids);
    const memory = support.memory ? join(support.memory, name) : null;
    const cgroup = new LaunchCgroup({ kind: 'v1', pids, memory }, limits);
    await cgroup.write(pids, 'pids.max', limits.maxProcesses);
    if (memory) {
      await mkdir(memory);
      await cgroup.write(memory, 'memory.limit_in_bytes', limits.memoryBytes);
    }
    return cgroup;
  }

  /** The files the launch's first process writes its own pid to (`echo $$ >`), before it execs anything. */
  get procsFiles(): string[] {
    const files = [join(this.dirs.pids, 'cgroup.procs')];
    if (this.dirs.kind === 'v1' && this.dirs.memory) files.push(join(this.dirs.memory, 'cgroup.procs'));
    return files;
  }

  /** The run log's phrase: which cgroup limits bind this launch. */
  get description(): string {
    const memory = this.dirs.memory ? `, ${formatBytes(this.limits.memoryBytes)} together` : '';
    return `${this.limits.maxProcesses} processes${memory} (cgroup ${this.dirs.kind})`;
  }

  /** What was reached since the launch started or since {@link rebase} (read now), or null. */
  async reached(): Promise<string | null> {
    if (this.reachedMessage) return this.reachedMessage;
    const counters = await this.counters();
    if (counters.max > this.baseline.max) {
      this.reachedMessage = `process limit reached: the command tried to run more than ${this.limits.maxProcesses} processes at once`;
    } else if (counters.oomKill > this.baseline.oomKill) {
      this.reachedMessage = `memory limit reached: the command's processes used more than ${formatBytes(this.limits.memoryBytes)} together and the kernel killed one`;
    }
    return this.reachedMessage;
  }

  /** Forgets what was reached so far: the next {@link reached} reports only what happens from now on. */
  async rebase(): Promise<void> {
    this.baseline = await this.counters();
    this.reachedMessage = null;
  }

  private async counters(): Promise<{ max: number; oomKill: number }> {
    const max = counter(await readText(join(this.dirs.pids, 'pids.events')), 'max');
    const memoryEvents = this.dirs.memory ? await readText(join(this.dirs.memory, this.dirs.kind === 'v2' ? 'memory.events' : 'memory.oom_control')) : null;
    return { max, oomKill: counter(memoryEvents, 'oom_kill') };
  }

  /**
   * Reads the counters every {@link WATCH_INTERVAL_MS} until the returned function is called (by
   * every watcher). When a limit is reached: with `stopWhenReached`, every process of the launch is
   * killed first; then `onReached` runs with the message.
   */
  watch(onReached: (message: string) => void): () => void {
    this.listeners.add(onReached);
    this.watchers += 1;
    this.timer ??= setInterval(() => void this.check(), WATCH_INTERVAL_MS);
    // A watched launch never keeps the server alive on its own.
    this.timer.unref();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.listeners.delete(onReached);
      this.watchers -= 1;
      if (this.watchers === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /** SIGKILL to every process in the cgroup until none is left (or it stops changing). */
  async killAll(): Promise<void> {
    if (this.dirs.kind === 'v2' && (await writeFile(join(this.dirs.pids, 'cgroup.kill'), '1').then(() => true, () => false))) return;
    for (let round = 0; round < KILL_ROUNDS; round += 1) {
      const pids = (await readText(join(this.dirs.pids, 'cgroup.procs')))?.split('\n').filter(Boolean).map(Number) ?? [];
      if (pids.length === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ESRCH: it ended between the read and the kill.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /**
   * Kills what is left and removes the cgroup. A process still exiting keeps it busy for a moment:
   * then the removal is tried again in the background (nothing is left to run in it), so that a
   * command's result does not wait for the kernel's cleanup.
   */
  async remove(): Promise<void> {
    this.watchers = 0;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.killAll();
    for (const dir of new Set([this.dirs.pids, this.dirs.memory].filter((dir): dir is string => dir !== null))) {
      if (!(await removeDir(dir))) void retryRemoval(dir);
    }
  }

  private async check(): Promise<void> {
    if (this.listeners.size === 0) return;
    const message = await this.reached();
    if (!message) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.limits.stopWhenReached) await this.killAll();
    for (const listener of [...this.listeners]) listener(message);
    this.listeners.clear();
  }

  private async write(dir: string, file: string, value: number): Promise<void> {
    try {
      await writeFile(join(dir, file), String(value));
    } catch (error) {
      await this.remove();
      throw error;
    }
  }
}
