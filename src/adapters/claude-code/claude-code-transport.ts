import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import type { AgentEvent } from '../../harness/agent-events.js';
import { runnerEnvironment } from '../../sandbox/runner-environment.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import type { SandboxBackend, SandboxLaunch, SandboxSpec } from '../../sandbox/sandbox-spec.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { modelProxyBaseUrl } from '../../llm/model-proxy-url.js';
import type { AgentTransport, TransportResult, TransportRunContext } from '../agent-transport.js';
import { claudeCodeArgs, mcpReminder, mcpToolsSentence, userMessageLine } from './claude-code-args.js';
import { resolveClaudePath } from './claude-binary.js';
import { CLAUDE_CODE_ADAPTER_ID, CLAUDE_CODE_CAPABILITIES } from './claude-code-capabilities.js';
import { hookSettings, writeHookFiles } from './hook-script.js';
import type { HookSession, HookSessions } from '../../core/hook-sessions.js';
import { runSkillsPluginDir, type SkillsTarget } from '../skills-target.js';
import { addUsage, cancelledResult, claudeSessionExists, emptyUsage, makeRunnerDirs, outputVerbDelivered, registerRunSession, RunnerSandboxChoice, runnerNetwork, runnerSandboxSpec, UNSANDBOXED_OPT_IN, unsandboxedRefusal, type RunnerTransportOptions } from '../runner-setup.js';
import { NdjsonFramer, type MalformedLine } from './ndjson-framer.js';
import { signalProcessTree } from './process-tree.js';
import { ClaudeStreamTranslator } from './stream-translator.js';

/** The transport id agents name in `adapterId`. */
export { CLAUDE_CODE_ADAPTER_ID } from './claude-code-capabilities.js';

/** Reminders before a run that never delivered its output verb is flagged (the built-in harness's number). */
const DEFAULT_MAX_REMINDERS = 2;

/** The CLI's pid is not reported (`onSpawn`): nothing measures it yet. */
export interface ClaudeCodeTransportOptions extends Omit<RunnerTransportOptions, 'onSpawn'> {
  /** The `claude` binary (default: `$CONTROL_CENTER_CLAUDE_PATH`, else the npm package's). */
  claudePath?: string;
  /** Claude Code's hook timeout; the hook script denies 15 s before it (default 3600 s, covers approval waits). */
  hookTimeoutSeconds?: number;
  maxReminders?: number;
}


/**
 * SKL-5: where the server puts a run's scanned skills as a Claude Code plugin before the run starts
 * (`skills/<name>/…` plus `.claude-plugin/plugin.json`). Server-owned and mounted read-only: with
 * `--setting-sources ''` Claude Code does not read the worktree's `.claude/skills/`, and a plugin
 * folder the agent could write would let it add plugin hooks that run outside the gate.
 */
export function claudeSkillsPluginDir(workspaceDir: string, runId: string): string {
  return runSkillsPluginDir(workspaceDir, 'claude-code', runId);
}

/**
 * Runs agents on the Claude Code CLI (ADP-3): `claude -p` with stream-json in and out, in the
 * conversation's worktree, wrapped in the host's OS sandbox (SBX-1) or the SBX-2 fallback. Its Bash
 * commands and native file writes go through a PreToolUse hook to the run's gate; its product tools
 * come from the Control Center's MCP server; pushes go through the push proxy. What this can and
 * cannot enforce is in `src/adapters/honesty-matrix.ts` (ADP-1).
 */
export class ClaudeCodeTransport implements AgentTransport {
  readonly id = CLAUDE_CODE_ADAPTER_ID;
  readonly capabilities = CLAUDE_CODE_CAPABILITIES;

  skillsTarget(run: { workspaceDir: string; runId: string }): SkillsTarget {
    return { dir: claudeSkillsPluginDir(run.workspaceDir, run.runId), layout: 'claudePlugin' };
  }
  private readonly sessions: HookSessions;
  private readonly sandboxChoice: RunnerSandboxChoice;

