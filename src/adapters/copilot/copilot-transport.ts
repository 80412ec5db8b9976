import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CopilotClient, RuntimeConnection, type CopilotSession, type PermissionRequest, type PermissionRequestResult, type SessionConfig, type SessionEvent } from '@github/copilot-sdk';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import { relayModeOf, type RelayMode } from '../../core/relay/relay-mode.js';
import { gateFailingClosed, type TransportAction, type TransportGateResult } from '../../core/transport-gate.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { modelProxyBaseUrl } from '../../llm/model-proxy-url.js';
import type { ToolCallBlock } from '../../llm/model-types.js';
import { runnerEnvironment } from '../../sandbox/runner-environment.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import type { SandboxLaunch } from '../../sandbox/sandbox-spec.js';
import type { AgentTransport, TransportResult, TransportRunContext } from '../agent-transport.js';
import { looksLikePlan, type AskUser } from '../claude-agent-sdk/claude-agent-sdk-transport.js';
import { signalProcessTree } from '../claude-code/process-tree.js';
import { cancelledResult, emptyUsage, killTreeAfterGrace, makeRunnerDirs, outputVerbDelivered, registerRunSession, RunnerSandboxChoice, runnerNetwork, runnerSandboxSpec, UNSANDBOXED_OPT_IN, unsandboxedRefusal, type RunnerTransportOptions, type RunnerTurnInput } from '../runner-setup.js';
import { runSkillsPluginDir, type SkillsTarget } from '../skills-target.js';
import type { TransportCapabilities } from '../transport-capabilities.js';
import { nextRelayModeLine } from '../last-relay-mode.js';
import { COPILOT_ADAPTER_ID, COPILOT_CAPABILITIES, COPILOT_EXTENSION_ADAPTER_ID, COPILOT_EXTENSION_CAPABILITIES } from './copilot-capabilities.js';
import { copilotAgentMode } from './copilot-modes.js';
import { confineCopilotSkills } from './copilot-skills.js';
import { APPROVE, approvalQuestion, classifyCopilotPermission, CONTROL_CENTER_MCP_SERVER, DENY } from './copilot-permission.js';
import { absoluteCommand, resolveCopilotRuntime } from './copilot-runtime.js';

export { COPILOT_ADAPTER_ID } from './copilot-capabilities.js';

/** Reminders before a run that never delivered its output verb is flagged (the other transports' number). */
const MAX_REMINDERS = 2;
/** The model a Copilot agent runs when it names none. */
const DEFAULT_COPILOT_MODEL = 'gpt-5.4';
/**
 * The start of the line the question service answers with when nobody answered in time (RLY-4,
 * `NO_RESPONSE_LINE` in the question service, which adapters may not import).
 */
const NO_RESPONSE_PREFIX = '[No user response before timeout';
/** RLY-8: the extension engine has no settable mode, so every mode but agent travels as the line. */
const EXTENSION_LINE_MODES: readonly RelayMode[] = ['ask', 'plan', 'autopilot'];
/** What the agent is told when plan mode refuses a mutating request (RLY-7). */
const PLAN_MODE_REFUSAL = 'You are in plan mode: nothing may be changed. Finish the plan instead.';

export interface CopilotTransportOptions extends RunnerTransportOptions {
  /** Question cards (RLY-4) for `ask_user` and Ask-mode approvals. */
  askUser: AskUser;
  /**
   * Where the runtime unpacks its bundled package on first start (≈235 MB, several seconds): shared
   * by every run so only the first pays for it. Default `<workspace>/copilot/runtime-cache`.
   */
  runtimeCacheDir?: string;
  /**
   * `sdk` (default, adapter `copilot`): Copilot's agentMode per message and every permission request
   * answered by the host. `extension` (adapter `copilot-extension`): the extension engine — the relay
   * mode as the RLY-8 line at the start of a message when it changes, no agentMode, and every
   * permission request approved without a check (the honesty matrix says so).
   */
  engine?: 'sdk' | 'extension';
}

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A permission answer Copilot understands (`approve-once | reject | user-not-available`). */
function reject(feedback: string): PermissionRequestResult {
  return { kind: 'reject', feedback };
}

