import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { getCapabilityProfile } from '../core/capability-profiles.js';
import type { HookSession, HookSessions } from '../core/hook-sessions.js';
import type { RelayMode } from '../core/relay/relay-mode.js';
import type { ModelUsage } from '../llm/model-types.js';
import type { SandboxBackend, SandboxLaunch, SandboxSpec } from '../sandbox/sandbox-spec.js';
import { configuredSandbox, type SandboxSelection } from '../sandbox/select-sandbox.js';
import type { TransportResult, TransportRunContext } from './agent-transport.js';
import { signalProcessTree } from './claude-code/process-tree.js';

/**
 * What every external runner transport (Claude Code, Claude Agent SDK, Codex, Copilot) sets up the
 * same way around its process: its scratch directories, the run's hook session (push proxy, gate),
 * the OS sandbox choice and the SEC-6 refusal when there is none, and the sandbox's network and
 * hidden paths. One place, so a rule about runners (SBX-1, SEC-3, SEC-6) is written once.
 */

/** A usage record with every counter at zero. */
export function emptyUsage(): Required<ModelUsage> {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/** Adds one model turn's usage to a run's running total (absent cache counters count as zero). */
export function addUsage(total: Required<ModelUsage>, turn: ModelUsage): void {
  total.inputTokens += turn.inputTokens;
  total.outputTokens += turn.outputTokens;
  total.cacheReadTokens += turn.cacheReadTokens ?? 0;
  total.cacheWriteTokens += turn.cacheWriteTokens ?? 0;
}

/** An id made safe as one path segment (run and conversation ids come from the database, but never trust a path built from data). */
export function safeSegment(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** A cancelled turn's result, before anything started. */
export function cancelledResult(): TransportResult {
  return { outcome: 'cancelled', error: null, deliverableFailed: false, usage: emptyUsage(), costUsd: null, finalText: '' };
}

/**
 * HAR-4 for every external runner: whether the run delivered its output verb, as the host's MCP server
 * recorded executing it — never from the runner's event stream, which a command the agent runs could
 * forge, and which some agents leave silent about their MCP calls. Decides the reminders and
 * `deliverableFailed`.
 */
export function outputVerbDelivered(context: Pick<TransportRunContext, 'completion'>): boolean {
  return context.completion?.delivered() ?? false;
}

/** Claude Code keeps a session as `<config>/projects/<project>/<id>.jsonl`: resume only one that exists. */
export async function claudeSessionExists(configDir: string, sessionId: string): Promise<boolean> {
  const projects = join(configDir, 'projects');
  const entries = await readdir(projects).catch(() => [] as string[]);
  for (const entry of entries) {
    const found = await stat(join(projects, entry, `${sessionId}.jsonl`)).then(
      () => true,
      () => false,
    );
    if (found) return true;
  }
  return false;
}

/** Where one run of one runner keeps its files under the workspace's data directory. */
export interface RunnerDirs {
  /** `<workspace>/<runner>`. */
  root: string;
  /** This run's scratch directory, removed when the run ends. */
  runDir: string;
  /** The runner's private HOME (a tmpfs inside the sandbox). */
  home: string;
  /** The runner's own state for this conversation and agent, kept across turns (sessions). */
  configDir: string;
  /** Where the push proxy stages pushes. */
  pushStagingDir: string;
}

/** Makes (0700) and returns a run's directories; `extra` names more directories under the run directory. */
export async function makeRunnerDirs(context: TransportRunContext, runner: string, extra: string[] = []): Promise<RunnerDirs & { extra: string[] }> {
  const root = join(context.workspaceDir, runner);
  const runDir = join(root, 'runs', safeSegment(context.runId));
  const home = join(runDir, 'home');
  const configDir = join(root, 'sessions', safeSegment(`${context.conversationId ?? context.runId}-${context.agent.id}`));
  const pushStagingDir = join(root, 'push-staging');
  const more = extra.map((name) => join(runDir, name));
  await Promise.all([home, configDir, pushStagingDir, ...more].map((directory) => mkdir(directory, { recursive: true, mode: 0o700 })));
  return { root, runDir, home, configDir, pushStagingDir, extra: more };
}

/**
 * Registers the run's hook session (the push proxy and, for Claude Code, the hook route read it).
 * `end()` aborts its signal and unregisters it; call it when the run is over.
 */
export function registerRunSession(
  hookSessions: HookSessions,
  context: TransportRunContext,
  pushStagingDir: string,
  options: { pushOnly?: boolean } = {},
): { session: HookSession; end: () => void } {
  const remotes = context.checkout?.pushRemotes ?? [];
  const runEnded = new AbortController();
  const session: HookSession = {
    token: context.mcp.token,
    workspaceId: context.workspaceId,
    runId: context.runId,
    mode: context.mode,
    worktreePath: context.worktreePath,
    gate: (action, signal) => context.gate(action, signal),
    signal: AbortSignal.any([runEnded.signal, context.signal]),
    // SEC-2, SEC-3: the remotes the server recorded from the user's repository, not the worktree's config.
    pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
    pushStagingDir,
    decisions: [],
    ...(options.pushOnly ? { pushOnly: true } : {}),
  };
  const unregister = hookSessions.register(session);
  return {
    session,
    end: () => {
      runEnded.abort();
      unregister();
    },
  };
}

/** The sandbox a transport's runs use, or why none; probed once per transport. */
export class RunnerSandboxChoice {
  private choice: Promise<SandboxSelection> | null = null;

  constructor(private readonly configured: 'auto' | 'none' | SandboxBackend = 'auto') {}

  get(): Promise<SandboxSelection> {
    this.choice ??= configuredSandbox(this.configured);
    return this.choice;
  }
}

/**
 * SEC-6: the result of a run refused because no OS sandbox would wrap the runner and the operator did
 * not opt in; records why on the run.
 */
export function unsandboxedRefusal(context: TransportRunContext, runnerName: string, detail: string): TransportResult {
  context.setSandbox(`none: ${detail}; refused: unsandboxed runners are not allowed on this server`);
  return {
    outcome: 'failed',
    error: `The ${runnerName} runner needs an OS sandbox and this server has none (${detail}); without one it would run as the server's user and could read the operator token. Install bubblewrap (Linux) or use macOS, or start the server with --allow-unsandboxed-runners to accept that risk (SEC-6).`,
    deliverableFailed: false,
    usage: emptyUsage(),
    costUsd: null,
    finalText: '',
  };
}

/** The line recorded on a run that goes unsandboxed by the operator's opt-in (SBX-2). */
export const UNSANDBOXED_OPT_IN =
  'unsandboxed by operator opt-in (--allow-unsandboxed-runners), fallback (SBX-2): sanitized environment (PATH, locale, private HOME, brokered model endpoint and run token only), pushes through the push proxy, conversation worktree as cwd';

function loopbackPort(url: string | undefined): { port: number } | { remote: string } | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (host === '127.0.0.1' || host === 'localhost' || host === '::1') return { port: Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)) };
    return { remote: parsed.host };
  } catch {
    return null;
  }
}

