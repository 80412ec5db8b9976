import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { query, type CanUseTool, type EffortLevel, type HookCallback, type PermissionResult, type SDKUserMessage, type SpawnedProcess, type SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import type { HookDecisionRecord, HookSession } from '../../core/hook-sessions.js';
import { addUsage, claudeSessionExists, emptyUsage, outputVerbDelivered, RunnerSandboxChoice, spawnRunnerProcess, withRunnerLaunch, type RunnerExit, type RunnerTransportOptions } from '../runner-setup.js';
import { relayModeOf } from '../../core/relay/relay-mode.js';
import { gateFailingClosed } from '../../core/transport-gate.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { modelProxyBaseUrl } from '../../llm/model-proxy-url.js';
import { anthropicUserContent } from '../../llm/anthropic-message-turns.js';
import type { PromptImage } from '../../llm/model-types.js';
import { runnerEnvironment } from '../../sandbox/runner-environment.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import type { AgentTransport, TransportResult, TransportRunContext } from '../agent-transport.js';
import { MCP_SERVER_NAME, mcpReminder, mcpToolName, mcpToolsSentence } from '../claude-code/claude-code-args.js';
import { signalProcessTree } from '../claude-code/process-tree.js';
import { ClaudeStreamTranslator } from '../claude-code/stream-translator.js';
import { CLAUDE_AGENT_SDK_CAPABILITIES, DEEPSEEK_CAPABILITIES } from './claude-agent-sdk-capabilities.js';
import type { TransportCapabilities } from '../transport-capabilities.js';
import { runSkillsPluginDir, type SkillsTarget } from '../skills-target.js';
import type { ProviderId } from '../../llm/provider-ids.js';
import { sdkModeOptions } from './relay-mode-options.js';
import { routeSdkTool } from './tool-route.js';

export { CLAUDE_AGENT_SDK_ADAPTER_ID, DEEPSEEK_ADAPTER_ID } from './claude-agent-sdk-capabilities.js';

const DEFAULT_MAX_REMINDERS = 2;

/** The folder under the workspace that holds this runner's sessions and run folders (DeepSeek's too). */
const RUNNER_FOLDER = 'claude-agent-sdk';

/** One question of a question card, as the relay asks it (RLY-4). */
export interface SdkQuestion {
  question: string;
  options?: string[];
}

/** Asks the conversation's operator (a question card); resolves with one answer per question, the RLY-4 line on timeout. */
export type AskUser = (
  request: { workspaceId: string; runId: string; agentId: string; conversationId: string; questions: SdkQuestion[] },
  signal: AbortSignal,
) => Promise<string[]>;

export interface ClaudeAgentSdkTransportOptions extends RunnerTransportOptions {
  /** Question cards (RLY-4): the composition root's question service with the workspace's timeout. */
  askUser: AskUser;
  /** Claude Code executable the SDK starts (default: the SDK's own platform binary). */
  claudePath?: string;
  maxReminders?: number;
  /**
   * Which model backend this registration speaks for: `claude` (default, the broker's `anthropic`
   * provider) or `deepseek` (RLY-7: the same path with DeepSeek's Anthropic-compatible endpoint and
   * key, the broker's `deepseek-anthropic` provider, registered under its own adapter id).
   */
  backend?: 'claude' | 'deepseek';
}

/** What differs between the Claude and DeepSeek registrations of this transport. */
const BACKENDS: Readonly<Record<'claude' | 'deepseek', { capabilities: TransportCapabilities; provider: ProviderId; defaultModel: string | null }>> = {
  claude: { capabilities: CLAUDE_AGENT_SDK_CAPABILITIES, provider: 'anthropic', defaultModel: null },
  deepseek: { capabilities: DEEPSEEK_CAPABILITIES, provider: 'deepseek-anthropic', defaultModel: 'deepseek-chat' },
};

/** A streaming-input queue: the first user message, reminders after it, closed when the turn is over. */
class InputQueue implements AsyncIterable<SDKUserMessage> {
  private readonly items: SDKUserMessage[] = [];
  private waiting: ((value: IteratorResult<SDKUserMessage>) => void) | null = null;
  private closed = false;

  /** `images` (TOOL-3): the operator's attached images, sent before the text as Anthropic image blocks. */
  push(text: string, images: readonly PromptImage[] = []): void {
    const message: SDKUserMessage = { type: 'user', message: { role: 'user', content: anthropicUserContent(text, images) }, parent_tool_use_id: null };
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: message, done: false });
    } else this.items.push(message);
  }

  close(): void {
    this.closed = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
    };
  }
}