/**
 * The runtime process the SDK spawned. The SDK exposes neither its pid nor its exit, and a dead
 * runtime must fail the run instead of leaving it waiting, so the transport reads the SDK's field.
 */
function runtimeProcess(client: CopilotClient): ChildProcess {
  const child = (client as unknown as { cliProcess?: ChildProcess | null }).cliProcess;
  if (!child) throw new Error('the Copilot SDK started no runtime process');
  return child;
}

/**
 * Runs agents on GitHub Copilot through `@github/copilot-sdk` (RLY-7): one `@github/copilot` runtime
 * per turn, resuming the conversation's session, inside the host's OS sandbox (SBX-1), offline
 * (`COPILOT_OFFLINE`) with a BYOK provider that is the Control Center's model proxy holding only the
 * run token (SEC-6). Each message carries the relay mode as Copilot's `agentMode`. Every permission
 * request is answered by the host: reads approved; in agent and autopilot the policy gate decides
 * (POL-1, fail closed POL-4); plan refuses anything mutating; ask asks the policy first (a deny wins
 * at once) and then the operator through a question card. `ask_user` is a question card (RLY-4);
 * `exit_plan_mode` is a Plan ready board and is not approved (RLY-5), so a plan turn never implements.
 */
export class CopilotTransport implements AgentTransport {
  readonly id: string;
  readonly capabilities: TransportCapabilities;
  private readonly extension: boolean;
  private readonly sandboxChoice: RunnerSandboxChoice;

  constructor(private readonly options: CopilotTransportOptions) {
    this.sandboxChoice = new RunnerSandboxChoice(options.sandbox);
    this.extension = options.engine === 'extension';
    this.id = this.extension ? COPILOT_EXTENSION_ADAPTER_ID : COPILOT_ADAPTER_ID;
    this.capabilities = this.extension ? COPILOT_EXTENSION_CAPABILITIES : COPILOT_CAPABILITIES;
  }

  /** SKL-5: the scanned skills as bare folders in the run's own folder, the session's only skill directory. */
  skillsTarget(run: { workspaceDir: string; runId: string }): SkillsTarget {
    return { dir: runSkillsPluginDir(run.workspaceDir, 'copilot', run.runId), layout: 'skillFolders' };
  }

