/**
 * The resource limits of every process an agent causes (SEC-11): its shell commands, review gates,
 * pipeline scripts and the runners the server starts in a sandbox. Without them one `:(){ :|:& };:`
 * fills the host's pid table (the kernel's pid_max, often 32768, for every user and service of the
 * machine), and one `head -c 10G /dev/zero | tail` takes the host's memory.
 *
 * Two mechanisms, because neither covers everything on every host:
 * - a cgroup per launch (`process-cgroup.ts`) for what only a cgroup can bound when the server runs
 *   as root: the number of processes (RLIMIT_NPROC does not bind a process whose kernel uid is 0, and
 *   bubblewrap run as root keeps uid 0) and the memory the processes use together;
 * - rlimits, set (soft and hard, so nothing inside can raise them) by a tiny `sh` before bubblewrap
 *   starts, for what binds every process on its own: address space, CPU time, file size, open files.
 */
export interface ProcessLimits {
  /** Processes (and threads) alive at once in the launch (the cgroup's pids.max). */
  maxProcesses: number;
  /** Memory of all the launch's processes together (the cgroup's memory limit); the kernel kills within the launch beyond it. */
  memoryBytes: number;
  /**
   * Address space of each process (RLIMIT_AS): stops one oversized allocation at once. It is not the
   * memory bound (the cgroup's is): runtimes reserve far more address space than they use — V8 reserves
   * ~10 GiB per WebAssembly memory, so Node's own `fetch` (undici's llhttp is WebAssembly) fails below
   * ~12 GiB (measured with Node 20).
   */
  addressSpaceBytes: number;
  /**
   * CPU time of each process (RLIMIT_CPU). Null for a long-lived launch (a runner, a warm sandbox's
   * helper), whose own CPU time adds up over a whole session; its commands are bounded by their timeouts.
   */
  cpuSeconds: number | null;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** Descriptors each process may hold open (RLIMIT_NOFILE). */
  openFiles: number;
  /**
   * When a cgroup limit is reached (the process count hit its maximum, the kernel killed for memory):
   * `true` kills every process of the launch, so that a fork bomb ends at once with a clear error
   * instead of spinning until its timeout; `false` leaves the launch running within its bounds (a
   * runner, which decides itself what to do with a command that failed to fork).
   */
  stopWhenReached: boolean;
}

const GiB = 1024 ** 3;

/** Generous for a build or a test suite, small against a host: 256 processes, 4 GiB of memory together, 32 GiB of address space each. */
export const DEFAULT_PROCESS_LIMITS: ProcessLimits = {
  maxProcesses: 256,
  memoryBytes: 4 * GiB,
  addressSpaceBytes: 32 * GiB,
  cpuSeconds: null,
  fileSizeBytes: 8 * GiB,
  openFiles: 8_192,
  stopWhenReached: false,
};

/** The longest a single command may run (the `bash` tool's maximum timeout): its CPU time cannot need more. */
export const COMMAND_CPU_SECONDS = 600;

/** The limits with `overrides` applied; every number must be a positive integer. */
export function processLimits(overrides: Partial<ProcessLimits> = {}): ProcessLimits {
  const limits = { ...DEFAULT_PROCESS_LIMITS, ...overrides };
  for (const key of ['maxProcesses', 'memoryBytes', 'addressSpaceBytes', 'fileSizeBytes', 'openFiles'] as const) {
    if (!Number.isSafeInteger(limits[key]) || limits[key] <= 0) throw new RangeError(`process limit ${key} must be a positive integer, got ${limits[key]}`);
  }
  if (limits.cpuSeconds !== null && (!Number.isSafeInteger(limits.cpuSeconds) || limits.cpuSeconds <= 0)) {
    throw new RangeError(`process limit cpuSeconds must be a positive integer or null, got ${limits.cpuSeconds}`);
  }
  return limits;
}

/**
 * The `sh` lines that set the rlimits (POSIX `ulimit` as dash and bash implement it: without -H or
 * -S both the soft and the hard limit are set, so no process below can raise them again; `-v` in KiB,
 * `-f` in 512-byte blocks).
 */
export function rlimitCommands(limits: ProcessLimits): string[] {
  const lines = [
    `ulimit -v ${Math.ceil(limits.addressSpaceBytes / 1024)}`,
    `ulimit -f ${Math.ceil(limits.fileSizeBytes / 512)}`,
    `ulimit -n ${limits.openFiles}`,
  ];
  if (limits.cpuSeconds !== null) lines.push(`ulimit -t ${limits.cpuSeconds}`);
  return lines;
}

/** For messages: 4294967296 → "4 GiB", 134217728 → "128 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes % GiB === 0) return `${bytes / GiB} GiB`;
  if (bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2} MiB`;
  return `${bytes} bytes`;
}

/**
 * One phrase for the run log: what each process and the whole launch may use. The CPU time is left
 * out: it differs between a command's own sandbox and a warm one, whose confinement is otherwise the same.
 */
export function describeLimits(limits: ProcessLimits, cgroup: string): string {
  const perProcess = `${formatBytes(limits.addressSpaceBytes)} address space, ${formatBytes(limits.fileSizeBytes)} files, ${limits.openFiles} open files per process`;
  return `limits: ${perProcess}; ${cgroup}`;
}