  constructor(private readonly options: ClaudeCodeTransportOptions) {
    this.sessions = options.hookSessions;
    this.sandboxChoice = new RunnerSandboxChoice(options.sandbox);
  }

  /** The backend runs will use, or why none (probed once per transport). */
  sandboxBackend(): Promise<{ backend: SandboxBackend | null; detail: string }> {
    return this.sandboxChoice.get();
  }

  /** SEC-8: the provider the runner is pointed at through the model proxy; its run token spends no other. */
  modelProvider() {
    return 'anthropic' as const;
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const log = this.options.log ?? (() => undefined);
    const emit = (event: AgentEvent) => context.emit(event);
    const protocolError = (message: string, line?: string) => {
      log(`claude-code: ${message}`, line);
      context.emit({ type: 'protocol_error', source: 'claude-code', message, ...(line !== undefined ? { line } : {}) });
    };
    if (context.signal.aborted) return cancelledResult();

    const profile = getCapabilityProfile(context.mode);
    const readOnly = profile.worktree === 'readOnly';
    const surfaced = context.surfacedTools.map((tool) => tool.name);
    const contract = buildCompletionContract(profile);
    const verb = contract && surfaced.includes(contract.outputVerb) ? contract.outputVerb : null;

    const { runDir, home, configDir, pushStagingDir, extra } = await makeRunnerDirs(context, 'claude-code', ['hook']);
    const hookDir = extra[0]!;

    const hookTimeoutSeconds = this.options.hookTimeoutSeconds ?? 3600;
    const hook = await writeHookFiles(hookDir, { serverUrl: context.serverUrl, token: context.mcp.token, timeoutSeconds: hookTimeoutSeconds });
    const remotes = context.checkout?.pushRemotes ?? [];
    const { session, end } = registerRunSession(this.sessions, context, pushStagingDir);
    let launch: SandboxLaunch | null = null;
    try {
      const claudePath = this.options.claudePath ?? resolveClaudePath(context.env);
      const resume = context.previousSessionId && (await claudeSessionExists(configDir, context.previousSessionId)) ? context.previousSessionId : null;
      const appendSystemPrompt = [context.systemPrompt, mcpToolsSentence(surfaced)]
        .filter((part) => part.trim())
        .join('\n\n');
      const args = claudeCodeArgs({
        mode: context.mode,
        settings: hookSettings(hook.command, hookTimeoutSeconds),
        mcp: context.mcp,
        surfacedTools: surfaced,
        appendSystemPrompt,
        model: context.agent.modelId,
        effort: context.agent.effort,
        resumeSessionId: resume,
      });
      const pluginDir = claudeSkillsPluginDir(context.workspaceDir, context.runId);
      if (existsSync(join(pluginDir, '.claude-plugin', 'plugin.json'))) args.push(`--plugin-dir=${pluginDir}`);
      const env = runnerEnvironment({
        source: context.env,
        home,
        // SEC-6: the model is reached through the server's broker with the run token; the real key
        // and upstream stay in the server.
        brokered: { ANTHROPIC_BASE_URL: modelProxyBaseUrl(context.serverUrl, this.modelProvider()), ANTHROPIC_API_KEY: context.mcp.token },
        extra: {
          CLAUDE_CONFIG_DIR: configDir,
          // SEC-5: repository hooks and fixed-name config programs are off for the runner's git.
          ...withSandboxGitConfig(gitPushEnvironment(context.serverUrl, context.mcp.token, remotes), { privateHome: true }),
          // Claude Code refuses --dangerously-skip-permissions as root unless it is told it is sandboxed.
          ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
        },
      });

      const { backend, detail } = await this.sandboxBackend();
      if (backend) {
        launch = await backend.prepare(await this.sandboxSpec({ context, claudePath, args, readOnly, home, runDir, hookDir, configDir, env }));
        context.setSandbox(launch.description);
      } else if (!this.options.allowUnsandboxed) {
        return unsandboxedRefusal(context, 'Claude Code', detail);
      } else {
        context.setSandbox(`none: ${detail}; ${UNSANDBOXED_OPT_IN}`);
      }
      const command = launch?.command ?? claudePath;
      const commandArgs = launch?.args ?? args;
      return await this.execute({ context, command, commandArgs, env, verb, contract, session, emit, protocolError, log });
    } finally {
      end();
      await launch?.dispose().catch((error: unknown) => log('claude-code: sandbox cleanup failed', error));
      await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private async sandboxSpec(input: {
    context: TransportRunContext;
    claudePath: string;
    args: string[];
    readOnly: boolean;
    home: string;
    runDir: string;
    hookDir: string;
    configDir: string;
    env: Record<string, string>;
  }): Promise<SandboxSpec> {
    const claudeReal = await realpath(input.claudePath).catch(() => input.claudePath);
    const exposed = [dirname(claudeReal), dirname(process.execPath)].filter((path) => path.startsWith('/'));
    const plugin = claudeSkillsPluginDir(input.context.workspaceDir, input.context.runId);
    return runnerSandboxSpec({
      context: input.context,
      command: input.claudePath,
      args: input.args,
      readOnly: input.readOnly,
      home: input.home,
      writable: [input.configDir],
      readOnlyPaths: [input.hookDir, ...(existsSync(plugin) ? [plugin] : []), ...exposed],
      ...(this.options.hiddenPaths ? { hiddenPaths: this.options.hiddenPaths } : {}),
      ...(this.options.hideHome !== undefined ? { hideHome: this.options.hideHome } : {}),
      network: runnerNetwork([input.context.serverUrl, input.context.mcp.url, input.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com']),
    });
  }

  private async execute(input: {
    context: TransportRunContext;
    command: string;
    commandArgs: string[];
    env: Record<string, string>;
    verb: string | null;
    contract: ReturnType<typeof buildCompletionContract>;
    session: HookSession;
    emit: (event: AgentEvent) => void;
    protocolError: (message: string, line?: string) => void;
    log: (message: string, detail?: unknown) => void;
  }): Promise<TransportResult> {
    const { context, verb, contract, session, emit, protocolError, log } = input;
    const hookDecision = (toolUseId: string) => {
      const record = session.decisions.find((decision) => decision.toolUseId === toolUseId);
      return record ? { allow: record.allow, decision: record.result.decision, decidedBy: record.result.decidedBy, classes: record.result.classes } : null;
    };
    const translator = new ClaudeStreamTranslator({ outputVerb: verb, hookDecision });
    const usage = emptyUsage();
    let costUsd: number | null = null;
    let lastResult: ClaudeStreamTranslator['result'] = null;
    let reminders = 0;
    let sessionSaved: string | null = null;
    let cancelled = false;
    const maxReminders = this.options.maxReminders ?? DEFAULT_MAX_REMINDERS;

    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(input.command, input.commandArgs, { cwd: context.worktreePath, env: input.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      return { outcome: 'failed', error: `cannot start ${input.command}: ${error instanceof Error ? error.message : String(error)}`, deliverableFailed: false, usage, costUsd: null, finalText: '' };
    }
    // Cancel (HAR-5 for this transport): the CLI, its group, and every command it started (each Bash
    // command runs in a process group of its own). With bubblewrap the pid namespace ends them anyway.
    let tree: number[] = [];
    let killTimer: NodeJS.Timeout | null = null;
    const onAbort = () => {
      cancelled = true;
      if (child.pid === undefined) return;
      const pid = child.pid;
      void signalProcessTree(pid, 'SIGTERM').then((found) => {
        tree = found;
        killTimer = setTimeout(() => void signalProcessTree(pid, 'SIGKILL', tree), this.options.killGraceMs ?? 2_000);
      });
    };
    context.signal.addEventListener('abort', onAbort, { once: true });

    const stderrTail: string[] = [];
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderrTail.push(chunk);
      while (stderrTail.join('').length > 8_000) stderrTail.shift();
      log('claude-code stderr', chunk);
    });
    child.stdin.on('error', (error) => log('claude-code: stdin closed', error));

    const handleMessage = (message: Record<string, unknown>) => {
      for (const event of translator.translate(message)) emit(event);
      if (message.type === 'system' && message.subtype === 'init' && translator.init) {
        const server = translator.init.mcpServers.find((entry) => entry.name === 'control-center');
        if (server && server.status !== 'connected') protocolError(`the Control Center MCP server is ${server.status} in Claude Code: its product tools are unavailable this turn`);
        const sessionId = translator.init.sessionId;
        if (sessionId && sessionId !== sessionSaved) {
          sessionSaved = sessionId;
          void context.saveSessionId(sessionId).catch((error: unknown) => log('claude-code: saving the session id failed', error));
        }
      }
      if (message.type === 'result' && translator.result) {
        lastResult = translator.result;
        addUsage(usage, lastResult.usage);
        // total_cost_usd is cumulative over the process (verified): keep the newest.
        if (lastResult.costUsd !== null) costUsd = lastResult.costUsd;
        // HAR-4: delivered is the host's MCP record, not the stream's tool_result (which a process could forge).
        const canRemind = contract && verb && !outputVerbDelivered(context) && !lastResult.isError && !cancelled && reminders < maxReminders;
        if (canRemind) {
          reminders += 1;
          const text = mcpReminder(contract.reminder, verb);
          emit({ type: 'reminder_injected', text, attempt: reminders });
          child.stdin.write(userMessageLine(text));
        } else {
          child.stdin.end();
        }
      }
    };
    const framer = new NdjsonFramer(handleMessage, (malformed: MalformedLine) => protocolError(`malformed stream-json line: ${malformed.error}`, malformed.line));
    child.stdout.on('data', (chunk: Buffer) => framer.push(chunk));

    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error: Error | null }>((resolve) => {
      child.on('error', (error) => resolve({ code: null, signal: null, error }));
      child.on('close', (code, signal) => resolve({ code, signal, error: null }));
    });
    child.stdin.write(userMessageLine(context.prompt, context.images));
    const ended = await exit;
    framer.end();
    context.signal.removeEventListener('abort', onAbort);
    if (killTimer) clearTimeout(killTimer);
    // Whatever is left of a cancelled run's tree goes now; after a normal exit the CLI's own group
    // goes too (its direct leftovers). Orphans re-parented away are beyond reach without a sandbox.
    if (child.pid !== undefined) await signalProcessTree(child.pid, 'SIGKILL', cancelled ? tree : []);

    for (const call of translator.unfinishedCalls()) {
      emit({
        type: 'tool_call_end',
        call,
        result: { content: 'The runner ended before this call reported a result.', isError: true, details: { observedIn: 'claude-code' } },
        executed: false,
        durationMs: 0,
      });
    }
    const result = lastResult as ClaudeStreamTranslator['result'];
    const finalText = result?.text || translator.lastText;
    if (cancelled) return { outcome: 'cancelled', error: null, deliverableFailed: false, usage, costUsd, finalText };
    if (ended.error) return { outcome: 'failed', error: `cannot run ${input.command}: ${ended.error.message}`, deliverableFailed: false, usage, costUsd, finalText };
    if (!result) {
      const stderr = stderrTail.join('').trim();
      return {
        outcome: 'failed',
        error: `Claude Code ended without a result (exit ${ended.code ?? ended.signal})${stderr ? `: ${stderr.slice(-1_000)}` : ''}`,
        deliverableFailed: false,
        usage,
        costUsd,
        finalText,
      };
    }
    if (result.isError || result.subtype !== 'success') {
      return { outcome: 'failed', error: `Claude Code reported ${result.subtype}: ${result.text || 'no detail'}`.trim(), deliverableFailed: false, usage, costUsd, finalText };
    }
    return { outcome: 'completed', error: null, deliverableFailed: Boolean(contract && !outputVerbDelivered(context)), usage, costUsd, finalText };
  }
}