  /** SEC-8: the provider the runner is pointed at through the model proxy; its run token spends no other. */
  modelProvider() {
    return 'openai' as const;
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const log = this.options.log ?? (() => undefined);
    if (context.signal.aborted) return cancelledResult();
    const readOnly = getCapabilityProfile(context.mode).worktree === 'readOnly';
    // MODE-2, RLY-9: fixed at turn start; a mode change applies from the next message.
    const relayMode = relayModeOf(context.mode, context.autonomy);
    const { root, runDir, home, configDir, pushStagingDir } = await makeRunnerDirs(context, 'copilot');
    const cacheDir = this.options.runtimeCacheDir ?? join(root, 'runtime-cache');
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    const { session, end } = registerRunSession(this.options.hookSessions, context, pushStagingDir, { pushOnly: true });
    let launch: SandboxLaunch | null = null;
    try {
      const runtime = resolveCopilotRuntime(context.env);
      const skillsRoot = this.skillsTarget(context).dir;
      const model = context.agent.modelId ?? DEFAULT_COPILOT_MODEL;
      const modelBaseUrl = modelProxyBaseUrl(context.serverUrl, this.modelProvider());
      const remotes = context.checkout?.pushRemotes ?? [];
      const env = runnerEnvironment({
        source: context.env,
        home,
        passThrough: [],
        // SEC-6: the model proxy's run token, never a real key. The runtime refuses to start offline
        // without a provider in its environment; sessions get the same one as BYOK config.
        brokered: { COPILOT_PROVIDER_API_KEY: context.mcp.token },
        extra: {
          COPILOT_OFFLINE: 'true',
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_WIRE_API: 'responses',
          COPILOT_PROVIDER_BASE_URL: modelBaseUrl,
          COPILOT_MODEL: model,
          COPILOT_HOME: configDir,
          XDG_CACHE_HOME: cacheDir,
          XDG_CONFIG_HOME: join(home, '.config'),
          XDG_STATE_HOME: join(home, '.state'),
          PATH: context.env.PATH ?? process.env.PATH ?? '/usr/bin:/bin',
          ...withSandboxGitConfig(gitPushEnvironment(context.serverUrl, context.mcp.token, remotes), { privateHome: true }),
        },
      });
      const { backend, detail } = await this.sandboxChoice.get();
      if (!backend && !this.options.allowUnsandboxed) return unsandboxedRefusal(context, 'Copilot', detail);
      if (backend) {
        // The SDK appends its own flags (`--headless --stdio …`) after these arguments, so the
        // sandbox's command line must end with the runtime binary.
        launch = await backend.prepare(
          runnerSandboxSpec({
            context,
            command: runtime.binary,
            args: [],
            readOnly,
            home,
            writable: [configDir, cacheDir],
            readOnlyPaths: [runtime.packageDir, ...(existsSync(skillsRoot) ? [skillsRoot] : [])],
            ...(this.options.hiddenPaths ? { hiddenPaths: this.options.hiddenPaths } : {}),
            ...(this.options.hideHome !== undefined ? { hideHome: this.options.hideHome } : {}),
            network: runnerNetwork([context.serverUrl, context.mcp.url]),
          }),
        );
        context.setSandbox(launch.description);
      } else context.setSandbox(`none: ${detail}; ${UNSANDBOXED_OPT_IN}`);
      // RLY-8, extension engine: the mode travels as a line at the start of the message, only on a change.
      const modeLine = this.extension ? await nextRelayModeLine(configDir, relayMode, EXTENSION_LINE_MODES) : null;
      const prompt = modeLine ? `${modeLine}\n\n${context.prompt}` : context.prompt;
      return await this.execute({ context, command: launch ? absoluteCommand(launch.command, process.env.PATH) : runtime.binary, args: launch?.args ?? [], env, readOnly, relayMode, model, modelBaseUrl, log, session, skillsRoot, prompt });
    } catch (error) {
      return { outcome: 'failed', error: `The Copilot runner could not start: ${error instanceof Error ? error.message : String(error)}`, deliverableFailed: false, usage: emptyUsage(), costUsd: null, finalText: '' };
    } finally {
      end();
      await launch?.dispose().catch((error: unknown) => log('copilot: sandbox cleanup failed', error));
      await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private async execute(
    input: RunnerTurnInput & {
      /** The message as sent (with the extension engine's mode line). */
      prompt: string;
      model: string;
      modelBaseUrl: string;
      /** The run's materialized scanned skills (SKL-5); the only skills the session may offer. */
      skillsRoot: string;
    },
  ): Promise<TransportResult> {
    const { context, log, readOnly, relayMode } = input;
    const usage = emptyUsage();
    const requestSignal = AbortSignal.any([context.signal, input.session.signal]);
    const calls = new Map<string, { call: ToolCallBlock; started: number; verb: boolean }>();
    // HAR-4: the mode's output verb, when it is on the surface. Delivered is what the host's MCP server
    // recorded (outputVerbDelivered); Copilot's report of a successful call of it only names the event.
    const contract = buildCompletionContract(getCapabilityProfile(context.mode));
    const verb = contract && context.surfacedTools.some((tool) => tool.name === contract.outputVerb) ? contract.outputVerb : null;
    let verbReported = false;
    let finalText = '';
    let planShown = false;
    // RLY-5: in Ask, an answer that reads like a plan gets a board only when nothing was approved.
    let approvedThisTurn = false;

    const showPlan = (plan: string, source: 'native' | 'answer') => {
      if (planShown || !plan.trim()) return;
      planShown = true;
      context.emit({ type: 'plan_ready', plan, source });
    };

    // Each decision is kept on the run's session like a hook decision: Copilot's permission request is
    // its pre-execution hook.
    const record = (action: TransportAction, toolCallId: string | undefined, result: TransportGateResult) => {
      input.session.decisions.push({ source: 'hook', toolUseId: toolCallId ?? null, toolName: action.toolName, action, allow: result.allow, result, at: new Date().toISOString() });
    };

    const ask = async (questions: Array<{ question: string; options?: string[] }>): Promise<string[] | null> => {
      if (!context.conversationId) return null;
      return this.options.askUser({ workspaceId: context.workspaceId, runId: context.runId, agentId: context.agent.id, conversationId: context.conversationId, questions }, requestSignal);
    };

    const onPermissionRequest = async (request: PermissionRequest): Promise<PermissionRequestResult> => {
      // The extension engine makes no permission checks: everything is approved (the matrix says so).
      if (this.extension) return { kind: 'approve-once' };
      const classified = classifyCopilotPermission(request as unknown as Json);
      const toolCallId = 'toolCallId' in request ? request.toolCallId : undefined;
      if (classified.kind === 'read' || classified.kind === 'product') return { kind: 'approve-once' };
      if (classified.kind === 'refuse') return reject(`Refused by the Control Center: ${classified.reason}.`);
      // MODE-2: a read-only mode never changes anything, whatever the policy would allow.
      if (readOnly || relayMode === 'plan') return reject(PLAN_MODE_REFUSAL);
      if (relayMode !== 'ask' || !context.decide) {
        // Agent and autopilot: the policy gate decides (and the operator, where a rule asks).
        const gated = await gateFailingClosed(() => context.gate(classified.action, requestSignal), []);
        record(classified.action, toolCallId, gated);
        if (!gated.allow) return reject(`Denied by the Control Center policy: ${gated.reason}`);
        approvedThisTurn = true;
        return { kind: 'approve-once' };
      }
      // RLY-7 Ask: the policy decides first, and a deny is final before any card is shown (POL-1);
      // what it allows or would ask about, the operator confirms on a question card.
      const verdict = await context.decide(classified.action).catch((error: unknown) => ({
        decision: 'deny' as const,
        reason: `the policy check failed: ${error instanceof Error ? error.message : String(error)} (fail closed)`,
        decidedBy: { scope: 'default' as const, ruleId: null },
        classes: [],
      }));
      if (verdict.decision === 'deny') {
        record(classified.action, toolCallId, { ...verdict, allow: false });
        return reject(`Denied by the Control Center policy: ${verdict.reason}`);
      }
      const answers = await ask([approvalQuestion(classified.summary)]).catch((error: unknown) => {
        log('copilot: the approval card failed', error);
        return null;
      });
      const answer = (answers?.[0] ?? '').trim();
      if (!answers || answer.startsWith(NO_RESPONSE_PREFIX)) {
        record(classified.action, toolCallId, { ...verdict, allow: false, reason: 'nobody answered the question card' });
        return { kind: 'user-not-available' };
      }
      if (answer === APPROVE) {
        record(classified.action, toolCallId, { ...verdict, allow: true, reason: 'approved on the question card' });
        approvedThisTurn = true;
        return { kind: 'approve-once', approvedInteractively: true };
      }
      record(classified.action, toolCallId, { ...verdict, allow: false, reason: 'denied on the question card' });
      return reject(answer === DENY ? 'The user denied this action.' : `The user denied this action: ${answer}`);
    };

    const handleEvent = (event: SessionEvent) => {
      const data = (event as { data?: Json }).data ?? {};
      switch (event.type) {
        case 'assistant.message_delta':
          context.emit({ type: 'text_delta', text: text(data.deltaContent) });
          return;
        case 'assistant.message':
          if (text(data.content).trim()) finalText = text(data.content);
          return;
        case 'tool.execution_start': {
          const id = text(data.toolCallId);
          const args = typeof data.arguments === 'object' && data.arguments !== null ? (data.arguments as Record<string, unknown>) : {};
          const call: ToolCallBlock = { type: 'tool_call', id, name: text(data.mcpToolName) || text(data.toolName), input: args };
          const isVerb = verb !== null && text(data.mcpServerName) === CONTROL_CENTER_MCP_SERVER && text(data.mcpToolName) === verb;
          calls.set(id, { call, started: Date.now(), verb: isVerb });
          context.emit({ type: 'tool_call_start', call });
          return;
        }
        case 'tool.execution_complete': {
          const id = text(data.toolCallId);
          const started = calls.get(id);
          if (!started) return;
          calls.delete(id);
          const result = (data.result ?? {}) as Json;
          const error = (data.error ?? null) as Json | null;
          const success = data.success === true;
          if (started.verb && success && !verbReported) {
            verbReported = true;
            context.emit({ type: 'output_verb_delivered', toolName: started.call.name });
          }
          context.emit({
            type: 'tool_call_end',
            call: started.call,
            result: { content: success ? text(result.content) : text(error?.message) || 'failed', isError: !success, details: { observedIn: 'copilot', ...(error ? { code: text(error.code) } : {}) } },
            // A refused request never ran; any other failure ran and failed.
            executed: success || text(error?.code) !== 'denied',
            durationMs: Date.now() - started.started,
          });
          return;
        }
        case 'assistant.usage':
          usage.inputTokens += Number(data.inputTokens ?? 0);
          usage.outputTokens += Number(data.outputTokens ?? 0);
          usage.cacheReadTokens += Number(data.cacheReadTokens ?? 0);
          usage.cacheWriteTokens += Number(data.cacheWriteTokens ?? 0);
          return;
        default:
          return;
      }
    };

    const sessionConfig: SessionConfig = {
      clientName: 'control-center',
      model: input.model,
      // TRUTH-1: the runtime sends it as the Responses request's reasoning effort (both engines).
      ...(context.agent.effort ? { reasoningEffort: context.agent.effort as NonNullable<SessionConfig['reasoningEffort']> } : {}),
      workingDirectory: context.worktreePath,
      provider: { type: 'openai', wireApi: 'responses', baseUrl: input.modelBaseUrl, apiKey: context.mcp.token },
      systemMessage: { mode: 'append', content: context.systemPrompt },
      mcpServers: { [CONTROL_CENTER_MCP_SERVER]: { type: 'http', url: context.mcp.url, headers: { authorization: `Bearer ${context.mcp.token}` }, tools: ['*'] } },
      // SKL-5: skills on, with the run's scanned folder as the only directory; every other skill the
      // runtime loads is disabled once the session exists (confineCopilotSkills).
      enableSkills: true,
      skillDirectories: existsSync(input.skillsRoot) ? [input.skillsRoot] : [],
      enableSessionTelemetry: false,
      onPermissionRequest,
      onUserInputRequest: async (request) => {
        const answers = await ask([{ question: request.question, ...(request.choices && request.choices.length > 0 ? { options: request.choices } : {}) }]);
        const answer = answers?.[0] ?? '';
        return { answer, wasFreeform: !(request.choices ?? []).includes(answer) };
      },
      // RLY-5: Copilot's native plan signal. Approving it would let the same turn implement. The
      // extension engine has no plan mode, so the tool is not offered there (it exists only with a handler).
      ...(this.extension
        ? {}
        : {
            onExitPlanModeRequest: (request: { planContent?: string; summary: string }) => {
              showPlan(request.planContent || request.summary, 'native');
              return { approved: false, feedback: 'The plan is shown to the user, who decides how to continue. End the turn now.' };
            },
          }),
      onEvent: handleEvent,
    };

    const client = new CopilotClient({
      connection: RuntimeConnection.forStdio({ path: input.command, args: input.args, env: input.env }),
      workingDirectory: context.worktreePath,
      useLoggedInUser: false,
      logLevel: 'error',
    });
    let cancelled = false;
    let failure: string | null = null;
    let idle = false;
    let child: ChildProcess | null = null;
    let copilotSession: CopilotSession | null = null;
    // Resolves the wait of the current message: idle, an error, the runtime's exit, or a cancel.
    let wake: () => void = () => undefined;
    const onAbort = () => {
      cancelled = true;
      void copilotSession?.abort().catch(() => undefined);
      killTreeAfterGrace(child?.pid, this.options.killGraceMs);
      wake();
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    let exitDescription: string | null = null;
    try {
      await client.start();
      child = runtimeProcess(client);
      if (child.pid !== undefined) this.options.onSpawn?.(child.pid);
      const stderrTail: string[] = [];
      child.stderr?.on('data', (chunk: Buffer) => {
        stderrTail.push(chunk.toString('utf8'));
        while (stderrTail.join('').length > 4_000) stderrTail.shift();
      });
      child.once('exit', (code, signal) => {
        exitDescription = `exit ${signal ?? code}${stderrTail.length > 0 ? ` — ${stderrTail.join('').trim().slice(-1_000)}` : ''}`;
        wake();
      });
      if (context.previousSessionId) {
        copilotSession = await client.resumeSession(context.previousSessionId, sessionConfig).catch((error: unknown) => {
          log('copilot: resuming the session failed, starting a new one', error);
          return null;
        });
      }
      copilotSession ??= await client.createSession(sessionConfig);
      if (copilotSession.sessionId !== context.previousSessionId) await context.saveSessionId(copilotSession.sessionId).catch((error: unknown) => log('copilot: saving the session id failed', error));
      copilotSession.on('session.idle', () => {
        idle = true;
        wake();
      });
      copilotSession.on('session.error', (event) => {
        failure = `Copilot reported an error: ${event.data.message}`;
        context.emit({ type: 'protocol_error', source: 'copilot', message: failure });
        wake();
      });
      const turn = async (prompt: string) => {
        idle = false;
        const done = new Promise<void>((resolve) => (wake = resolve));
        if (exitDescription !== null || cancelled) return;
        // SKL-5: before every message — a command of the previous one may have written a SKILL.md.
        await confineCopilotSkills(copilotSession!, input.skillsRoot);
        await copilotSession!.send({ prompt, agentMode: this.extension ? 'interactive' : copilotAgentMode(relayMode) });
        await done;
        // RLY-5 fallback (before any reminder replaces the answer): a plan turn, or an Ask turn that
        // approved nothing, whose answer reads like a plan.
        if (idle && (relayMode === 'plan' || (relayMode === 'ask' && !approvedThisTurn)) && looksLikePlan(finalText)) showPlan(finalText, 'answer');
      };
      await turn(input.prompt);
      // HAR-4: a turn that ended without the output verb gets the contract's reminder as a new message.
      for (let attempt = 1; contract && verb && !outputVerbDelivered(context) && !cancelled && idle && !failure && attempt <= MAX_REMINDERS; attempt += 1) {
        const reminder = `${contract.reminder}\n\n(In this runner the tool is \`${verb}\` of the ${CONTROL_CENTER_MCP_SERVER} MCP server.)`;
        context.emit({ type: 'reminder_injected', text: reminder, attempt });
        await turn(reminder);
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    } finally {
      context.signal.removeEventListener('abort', onAbort);
    }
    await client.forceStop().catch((error: unknown) => log('copilot: stopping the runtime failed', error));
    if (child?.pid !== undefined) await signalProcessTree(child.pid, 'SIGKILL', []);
    for (const started of calls.values()) {
      context.emit({ type: 'tool_call_end', call: started.call, result: { content: 'The runner ended before this call reported a result.', isError: true, details: { observedIn: 'copilot' } }, executed: false, durationMs: 0 });
    }
    if (cancelled) return { outcome: 'cancelled', error: null, deliverableFailed: false, usage, costUsd: null, finalText };
    if (!idle || failure) {
      const how = exitDescription ?? 'still running';
      return { outcome: 'failed', error: `The Copilot runner ended without finishing the turn (${how})${failure ? `: ${failure}` : ''}`, deliverableFailed: false, usage, costUsd: null, finalText };
    }
    return { outcome: 'completed', error: null, deliverableFailed: Boolean(verb && !outputVerbDelivered(context)), usage, costUsd: null, finalText };
  }
}
