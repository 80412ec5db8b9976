import { homedir } from 'node:os';
import { dirname } from 'node:path';
import type { CheckoutCommandResult, CheckoutOutputCap, CheckoutRunner } from '../git/checkout-runner.js';
import type { CommandWrapper } from '../worktree/node-worktree.js';
import { configEnvironment, hardenedConfig, hardenedGitEnvironment, patternedOverrides } from '../git/git-hardening.js';
import { tryGit } from '../git/run-git.js';
import { runWithinLimits } from './limited-run.js';
import { COMMAND_CPU_SECONDS, type ProcessLimits } from './process-limits.js';
import { sanitizedEnv } from './sanitized-env.js';
import type { LaunchCgroup } from './process-cgroup.js';
import type { SandboxBackend, SandboxSpec } from './sandbox-spec.js';
import { configuredSandbox, type SandboxSelection } from './select-sandbox.js';
import { sharedSpawnHelper, type SpawnHelper } from './spawn-helper.js';
import { WarmSandboxPool } from './warm-sandbox-pool.js';
import type { WarmSandboxHelper } from './warm-sandbox.js';

/** A conversation's warm sandbox stops after this long without a command. */
const DEFAULT_WARM_IDLE_MS = 60_000;

/** HOME and TMPDIR on the sandbox's private /tmp: the real home is hidden. */
const SANDBOX_ENV: Record<string, string> = { HOME: '/tmp', TMPDIR: '/tmp' };

export interface CommandSandboxOptions {
  /**
   * `auto`: bubblewrap/Seatbelt when the host has a working one (probed once), else the SBX-2
   * fallback; `none`: always the fallback; or a backend to use.
   */
  sandbox?: 'auto' | 'none' | SandboxBackend;
  /** Paths the commands must not see (pass the data root: operator token, databases). */
  hiddenPaths?: string[];
  /** Also hide the server user's home directory (~/.ssh, ~/.aws, git credentials). Default true. */
  hideHome?: boolean;
  /**
   * `host` (default): commands share the host's network; egress is decided per command by the policy
   * engine, which classifies `curl`, `npm install`, `git fetch` … as networkEgress (CAP-4 keeps egress
   * at its defaults in every mode, so the mount must not contradict the rules). `loopback`: a network
   * namespace whose only exits are the loopback ports the run needs (the push proxy) — stricter, and
   * then nothing leaves the machine except through the Control Center.
   */
  network?: 'host' | 'loopback';
  /**
   * A warm sandbox per conversation and mount set (`warm-sandbox.ts`) instead of a new sandbox per
   * command, on bubblewrap (the backend with a pid namespace to sweep). `idleMs`: stopped after that
   * long without a command; `stopOnRunEnd`: stopped when each run ends (then only the commands of one
   * run share it); `helper`: the helper program inside (default `auto`, see `WarmSandbox.prepare`).
   * Default `{ idleMs: 60_000 }`; `false`: a new sandbox per command.
   */
  warm?: false | { idleMs: number; stopOnRunEnd?: boolean; helper?: WarmSandboxHelper };
  /**
   * The resource limits of every command (SEC-11); unset ones take `DEFAULT_PROCESS_LIMITS`. A command
   * that reaches a cgroup limit is always stopped, with everything it started; a command in its own
   * sandbox also gets `COMMAND_CPU_SECONDS` of CPU time unless `cpuSeconds` says otherwise.
   */
  limits?: Partial<ProcessLimits>;
}

export interface RunSandboxInput {
  worktreePath: string;
  /** The mode's worktree state (CAP-5): read-only modes get a read-only mount, the second copy of the rule. */
  readOnly: boolean;
  /**
   * The source repository's object directory that the checkout's alternates name, as the server
   * recorded it when it made the checkout (SEC-3); mounted read-only. Null for a plain folder. Never
   * computed from files inside the worktree: the agent can rewrite those.
   */
  sharedObjectsDir: string | null;
  /** The workspace's directory (databases, other conversations' worktrees): hidden. */
  workspaceDir: string;
  /** URLs the commands must reach (the push proxy). Loopback ones are relayed; nothing else is reachable. */
  reach: string[];
  /** The conversation the run belongs to: its commands may share that conversation's warm sandbox. None: a sandbox per command. */
  conversationId?: string | null;
}

/** What one run's commands get from the sandbox. */
export interface RunSandbox {
  /** The run log's `sandbox` line: `bubblewrap: …`, `seatbelt: …` or `none: …`. */
  description: string;
  /** Starts each command inside the backend; null for the SBX-2 fallback (commands run as they are). */
  wrapCommand: CommandWrapper | null;
  /** Variables the commands need inside the sandbox (HOME on the private /tmp: the real one is hidden). */
  env: Record<string, string>;
  /**
   * The conversation's warm sandbox, when there is one: it runs each command (`bash -c` as it is,
   * `wrapCommand` is then null) instead of the server's spawn helper.
   */
  spawnHelper?: SpawnHelper;
  /** Call when the run ends (stops the warm sandbox when configured to stop on run end). */
  release(): void;
}