/**
 * The sandbox network for a runner that must reach `urls` (the server, its MCP endpoint, the model
 * proxy): loopback-only with those ports when all are local, else the host network, saying why.
 */
export function runnerNetwork(urls: Array<string | undefined>): SandboxSpec['network'] {
  const ports: number[] = [];
  const remote: string[] = [];
  for (const url of urls) {
    const target = loopbackPort(url);
    if (target && 'port' in target) ports.push(target.port);
    else if (target) remote.push(target.remote);
  }
  return remote.length === 0 ? { kind: 'loopback', ports } : { kind: 'host', reason: `the run needs ${[...new Set(remote)].join(', ')}, which is not on loopback` };
}

/**
 * The mounts every runner gets (SEC-3): the worktree writable only in a writable mode, the shared
 * objects read-only, the data root and (by default) the server user's home hidden, a private /tmp and
 * HOME. `writable` and `readOnly` add the runner's own paths (its state directory, its binary).
 */
export function runnerSandboxSpec(input: {
  context: TransportRunContext;
  command: string;
  args: string[];
  readOnly: boolean;
  home: string;
  writable: string[];
  readOnlyPaths: string[];
  hiddenPaths?: string[];
  hideHome?: boolean;
  network: SandboxSpec['network'];
}): SandboxSpec {
  const { context, readOnly } = input;
  const shared = context.checkout?.sharedObjectsDir ? [context.checkout.sharedObjectsDir] : [];
  const hidden = [context.workspaceDir, ...(input.hiddenPaths ?? [])];
  if (input.hideHome !== false) hidden.push(homedir());
  return {
    command: input.command,
    args: input.args,
    cwd: context.worktreePath,
    // SEC-3: the checkout is the only writable repository; the shared objects of the user's
    // repository are read-only; both come from the server's record, never from the worktree's `.git`.
    writable: [...input.writable, ...(readOnly ? [] : [context.worktreePath])],
    readOnly: [...input.readOnlyPaths, ...shared, ...(readOnly ? [context.worktreePath] : [])],
    hidden,
    privateTmp: ['/tmp', input.home],
    network: input.network,
  };
}