/** AskUserQuestion's input as the SDK sends it (questions with labelled options). */
function questionsOf(input: Record<string, unknown>): SdkQuestion[] {
  const raw = Array.isArray(input.questions) ? input.questions : [];
  return raw
    .map((entry) => (typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {}))
    .filter((entry) => typeof entry.question === 'string' && entry.question !== '')
    .slice(0, 3)
    .map((entry) => {
      const options = Array.isArray(entry.options)
        ? entry.options.map((option) => (typeof option === 'object' && option !== null ? (option as Record<string, unknown>).label : option)).filter((label): label is string => typeof label === 'string')
        : [];
      return options.length > 0 ? { question: String(entry.question), options } : { question: String(entry.question) };
    });
}

/**
 * Runs agents on the Claude Agent SDK (RLY-7): `query()` with streaming input, one Claude Code engine
 * process per turn resuming the conversation's session, in the conversation's worktree, wrapped in
 * the host's OS sandbox (SBX-1) through `spawnClaudeCodeProcess`. Every tool call passes an
 * in-process PreToolUse hook (shell commands and native writes to the policy gate, unknown tools
 * refused) and `canUseTool` (question cards, the Plan ready board); the model is reached through the
 * model proxy with the run token (SEC-6). What this enforces is in the honesty matrix (ADP-1).
 */
export class ClaudeAgentSdkTransport implements AgentTransport {
  readonly id: string;
  readonly capabilities: TransportCapabilities;
  private readonly backendOf: (typeof BACKENDS)['claude'];
  private readonly sandboxChoice: RunnerSandboxChoice;

  constructor(private readonly options: ClaudeAgentSdkTransportOptions) {
    this.backendOf = BACKENDS[options.backend ?? 'claude'];
    this.capabilities = this.backendOf.capabilities;
    this.id = this.capabilities.adapterId;
    this.sandboxChoice = new RunnerSandboxChoice(options.sandbox);
  }

  /** SKL-5: the scanned skills as a plugin in the run's own folder (removed with it), loaded through the SDK's `plugins`. */
  skillsTarget(run: { workspaceDir: string; runId: string }): SkillsTarget {
    return { dir: runSkillsPluginDir(run.workspaceDir, RUNNER_FOLDER, run.runId), layout: 'claudePlugin' };
  }