function loopbackPort(url: string): number | null {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') return null;
    return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  } catch {
    return null;
  }
}

/**
 * The OS sandbox for the built-in harness's shell commands (SBX-1 for the built-in `bash`): the
 * backend the Claude Code transport uses, applied to each command instead of to a whole runner
 * process. The spec is projected from the mode like every other layer (CAP-2): the conversation's own
 * checkout (a clone whose `.git` is its own) writable in chat and read-only in read-only modes, the
 * source repository's shared objects read-only (SEC-3), the rest of the filesystem read-only, the workspace, the data root and the server user's home hidden,
 * a private /tmp, no capabilities, and the host network (or, with `network: 'loopback'`, a namespace
 * whose only exits are the loopback ports the run needs).
 */
export class CommandSandbox {
  private choice: Promise<SandboxSelection> | null = null;
  private warmPool: WarmSandboxPool | null = null;
  private runSandboxes = 0;

  constructor(private readonly options: CommandSandboxOptions = {}) {}

  /** The backend commands will use, or why none (probed once). */
  backend(): Promise<SandboxSelection> {
    this.choice ??= configuredSandbox(this.options.sandbox ?? 'auto');
    return this.choice;
  }

  /** The sandbox for one run's commands; without a backend, the fallback and the reason. */
  async forRun(input: RunSandboxInput): Promise<RunSandbox> {
    const { backend, detail } = await this.backend();
    if (!backend) {
      return {
        description: `none: ${detail}; fallback (SBX-2): commands run in the worktree with a sanitized environment, without an OS sandbox`,
        wrapCommand: null,
        env: {},
        release: () => undefined,
      };
    }
    const warm = this.options.warm ?? { idleMs: DEFAULT_WARM_IDLE_MS };
    if (warm && input.conversationId && backend.id === 'bubblewrap' && backend.launcher) {
      // The warm sandbox's helper lives for many commands: its own CPU time adds up, so no RLIMIT_CPU (the commands' timeouts bound theirs).
      const spec = { ...this.spec(input), limits: { ...this.options.limits, cpuSeconds: null, stopWhenReached: true } };
      this.warmPool ??= new WarmSandboxPool(warm.idleMs, warm.helper);
      const launcher = backend.launcher.bind(backend);
      // Stopped on run end: a sandbox of the run's own, so that ending one run never cuts off another of the conversation.
      const owner = warm.stopOnRunEnd ? `${input.conversationId}\0run ${++this.runSandboxes}` : input.conversationId;
      const sandbox = await this.warmPool.acquire({ conversationId: owner, spec }, () => launcher(spec));
      return {
        description: sandbox.description,
        wrapCommand: null,
        spawnHelper: sandbox,
        env: SANDBOX_ENV,
        release: () => {
          if (warm.stopOnRunEnd) sandbox.close();
        },
      };
    }
    const spec = { ...this.spec(input), limits: this.commandLimits() };
    const launch = backend.launcher ? await backend.launcher(spec) : (command: string, args: string[]) => backend.prepare({ ...spec, command, args });
    // Prepared once up front: it names the sandbox for the run log and fails early if it cannot start.
    const probe = await launch('true', []);
    await probe.dispose();
    return {
      description: probe.description,
      wrapCommand: async (argv) => launch(argv[0]!, argv.slice(1)),
      env: SANDBOX_ENV,
      release: () => undefined,
    };
  }

  /** Stops every warm sandbox (server stop); the next run starts new ones. */
  async close(): Promise<void> {
    const pool = this.warmPool;
    this.warmPool = null;
    await pool?.closeAll();
  }

  /**
   * The mounts of a run (SEC-3): the checkout (its own `.git` included) writable in chat and read-only
   * in read-only modes, the shared object directory read-only always, from the server's record only.
   * Nothing is read from the worktree to decide a mount: a `.git` file or symlink the agent wrote can
   * only point git at paths the sandbox already shows as they are (read-only or hidden).
   */
  private spec(input: RunSandboxInput): Omit<SandboxSpec, 'command' | 'args'> {
    const ports: number[] = [];
    const remote: string[] = [];
    for (const url of input.reach) {
      const port = loopbackPort(url);
      if (port !== null) ports.push(port);
      else remote.push(url);
    }
    const shared = input.sharedObjectsDir ? [input.sharedObjectsDir] : [];
    return {
      cwd: input.worktreePath,
      writable: input.readOnly ? [] : [input.worktreePath],
      readOnly: [dirname(process.execPath), ...shared, ...(input.readOnly ? [input.worktreePath] : [])],
      hidden: this.hiddenPaths(input.workspaceDir),
      privateTmp: ['/tmp'],
      network:
        (this.options.network ?? 'host') === 'host'
          ? { kind: 'host', reason: 'network egress is decided per command by the policy engine' }
          : remote.length === 0
            ? { kind: 'loopback', ports }
            : { kind: 'host', reason: `the run needs ${remote.join(', ')}, which is not on loopback` },
    };
  }