/**
 * The constructor options every transport that runs an external runner process takes, besides its
 * own; one declaration so that each option means the same on every runner.
 */
export interface RunnerTransportOptions {
  /** The registry the push proxy (and Claude Code's hook route) reads: the composition root's one registry. */
  hookSessions: HookSessions;
  /**
   * `auto` (default): bubblewrap/Seatbelt when the host has a working one (probed once per
   * transport); `none`: never; or a backend to use.
   */
  sandbox?: 'auto' | 'none' | SandboxBackend;
  /**
   * SEC-6: start the runner even when no OS sandbox wraps it. Off by default: unsandboxed, the runner
   * runs as the server's user and could read the operator token. The operator opts in with
   * `serve --allow-unsandboxed-runners`.
   */
  allowUnsandboxed?: boolean;
  /** Paths the sandboxed runner must not see (pass the data root: operator token, databases). */
  hiddenPaths?: string[];
  /** Also hide the server user's home directory (~/.ssh, ~/.aws, the operator's own logins). Default true. */
  hideHome?: boolean;
  /** SIGTERM → SIGKILL grace on cancel (default 2 s, see {@link killTreeAfterGrace}). */
  killGraceMs?: number;
  /** Where diagnostics go (stderr lines, protocol errors). */
  log?: (message: string, detail?: unknown) => void;
  /** Called with the runner's pid once it is spawned (tests kill it; benchmarks measure it). */
  onSpawn?: (pid: number) => void;
}

/** What {@link withRunnerLaunch} needs from a transport: who it is and how it was configured. */
export interface RunnerLaunchOptions {
  context: TransportRunContext;
  /** The runner's directory name under the workspace data directory (`codex`, `acp`, …). */
  runner: string;
  /** The runner as the run's error messages name it (`Codex`, `ACP agent`, …). */
  runnerName: string;
  /** The transport's own configuration (its constructor options). */
  transport: Pick<RunnerTransportOptions, 'hookSessions' | 'allowUnsandboxed' | 'hiddenPaths' | 'hideHome'>;
  sandboxChoice: RunnerSandboxChoice;
  /** More directories under the run directory (`extra` in the scope, in this order). */
  extraDirs?: string[];
  /** When set, an error thrown by the body fails the run with `<startFailure>: <message>` instead of propagating. */
  startFailure?: string;
  log: (message: string, detail?: unknown) => void;
}

/** What the body of {@link withRunnerLaunch} works with. */
export interface RunnerLaunchScope {
  dirs: RunnerDirs & { extra: string[] };
  session: HookSession;
  /** The mode's worktree profile says read-only (MODE-2). */
  readOnly: boolean;
  /**
   * Wraps a program in the run's OS sandbox (SEC-3 mounts, loopback network to the server and MCP)
   * and records the sandbox on the run; without a backend (operator opt-in) returns it unchanged and
   * records the SBX-2 fallback. Call once.
   */
  sandboxed(program: { command: string; args: string[]; readOnlyPaths: string[] }): Promise<{ command: string; args: string[]; wrapped: boolean }>;
}

/**
 * The launch skeleton every external runner shares: the cancelled-before-start check, the run's
 * directories, its hook session, the sandbox choice with the SEC-6 refusal, the sandbox wrapping, and
 * the cleanup (session ended, sandbox disposed, scratch directory removed) however the body ends.
 */