  /** SEC-8: the provider the runner is pointed at through the model proxy (its backend's); its run token spends no other. */
  modelProvider(): ProviderId {
    return this.backendOf.provider;
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const log = this.options.log ?? (() => undefined);
    const profile = getCapabilityProfile(context.mode);
    const readOnly = profile.worktree === 'readOnly';
    // MODE-2, RLY-9: the relay mode is fixed when the turn starts; each turn is a fresh process, so
    // a change of mode (and the system-prompt sentences of ask/autopilot) applies from the next turn.
    const relayMode = relayModeOf(context.mode, context.autonomy);
    const modeOptions = sdkModeOptions(relayMode);
    const surfaced = context.surfacedTools.map((tool) => tool.name);
    const contract = buildCompletionContract(profile);
    const verb = contract && surfaced.includes(contract.outputVerb) ? contract.outputVerb : null;

    const remotes = context.checkout?.pushRemotes ?? [];
    // The hook route serves only the Claude Code CLI's script; this runner's hook is in-process.
    return withRunnerLaunch(
      { context, transport: this.options, sandboxChoice: this.sandboxChoice, runner: 'claude-agent-sdk', runnerName: 'Claude Agent SDK', log },
      async ({ dirs, session, sandboxed }) => {
        const { home, configDir } = dirs;
        const env = runnerEnvironment({
          source: context.env,
          home,
          brokered: { ANTHROPIC_BASE_URL: modelProxyBaseUrl(context.serverUrl, this.modelProvider()), ANTHROPIC_API_KEY: context.mcp.token },
          extra: {
            CLAUDE_CONFIG_DIR: configDir,
            CLAUDE_AGENT_SDK_CLIENT_APP: 'control-center',
            // DeepSeek: the engine's background and alias models are DeepSeek's too (no Claude model id
            // ever reaches an endpoint that does not serve it).
            ...(this.backendOf.defaultModel ? modelAliases(context.agent.modelId ?? this.backendOf.defaultModel) : {}),
            ...withSandboxGitConfig(gitPushEnvironment(context.serverUrl, context.mcp.token, remotes), { privateHome: true }),
            // Claude Code refuses its bypass mode as root unless told it is sandboxed; the host never
            // asks for bypass (it would skip canUseTool), but the SDK's own checks read this too.
            ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
          },
        });
        // The SDK's argv is known only at spawn time, so the sandbox is prepared around a launcher that
        // execs the argv it is given; the mounts and network come from this run's record alone (SEC-3).
        const launcher = await sandboxed({ command: '/bin/sh', args: ['-c', 'exec "$@"', 'sh'], readOnlyPaths: [...sdkExposedPaths(), ...(existsSync(this.skillsTarget(context).dir) ? [this.skillsTarget(context).dir] : [])] });
        const wrap = launcher.wrapped ? launcher : null;
        const resume = context.previousSessionId && (await claudeSessionExists(configDir, context.previousSessionId)) ? context.previousSessionId : null;
        return this.execute({ context, env, readOnly, relayModeSentences: modeOptions.sentences, permissionMode: modeOptions.permissionMode, surfaced, verb, contract, session, resume, wrap, log });
      },
    );
  }

