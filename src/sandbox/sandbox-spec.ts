import type { LaunchCgroup } from './process-cgroup.js';
import type { ProcessLimits } from './process-limits.js';

/**
 * What a runner process needs from an OS sandbox (SBX-1, SBX-3): where it may write, what it must not
 * see, and which loopback ports it may connect to. Every backend (bubblewrap, Seatbelt) projects this
 * one description, the same way every enforcement layer projects a mode's capability profile (CAP-2).
 */
export interface SandboxSpec {
  /** Executable and arguments to run inside the sandbox. */
  command: string;
  args: string[];
  /** Working directory inside the sandbox (the conversation's worktree). */
  cwd: string;
  /** Paths bound writable at their own location (a chat-mode worktree, the runner's session store). */
  writable: string[];
  /**
   * Paths bound read-only at their own location, on top of everything else (a read-only mode's
   * worktree, the hook script). Bound after `writable`, so a read-only path inside a writable one wins.
   */
  readOnly: string[];
  /**
   * Paths replaced by an empty read-only directory (the data root with the operator token and the
   * databases, the operator's home). Paths listed in `writable`/`readOnly` below them stay reachable.
   */
  hidden: string[];
  /** Paths that become a private, empty, writable tmpfs (`/tmp`, the runner's HOME). */
  privateTmp: string[];
  /**
   * `loopback`: a new network namespace whose only exits are these 127.0.0.1 ports (the model
   * endpoint, the Control Center); `host`: the host network namespace, unrestricted.
   */
  network: { kind: 'loopback'; ports: number[] } | { kind: 'host'; reason: string };
  /** The resource limits of everything the launch runs (SEC-11); unset ones take `DEFAULT_PROCESS_LIMITS`. */
  limits?: Partial<ProcessLimits>;
}

/** A prepared launch: run `command args` with `env`, then call `dispose` once the process ended. */
export interface SandboxLaunch {
  command: string;
  args: string[];
  /** One line for the run log (`setSandbox`). */
  description: string;
  /**
   * The launch's cgroup (SEC-11), where the host has one to give: what limit its processes reached,
   * and a watch that stops them when one is (see `limited-run.ts`). Removed by `dispose`.
   */
  cgroup?: LaunchCgroup | null;
  dispose(): Promise<void>;
}

/** Starts commands in one sandbox whose paths have been resolved once. */
export type SandboxLauncher = (command: string, args: string[]) => Promise<SandboxLaunch>;

/** An OS sandbox that can wrap a process. */
export interface SandboxBackend {
  readonly id: 'bubblewrap' | 'seatbelt';
  prepare(spec: SandboxSpec): Promise<SandboxLaunch>;
  /**
   * For many commands in the same sandbox (a run's `bash` calls): the spec's paths are resolved once,
   * not per command. Optional; without it each command is a `prepare`.
   */
  launcher?(spec: Omit<SandboxSpec, 'command' | 'args'>): Promise<SandboxLauncher>;
}