  /** The limits of one command in a sandbox of its own (a `bash` call, a gate, a pipeline script, the server's git in a checkout). */
  private commandLimits(): Partial<ProcessLimits> {
    return { cpuSeconds: COMMAND_CPU_SECONDS, ...this.options.limits, stopWhenReached: true };
  }

  private hiddenPaths(workspaceDir: string): string[] {
    const hidden = [workspaceDir, ...(this.options.hiddenPaths ?? [])];
    if (this.options.hideHome !== false) hidden.push(homedir());
    return hidden;
  }

  /**
   * Where the server runs git in a conversation's checkout (SEC-2, SEC-3): inside the same backend as
   * the agent's commands, with the checkout writable, the shared objects read-only, no network and
   * nothing else of the data directory visible, so whatever the agent wrote into the checkout's
   * config or hooks runs, at worst, where the agent could already run anything. Without a backend
   * (SBX-2) the command runs on the host with system config off and hooks and fsmonitor overridden;
   * the agent's own commands run unsandboxed there too, so this grants it nothing new.
   */
  checkoutRunner(input: { worktreePath: string; sharedObjectsDir: string | null; workspaceDir: string }): CheckoutRunner {
    return async (argv, extraEnv = {}, output) => {
      const { backend } = await this.backend();
      // SEC-2: the checkout's config is the agent's. Every program-naming key git reads under a fixed
      // name is overridden, and without a sandbox (the command then runs on the host) so are the
      // filters and drivers the config names, listed first as runGit does.
      const patterned = backend ? [] : await programKeysOf(input.worktreePath);
      const env = sanitizedEnv(process.env, {
        ...hardenedGitEnvironment({}, 'agentWritable'),
        HOME: '/tmp',
        // Git must not walk up out of the checkout when its `.git` is gone or replaced.
        GIT_CEILING_DIRECTORIES: dirname(input.worktreePath),
        ...configEnvironment([...hardenedConfig('agentWritable'), ...patterned, ['safe.directory', input.worktreePath]]),
        ...extraEnv,
      });
      if (!backend) return runToEnd(argv[0]!, argv.slice(1), input.worktreePath, { ...env, TMPDIR: process.env.TMPDIR ?? '/tmp', HOME: process.env.HOME ?? '/tmp' }, null, output);
      const launch = await backend.prepare({
        command: argv[0]!,
        args: argv.slice(1),
        cwd: input.worktreePath,
        writable: [input.worktreePath],
        readOnly: input.sharedObjectsDir ? [input.sharedObjectsDir] : [],
        hidden: this.hiddenPaths(input.workspaceDir),
        privateTmp: ['/tmp'],
        network: { kind: 'loopback', ports: [] },
        limits: this.commandLimits(),
      });
      try {
        return await runToEnd(launch.command, launch.args, input.worktreePath, env, launch.cgroup, output);
      } finally {
        await launch.dispose();
      }
    };
  }
}

/**
 * Longest a server-side command in a checkout may take (a bundle of a large history, a checkpoint).
 * The command is forked by the spawn helper, not by the server (`spawn-helper.ts`).
 */
const CHECKOUT_COMMAND_TIMEOUT_MS = 10 * 60_000;

async function runToEnd(command: string, args: string[], cwd: string, env: Record<string, string>, cgroup?: LaunchCgroup | null, output?: CheckoutOutputCap): Promise<CheckoutCommandResult> {
  const result = await runWithinLimits(sharedSpawnHelper(), {
    command,
    args,
    cwd,
    env,
    detached: false,
    timeoutMs: CHECKOUT_COMMAND_TIMEOUT_MS,
    killGraceMs: 0,
    drainMs: null,
    maxOutputBytes: output?.maxBytes ?? null,
    keepTail: output?.keepTail ?? false,
  }, cgroup);
  // A gate's output is what the reviewer reads: the limit is said there, after what the command wrote.
  const stderr = result.stderr.toString('utf8') + (result.limitReached ? `\n${result.limitReached}; the command and every process it started were stopped\n` : '');
  return { stdout: result.stdout, stderr, exitCode: result.exitCode };
}

/**
 * Overrides for the filters and drivers a checkout's config names (`filter.<x>.clean` …), read by the
 * server's hardened git; an unreadable config yields none, and the command then fails on its own.
 */
async function programKeysOf(worktreePath: string): Promise<Array<[string, string]>> {
  const listed = await tryGit(['config', '--list', '--name-only', '-z'], { cwd: worktreePath }).catch(() => null);
  return listed ? patternedOverrides(listed.stdout.split('\0').filter(Boolean)) : [];
}