  private async execute(input: {
    context: TransportRunContext;
    env: Record<string, string>;
    readOnly: boolean;
    relayModeSentences: string;
    permissionMode: 'default' | 'plan';
    surfaced: string[];
    verb: string | null;
    contract: ReturnType<typeof buildCompletionContract>;
    session: HookSession;
    resume: string | null;
    /** The sandbox launcher the SDK's argv is appended to; null when the run is unsandboxed (operator opt-in). */
    wrap: { command: string; args: string[] } | null;
    log: (message: string, detail?: unknown) => void;
  }): Promise<TransportResult> {
    const { context, session, log, verb, contract } = input;
    const decisions = new Map<string, HookDecisionRecord>();
    const translator = new ClaudeStreamTranslator({
      outputVerb: verb,
      hookDecision: (toolUseId) => {
        const record = decisions.get(toolUseId);
        return record ? { allow: record.allow, decision: record.result.decision, decidedBy: record.result.decidedBy, classes: record.result.classes } : null;
      },
    });
    const usage = emptyUsage();
    let costUsd: number | null = null;
    let reminders = 0;
    let sessionSaved: string | null = null;
    let planShown = false;
    const maxReminders = this.options.maxReminders ?? DEFAULT_MAX_REMINDERS;
    const callInputs = new Map<string, Record<string, unknown>>();
    const routeContext = { worktreePath: context.worktreePath, readOnly: input.readOnly, surfacedTools: input.surfaced };

    // POL-1: the one chokepoint every tool call passes before the SDK's own permission logic (a
    // subagent's calls too). It decides gated calls; canUseTool later only reads its decision.
    const preToolUse: HookCallback = async (hookInput, toolUseId, { signal }) => {
      if (hookInput.hook_event_name !== 'PreToolUse') return {};
      const toolInput = typeof hookInput.tool_input === 'object' && hookInput.tool_input !== null ? (hookInput.tool_input as Record<string, unknown>) : {};
      const route = routeSdkTool(hookInput.tool_name, toolInput, routeContext);
      const deny = (reason: string) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse' as const, permissionDecision: 'deny' as const, permissionDecisionReason: reason } });
      if (route.kind === 'deny') return deny(route.message);
      if (route.kind !== 'gate') return {};
      const id = toolUseId ?? hookInput.tool_use_id;
      const result = await gateFailingClosed(() => context.gate(route.action, AbortSignal.any([signal, session.signal])), []);
      const record: HookDecisionRecord = { source: 'hook', toolUseId: id, toolName: hookInput.tool_name, action: route.action, allow: result.allow, result, at: new Date().toISOString() };
      decisions.set(id, record);
      session.decisions.push(record);
      if (!result.allow) {
        const rule = `${result.decidedBy.scope}${result.decidedBy.ruleId ? ` rule ${result.decidedBy.ruleId}` : ''}`;
        return deny(`Control Center: ${result.reason.includes('decided by') ? result.reason : `${result.reason} (decided by ${rule})`}`);
      }
      return {};
    };

    const canUseTool: CanUseTool = async (toolName, toolInput, options): Promise<PermissionResult> => {
      const route = routeSdkTool(toolName, toolInput, routeContext);
      const id = options.toolUseID;
      switch (route.kind) {
        case 'deny':
          return { behavior: 'deny', message: route.message };
        case 'allow':
          return { behavior: 'allow', updatedInput: toolInput };
        case 'gate': {
          // Decided by the hook; a call the hook never saw is refused (fail closed).
          const record = id ? decisions.get(id) : undefined;
          if (record?.allow) return { behavior: 'allow', updatedInput: toolInput };
          return { behavior: 'deny', message: record ? `Control Center: ${record.result.reason}` : 'Control Center: this call was not decided by the policy engine (fail closed).' };
        }
        case 'question': {
          // RLY-4: a question card in every mode; answers go back as updatedInput.answers.
          const questions = questionsOf(toolInput);
          if (questions.length === 0 || !context.conversationId) {
            return { behavior: 'deny', message: 'Nobody can answer questions in this run. Proceed on your best judgement and state your assumptions.' };
          }
          const answers = await this.options.askUser(
            { workspaceId: context.workspaceId, runId: context.runId, agentId: context.agent.id, conversationId: context.conversationId, questions },
            AbortSignal.any([options.signal, session.signal]),
          );
          const byQuestion = Object.fromEntries(questions.map((question, index) => [question.question, answers[index] ?? '']));
          return { behavior: 'allow', updatedInput: { ...toolInput, answers: byQuestion } };
        }
        case 'planReady': {
          // RLY-5: the board, then a deny (allowing it lets the same turn go on to implement).
          // The engine strips `plan` from the input it hands the host (it reads its plan file); the
          // model's own call, as the stream showed it, still carries it.
          const sent = id ? callInputs.get(id)?.plan : undefined;
          const plan = [toolInput.plan, sent].find((value): value is string => typeof value === 'string' && value.trim() !== '') ?? translator.lastText;
          planShown = true;
          context.emit({ type: 'plan_ready', plan, source: 'native' });
          const submit = verb ? ` Also submit it with \`${mcpToolName(verb)}\` if you have not yet.` : '';
          return { behavior: 'deny', message: `The plan is now shown to the user on a "Plan ready for review" board.${submit} End your turn here: do not implement it; the user decides what happens next.` };
        }
      }
    };

    const inputQueue = new InputQueue();
    const abort = new AbortController();
    let cancelled = false;
    let childPid: number | null = null;
    const onAbort = () => {
      cancelled = true;
      inputQueue.close();
      abort.abort();
      if (childPid !== null) {
        const pid = childPid;
        void signalProcessTree(pid, 'SIGTERM').then((tree) => setTimeout(() => void signalProcessTree(pid, 'SIGKILL', tree), this.options.killGraceMs ?? 2_000).unref());
      }
    };
    context.signal.addEventListener('abort', onAbort, { once: true });

    let stderrTail = (): string => '';
    let processExit: Promise<RunnerExit> | null = null;
    const launch = input.wrap;
    const spawnProcess = (options: SpawnOptions): SpawnedProcess => {
      const command = launch ? launch.command : options.command;
      const args = launch ? [...launch.args, options.command, ...options.args] : options.args;
      const spawned = spawnRunnerProcess(command, args, { cwd: options.cwd ?? context.worktreePath, env: options.env as NodeJS.ProcessEnv });
      if (spawned.child.pid !== undefined) {
        childPid = spawned.child.pid;
        this.options.onSpawn?.(spawned.child.pid);
      }
      stderrTail = spawned.stderrTail;
      processExit = spawned.exited;
      return spawned.child;
    };
    const executable = this.options.claudePath;
    // SKL-5: with no setting sources the engine reads no skills folder of the worktree; the scanned set
    // the prepare stage wrote (if any) is the only skills plugin it loads.
    const skillsPlugin = this.skillsTarget(context).dir;
    const plugins = existsSync(join(skillsPlugin, '.claude-plugin', 'plugin.json')) ? [{ type: 'local' as const, path: skillsPlugin }] : [];

    const appendPrompt = [
      context.systemPrompt,
      mcpToolsSentence(input.surfaced),
      input.relayModeSentences,
    ]
      .filter((part) => part.trim())
      .join('\n\n');

    inputQueue.push(context.prompt, context.images);
    let lastResult: ClaudeStreamTranslator['result'] = null;
    let failure: string | null = null;
    try {
      const stream = query({
        prompt: inputQueue,
        options: {
          cwd: context.worktreePath,
          abortController: abort,
          permissionMode: input.permissionMode,
          canUseTool,
          hooks: { PreToolUse: [{ hooks: [preToolUse], onFailure: 'block' }] },
          // A worktree's .claude/settings.json is agent-controlled: no settings file is read (its
          // allow rules or hooks would decide instead of the policy engine).
          settingSources: [],
          plugins,
          strictMcpConfig: true,
          // The run token travels over stdin, not argv (where other users of the machine could read it).
          mcpServersDelivery: 'initialize',
          mcpServers: { [MCP_SERVER_NAME]: { type: 'http', url: context.mcp.url, headers: { Authorization: `Bearer ${context.mcp.token}` } } },
          disallowedTools: ['EnterWorktree', 'ExitWorktree'],
          // Seed 003, RLY-8/9: the engine would record the first turn's system prompt and send it
          // verbatim on every resume (`snapshot` defaults to true), so a switch to or from ask or
          // autopilot — and the server's own per-mode prompt — would never reach the model after a
          // conversation's first turn. Each turn is a fresh process; its prompt is rendered fresh.
          systemPrompt: { type: 'preset', preset: 'claude_code', append: appendPrompt, snapshot: false },
          env: input.env,
          ...((context.agent.modelId ?? this.backendOf.defaultModel) ? { model: (context.agent.modelId ?? this.backendOf.defaultModel)! } : {}),
          // TRUTH-1: only where the backend declares it honours effort (DeepSeek does not); the
          // value was checked against the model's vocabulary when the agent was written.
          ...(context.agent.effort && this.backendOf.capabilities.honours.agentFields.effort ? { effort: context.agent.effort as EffortLevel } : {}),
          ...(input.resume ? { resume: input.resume } : {}),
          ...(executable ? { pathToClaudeCodeExecutable: executable } : {}),
          spawnClaudeCodeProcess: spawnProcess,
          stderr: (data) => log('claude-agent-sdk stderr', data),
        },
      });
      for await (const message of stream) {
        const record = message as unknown as Record<string, unknown>;
        for (const event of translator.translate(record)) {
          if (event.type === 'tool_call_start') callInputs.set(event.call.id, event.call.input);
          context.emit(event);
        }
        if (message.type === 'system' && message.subtype === 'init' && translator.init) {
          const server = translator.init.mcpServers.find((entry) => entry.name === MCP_SERVER_NAME);
          if (server && server.status !== 'connected') {
            context.emit({ type: 'protocol_error', source: 'claude-agent-sdk', message: `the Control Center MCP server is ${server.status} in the SDK runner: its product tools are unavailable this turn` });
          }
          const sessionId = translator.init.sessionId;
          if (sessionId && sessionId !== sessionSaved) {
            sessionSaved = sessionId;
            void context.saveSessionId(sessionId).catch((error: unknown) => log('claude-agent-sdk: saving the session id failed', error));
          }
        }
        if (message.type === 'result' && translator.result) {
          lastResult = translator.result;
          addUsage(usage, lastResult.usage);
          if (lastResult.costUsd !== null) costUsd = lastResult.costUsd;
          // RLY-5 fallback: a plan turn whose answer reads like a plan but never used ExitPlanMode
          // still gets its board (once; before any completion-contract reminder).
          const answer = lastResult.text || translator.lastText;
          if (input.readOnly && !planShown && !lastResult.isError && looksLikePlan(answer)) {
            planShown = true;
            context.emit({ type: 'plan_ready', plan: answer, source: 'answer' });
          }
          // HAR-4: delivered is the host's MCP record, not the stream's tool_result (which a process could forge).
          const canRemind = contract && verb && !outputVerbDelivered(context) && !lastResult.isError && !cancelled && reminders < maxReminders;
          if (canRemind) {
            reminders += 1;
            const text = mcpReminder(contract.reminder, verb);
            context.emit({ type: 'reminder_injected', text, attempt: reminders });
            inputQueue.push(text);
          } else inputQueue.close();
        }
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    } finally {
      inputQueue.close();
      context.signal.removeEventListener('abort', onAbort);
    }
    const exited = processExit as Promise<RunnerExit> | null;
    const exit = exited ? await Promise.race([exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000).unref())]) : null;
    if (childPid !== null) await signalProcessTree(childPid, 'SIGKILL', []);