export async function withRunnerLaunch(options: RunnerLaunchOptions, body: (scope: RunnerLaunchScope) => Promise<TransportResult>): Promise<TransportResult> {
  const { context, log, transport } = options;
  if (context.signal.aborted) return cancelledResult();
  const readOnly = getCapabilityProfile(context.mode).worktree === 'readOnly';
  const dirs = await makeRunnerDirs(context, options.runner, options.extraDirs);
  const { session, end } = registerRunSession(transport.hookSessions, context, dirs.pushStagingDir, { pushOnly: true });
  let launch: SandboxLaunch | null = null;
  try {
    const { backend, detail } = await options.sandboxChoice.get();
    if (!backend && !transport.allowUnsandboxed) return unsandboxedRefusal(context, options.runnerName, detail);
    const sandboxed: RunnerLaunchScope['sandboxed'] = async (program) => {
      if (!backend) {
        context.setSandbox(`none: ${detail}; ${UNSANDBOXED_OPT_IN}`);
        return { command: program.command, args: program.args, wrapped: false };
      }
      launch = await backend.prepare(
        runnerSandboxSpec({
          context,
          command: program.command,
          args: program.args,
          readOnly,
          home: dirs.home,
          writable: [dirs.configDir],
          readOnlyPaths: program.readOnlyPaths,
          ...(transport.hiddenPaths ? { hiddenPaths: transport.hiddenPaths } : {}),
          ...(transport.hideHome !== undefined ? { hideHome: transport.hideHome } : {}),
          network: runnerNetwork([context.serverUrl, context.mcp.url]),
        }),
      );
      context.setSandbox(launch.description);
      return { command: launch.command, args: launch.args, wrapped: true };
    };
    return await body({ dirs, session, readOnly, sandboxed });
  } catch (error) {
    if (options.startFailure === undefined) throw error;
    return { outcome: 'failed', error: `${options.startFailure}: ${error instanceof Error ? error.message : String(error)}`, deliverableFailed: false, usage: emptyUsage(), costUsd: null, finalText: '' };
  } finally {
    end();
    await (launch as SandboxLaunch | null)?.dispose().catch((error: unknown) => log(`${options.runner}: sandbox cleanup failed`, error));
    await rm(dirs.runDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** What one turn of a runner works with once its program is prepared (wrapped in the run's sandbox). */
export interface RunnerTurnInput {
  context: TransportRunContext;
  /** The program and its arguments as they are spawned (the sandbox's wrapper, or the runner itself). */
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The mode's worktree profile says read-only (MODE-2). */
  readOnly: boolean;
  /** Fixed when the turn starts (MODE-2). */
  relayMode: RelayMode;
  log: (message: string, detail?: unknown) => void;
  /** The run's hook session: its decisions and the signal that ends with the run. */
  session: HookSession;
}

/** How a runner process ended. */
export interface RunnerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be spawned at all. */
  error: Error | null;
}

/** A spawned runner process with the two things every transport watches: its end and its last stderr. */
export interface RunnerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the process exits or fails to spawn (never rejects). */
  exited: Promise<RunnerExit>;
  /** The last ~8 kB the process wrote to stderr (for the failure message). */
  stderrTail(): string;
}

/**
 * Spawns a runner in its own process group (so cancel can signal the whole tree), piping all three
 * streams; `onSpawn` hears its pid when it has one.
 */
export function spawnRunnerProcess(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; onSpawn?: (pid: number) => void }): RunnerProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  const tail: string[] = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    tail.push(chunk);
    while (tail.join('').length > 8_000) tail.shift();
  });
  // stdin errors (EPIPE after the runner died) surface through the exit, not as an unhandled error.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<RunnerExit>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal, error: null }));
  });
  return { child, exited, stderrTail: () => tail.join('') };
}

/**
 * Cancel's last resort: the runner's whole process tree is killed once `graceMs` (default 2 s) has
 * passed, whatever the polite stop (an interrupt request, SIGTERM) achieved by then. Does not keep
 * the server alive.
 */
export function killTreeAfterGrace(pid: number | undefined, graceMs = 2_000): void {
  if (pid === undefined) return;
  setTimeout(() => void signalProcessTree(pid, 'SIGKILL', []), graceMs).unref();
}
