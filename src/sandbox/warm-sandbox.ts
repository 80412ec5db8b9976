import { runWithinLimits } from './limited-run.js';
import type { SandboxLaunch, SandboxLauncher } from './sandbox-spec.js';
import { SPAWN_HELPER_NODE_ARGS, SpawnHelper, SpawnHelperDiedError, startHelperProcess, type HelperCommand, type HelperCommandResult, type HelperProtocol } from './spawn-helper.js';
import { VFORK_HELPER_PYTHON_ARGS, vforkHelperPython } from './vfork-helper.js';

/** Which helper program runs inside: the Python one where possible (`auto`), or the one named. */
export type WarmSandboxHelper = 'auto' | 'node' | 'python';

/**
 * One long-lived sandbox for the commands of one conversation in one checkout ("the cost
 * of a turn"). Instead of a new bubblewrap per `bash` call, bubblewrap starts once — with the mounts,
 * namespaces and capability drop the per-command sandbox would get, from the same launcher — and runs
 * the spawn helper's program (`spawn-helper-source.ts`) inside it. The server hands it each command
 * over the IPC channel (inherited through bubblewrap as fd 3) and the helper forks `bash -c` inside
 * the sandbox with the command's own cwd, environment, timeout and output caps, in its own process
 * group, which it kills on timeout, on a stop and when the command ends.
 *
 * What persists between the commands of one warm sandbox, and only there: files in its private /tmp
 * (HOME), like a developer's shell in one session. Processes do not: the helper runs with
 * `--sweep-namespace`, so whenever no command runs it kills every process of the sandbox's pid
 * namespace that was not there when it started (a `setsid` or double-forked leftover), as the end of a
 * per-command sandbox did. Nothing is shared between conversations or checkouts: each has its own
 * warm sandbox (own mount, pid, IPC and UTS namespaces, own /tmp).
 *
 * Lifecycle: started on the first command; stopped after `idleMs` without a command, by `close()`
 * (run end when so configured, a changed mount set, server stop). If it dies, the commands in flight
 * fail at once (SpawnHelperDiedError, never a hung call) and the next command starts a fresh one
 * from the same launch. Its pids live in its own namespace, so the server never signals them: the
 * namespace, and everything in it, ends with the sandbox.
 */
export class WarmSandbox extends SpawnHelper {
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly launch: SandboxLaunch,
    protocol: HelperProtocol,
    private readonly idleMs: number,
    private readonly onClosed: () => void,
  ) {
    super({
      namespacedPids: true,
      protocol,
      start: () => startHelperProcess(launch.command, launch.args, protocol),
      onSettled: () => this.armIdleStop(),
    });
  }

  /**
   * Prepares the sandbox from the run's launcher (paths resolved, loopback relays up for the
   * sandbox's lifetime); nothing starts until the first command. The helper inside is the Python
   * program (`vfork-helper-source.ts`, which starts commands without forking itself) where the
   * machine has a Python that can run it, else the Node program; `helper` picks one (tests run both).
   */
  static async prepare(launcher: SandboxLauncher, options: { idleMs: number; onClosed: () => void; helper?: WarmSandboxHelper }): Promise<WarmSandbox> {
    const wanted = options.helper ?? 'auto';
    const python = wanted === 'node' ? null : await vforkHelperPython();
    if (wanted === 'python' && !python) throw new Error('no python3 (>= 3.8) for the spawn helper on this machine');
    if (python) return new WarmSandbox(await launcher(python, [...VFORK_HELPER_PYTHON_ARGS, '--sweep-namespace']), 'lines', options.idleMs, options.onClosed);
    const launch = await launcher(process.execPath, [...SPAWN_HELPER_NODE_ARGS, '--', '--sweep-namespace']);
    return new WarmSandbox(launch, 'ipc', options.idleMs, options.onClosed);
  }

  /** The run log's `sandbox` line: the per-command sandbox's, since the confinement is the same. */
  get description(): string {
    return this.launch.description;
  }

  /** Whether it was stopped (idle, run end, server stop); its process then ends on its own. */
  get stopped(): boolean {
    return this.closed;
  }

  /**
   * Runs a command; its limits (SEC-11) are those of the whole sandbox's cgroup. When a command
   * reaches one, the cgroup kills every process of the sandbox, helper included (inside the sandbox,
   * nothing can tell the bomb's processes from the helper's): every command in flight ends with the
   * limit as its result, and the next command starts a fresh sandbox from the same launch.
   */
  override async run(command: HelperCommand): Promise<HelperCommandResult> {
    if (this.closed) throw new Error('the warm sandbox was stopped');
    this.disarmIdleStop();
    const cgroup = this.launch.cgroup;
    if (!cgroup) return super.run(command);
    // A fresh helper: what an earlier one reached is history.
    if (!this.alive) await cgroup.rebase();
    try {
      const result = await runWithinLimits({ run: (request) => super.run(request) }, command, cgroup);
      if (result.limitReached) {
        // The whole sandbox goes (the watch may have killed it already, or the limit was seen only
        // in the last read): the next command starts a fresh one and counts limits from there, and
        // must not reach this helper before its exit is seen.
        await cgroup.killAll();
        await this.exited();
      }
      return result;
    } catch (error) {
      const limitReached = error instanceof SpawnHelperDiedError ? await cgroup.reached() : null;
      if (!limitReached) throw error;
      const nothing = Buffer.alloc(0);
      return { exitCode: null, signal: 'SIGKILL', stdout: nothing, stderr: nothing, truncated: false, timedOut: false, aborted: false, limitReached };
    }
  }

  /** Stops the sandbox (and every command in it) and releases its relays; it cannot be used again. */
  override close(): void {
    if (this.closed) return;
    this.closed = true;
    this.disarmIdleStop();
    super.close();
    void this.launch.dispose().catch(() => undefined);
    this.onClosed();
  }

  private armIdleStop(): void {
    if (this.running > 0 || this.closed) return;
    this.disarmIdleStop();
    this.idleTimer = setTimeout(() => this.close(), this.idleMs);
    // An idle sandbox never keeps the server alive.
    this.idleTimer.unref();
  }

  private disarmIdleStop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