    for (const call of translator.unfinishedCalls()) {
      context.emit({ type: 'tool_call_end', call, result: { content: 'The runner ended before this call reported a result.', isError: true, details: { observedIn: 'claude-agent-sdk' } }, executed: false, durationMs: 0 });
    }
    const result = lastResult as ClaudeStreamTranslator['result'];
    const finalText = result?.text || translator.lastText;
    if (cancelled) return { outcome: 'cancelled', error: null, deliverableFailed: false, usage, costUsd, finalText };
    if (!result || failure) {
      const stderr = stderrTail().trim();
      const how = exit ? `exit ${exit.code ?? exit.signal}` : 'no exit status';
      return {
        outcome: 'failed',
        error: `The Claude Agent SDK runner ended without a result (${how})${failure ? `: ${failure}` : ''}${stderr ? ` — ${stderr.slice(-1_000)}` : ''}`,
        deliverableFailed: false,
        usage,
        costUsd,
        finalText,
      };
    }
    if (result.isError || result.subtype !== 'success') {
      return { outcome: 'failed', error: `The Claude Agent SDK reported ${result.subtype}: ${result.text || 'no detail'}`, deliverableFailed: false, usage, costUsd, finalText };
    }
    return { outcome: 'completed', error: null, deliverableFailed: Boolean(contract && verb && !outputVerbDelivered(context)), usage, costUsd, finalText };
  }
}

/** Directories the runner must read: node and the SDK's package (its platform binary sits beside it). */
function sdkExposedPaths(): string[] {
  const paths = [dirname(realpathSync(process.execPath))];
  try {
    // node_modules/@anthropic-ai: the SDK and its platform package (real paths: bind mounts need them).
    paths.push(dirname(dirname(realpathSync(new URL(import.meta.resolve('@anthropic-ai/claude-agent-sdk')).pathname))));
  } catch {
    // resolved at spawn instead
  }
  return paths.filter((path) => path.startsWith('/'));
}

/** Every model alias the engine may pick by itself, pointed at one model. */
function modelAliases(model: string): Record<string, string> {
  return { ANTHROPIC_MODEL: model, ANTHROPIC_SMALL_FAST_MODEL: model, ANTHROPIC_DEFAULT_HAIKU_MODEL: model, ANTHROPIC_DEFAULT_SONNET_MODEL: model, ANTHROPIC_DEFAULT_OPUS_MODEL: model };
}

/** RLY-5's fallback: a final answer that reads like a plan (numbered or bulleted steps, or a Plan heading). */
export function looksLikePlan(text: string): boolean {
  const steps = text.split('\n').filter((line) => /^\s*(\d+[.)]|[-*])\s+\S/.test(line)).length;
  return steps >= 2 || /^#+\s*plan\b/im.test(text);
}

