import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { join, resolve as resolvePath, sep } from 'node:path';
import type { AgentTransport, TransportAction, TransportGateResult, TransportResult, TransportRunContext } from '../../adapters/agent-transport.js';
import { BUILTIN_CAPABILITIES } from '../../adapters/builtin/builtin-capabilities.js';
import { unavailableCapabilities, type TransportCapabilities } from '../../adapters/transport-capabilities.js';
import type { HookSessions } from '../../core/hook-sessions.js';
import { buildCapabilityPreamble } from '../../core/capability-preamble.js';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { worktreeState } from '../../core/worktree-state.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import type { AutonomyLevel, Mode } from '../../core/modes.js';
import { spaceModeToPicker } from '../../core/picker.js';
import type { ToolDescriptor } from '../../core/tool-descriptor.js';
import { buildToolSurface } from '../../core/tool-surface.js';
import { DomainError } from '../../errors/index.js';
import { nowIso } from '../../ids.js';
import type { AgentEvent } from '../../harness/agent-events.js';
import { runAgentLoop } from '../../harness/agent-loop.js';
import { assembleSystemPrompt } from '../../harness/assemble-system-prompt.js';
import { computeCost, resolveModel, type ResolvedModel } from '../../llm/model-catalog.js';
import type { ModelMessage, ToolCallBlock } from '../../llm/model-types.js';
import type { Agent } from '../../schemas/agent.js';
import type { Run } from '../../schemas/run.js';
import { CommandSandbox } from '../../sandbox/command-sandbox.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import { builtinTools, parseToolInput, toModelTool, toolDescriptors } from '../../tools/builtin-tools.js';
import { fail, type Tool, type ToolContext, type ToolResult } from '../../tools/define-tool.js';
import { checkoutPushRemotes, type ConversationWorktree } from '../../git/git-worktrees.js';
import { NodeWorktree, type NodeWorktreeOptions } from '../../worktree/node-worktree.js';
import { sanitizedEnv } from '../../sandbox/sanitized-env.js';
import type { ModelBroker } from '../model-broker.js';
import type { ActiveRun, ActiveRuns } from './active-runs.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import { CheckoutService } from '../workspaces/checkout-service.js';
import type { EventBus } from '../event-bus.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { LivenessWatchdog } from './liveness-watchdog.js';
import type { MessageService } from './message-service.js';
import type { PolicyService, PolicyVerdict } from '../approvals/policy-service.js';
import type { PresenceService } from '../agents/presence-service.js';
import type { QuestionService } from '../approvals/question-service.js';
import { RunLog } from './run-log.js';
import type { RunService } from './run-service.js';
import type { RunTokens } from './run-tokens.js';
import { ToolCallGate } from './tool-call-gate.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

/** How a run ended: its final row and the last text the agent wrote (its answer or report). */
export interface RunOutcome {
  run: Run;
  finalText: string;
}

/** Extra tools a mode brings (plan verbs, review verbs…), registered by the services that own them. */
export type ModeToolProvider = (context: {
  workspaceId: string;
  runId: string;
  agent: Agent;
  spaceId: string | null;
  /** The conversation the run speaks in (posts, plans, questions); null for a child run, which reports to its parent. */
  conversationId: string | null;
  /** The conversation whose run tree the run belongs to (a child run's too); its own children join it. */
  treeConversationId: string | null;
  mode: Mode;
}) => Tool[];

/** What one built-in harness run needs to start. */
export interface StartRunInput {
  workspaceId: string;
  agent: Agent;
  /** The space's id, or null for a one-shot run (MODE-2 → chat). */
  spaceId: string | null;
  /**
   * The conversation whose run tree the run belongs to. A top-level run speaks in it (messages,
   * questions, plans, the runner's session); a child run (`parentRunId` set) is only listed in its
   * tree and reports back to its parent as a tool result.
   */
  conversationId: string | null;
  /** The mode and autonomy fixed at turn start; the turn keeps them (MODE-2, RLY-9). */
  mode: Mode;
  autonomy: AutonomyLevel;
  prompt: string;
  history?: ModelMessage[];
  parentRunId?: string | null;
  depth?: number;
  /** A child run's surface can only be narrower than its parent's (HAR-5). */
  surfaceCeiling?: ReadonlySet<string>;
  /** The parent's agent, whose policy also applies to a child (its denies are a ceiling). */
  parentAgentId?: string | null;
  repoPath?: string | null;
  /**
   * The checkout the run works in (SEC-7): a subagent's or a delegate's is its parent's, so a child
   * run never makes a branch or a checkout of its own. Default: the parent run's checkout when
   * `parentRunId` names a run in progress, else the conversation's, else the run's own.
   */
  checkoutKey?: string;
  /** Set when the run executes one step of an approved plan (PLAN-8). */
  planStep?: { planId: string; key: string };
  /** Called with the final result when the run has ended and been recorded. */
  onFinished?: (run: Run, finalText: string) => void | Promise<void>;
}

export interface RunExecutorOptions {
  /** Milliseconds in one "minute" of silenceTimeoutMinutes; shortened only by tests. */
  minuteMs: number;
  env: Record<string, string | undefined>;
  maxTokens: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
  /** The OS sandbox for the built-in `bash` (default: the host's backend, probed once). */
  commandSandbox?: CommandSandbox;
  /** Where built-in runs register with the push proxy: the composition root's one registry. */
  hookSessions: HookSessions;
  /** The loopback model endpoint external runners call with their run token (SEC-6); it meters their usage. */
  modelBroker?: ModelBroker;
  /** The process's one logger: failures that must not go unnoticed (lost run-log writes, run-row updates) go to it at error level. */
  logger: Logger;
}

const MAX_REMINDERS = 2;

/** The conversation a run speaks in: its own for a top-level run, none for a child run (it reports to its parent). */
function speaksIn(input: Pick<StartRunInput, 'conversationId' | 'parentRunId'>): string | null {
  return input.parentRunId ? null : input.conversationId;
}

/** Built-in tools an external runner has its own version of; they are not served over MCP. */
const NATIVE_EQUIVALENTS = new Set(['read', 'list', 'glob', 'grep', 'write', 'edit', 'bash', 'task', 'todo']);

interface ExternalRun {
  tools: Map<string, Tool>;
  executeTool(call: ToolCallBlock, signal: AbortSignal): Promise<ToolResult>;
  emit(event: AgentEvent): void;
}

/**
 * Runs agents on the built-in harness (HAR-1..7): builds the mode's tool surface, prompt and model
 * from the capability profile, gates every call through the policy engine and approvals, writes the
 * run log, and streams every event to the workspace's SSE channel.
 */
export class RunExecutor {
  private readonly modeTools: ModeToolProvider[] = [];
  private readonly transports = new Map<string, AgentTransport>();
  /** Runs on external transports: their product tools, callable over MCP with the run's token. */
  private readonly externalRuns = new Map<string, ExternalRun>();
  private serverUrl = '';
  private readonly commandSandbox: CommandSandbox;
  private readonly hookSessions: HookSessions;
  private readonly toolCallGate: ToolCallGate;
  /** The conversations' checkouts: made, recorded, mounted and synced back (HAR-7, SEC-3). */
  readonly checkouts: CheckoutService;
  /** Checkout key of each run in progress, so its child runs share it (SEC-7). */
  private readonly checkoutKeys = new Map<string, string>();
  private readonly logger: Logger;

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly agents: AgentService,
    private readonly runs: RunService,
    private readonly active: ActiveRuns,
    private readonly events: EventBus,
    private readonly messages: MessageService,
    private readonly approvals: ApprovalService,
    private readonly questions: QuestionService,
    private readonly policy: PolicyService,
    private readonly presence: PresenceService,
    private readonly settings: SettingsService,
    private readonly runTokens: RunTokens,
    private readonly options: RunExecutorOptions,
  ) {
    this.logger = options.logger;
    this.commandSandbox = options.commandSandbox ?? new CommandSandbox();
    this.hookSessions = options.hookSessions;
    this.toolCallGate = new ToolCallGate(events, approvals, policy, presence, settings);
    this.checkouts = new CheckoutService(workspaces, this.commandSandbox);
  }

  /** Reports a failure with its error object (serialized by the logger, stack included). */
  private logError(message: string, error: unknown): void {
    this.logger.error({ err: error }, message);
  }

  registerModeTools(provider: ModeToolProvider): void {
    this.modeTools.push(provider);
  }

  /** Makes an external runner available for agents whose `adapterId` is its id (ADP-1). */
  registerTransport(transport: AgentTransport): void {
    this.transports.set(transport.id, transport);
  }

  /** What the transport an agent runs on declares (the built-in harness when it names no adapter). */
  capabilitiesFor(agent: Pick<Agent, 'adapterId'>): TransportCapabilities {
    if (!agent.adapterId) return BUILTIN_CAPABILITIES;
    return this.transports.get(agent.adapterId)?.capabilities ?? unavailableCapabilities(agent.adapterId);
  }

  /** Every transport's declaration, the built-in harness first (the honesty matrix is checked against them). */
  transportCapabilities(): TransportCapabilities[] {
    return [BUILTIN_CAPABILITIES, ...[...this.transports.values()].map((transport) => transport.capabilities)];
  }

  /**
   * The names of the tools a run in `mode` can be given before surface filtering: the built-in tools
   * and every mode-tool provider's. Lets a test check that a declared output verb really exists.
   */
  toolNamesFor(mode: Mode): string[] {
    const placeholder = { workspaceId: '', runId: '', agent: {} as Agent, spaceId: null, conversationId: null, treeConversationId: null, mode };
    return [...builtinTools(), ...this.modeTools.flatMap((provider) => provider(placeholder))].map((tool) => tool.name);
  }

  /** The server's own base URL, once it listens (external runners call back into it). */
  setServerUrl(url: string): void {
    this.serverUrl = url;
  }

  /** Product tools an external run may call over MCP, already narrowed to its mode's surface. */
  externalTools(runId: string): Tool[] {
    return [...(this.externalRuns.get(runId)?.tools.values() ?? [])];
  }

  /** Calls one product tool for an external run, through the same gate as the built-in harness. */
  async callExternalTool(runId: string, name: string, input: unknown, signal: AbortSignal): Promise<ToolResult> {
    const run = this.externalRuns.get(runId);
    if (!run) return fail(`run ${runId} is not in progress`);
    if (!run.tools.has(name)) return fail(`There is no tool named "${name}" here.`);
    const call: ToolCallBlock = { type: 'tool_call', id: `mcp_${randomUUID()}`, name, input: (input ?? {}) as Record<string, unknown> };
    run.emit({ type: 'tool_call_start', call });
    const started = performance.now();
    const result = await run.executeTool(call, signal);
    run.emit({ type: 'tool_call_end', call, result, executed: true, durationMs: performance.now() - started });
    return result;
  }

  /** Records the run (queued) and starts it in the background; resolves with the queued run. */
  async start(input: StartRunInput): Promise<{ run: Run; finished: Promise<RunOutcome> }> {
    const handle = await this.workspaces.handle(input.workspaceId);
    const run = await this.runs.record(input.workspaceId, handle.database.db, {
      agentId: input.agent.id,
      spaceId: input.spaceId,
      conversationId: input.conversationId,
      parentRunId: input.parentRunId ?? null,
      mode: input.mode,
      autonomy: input.autonomy,
      depth: input.depth ?? 0,
      model: input.agent.modelId,
    });
    let resolveFinished!: () => void;
    const finishedSignal = new Promise<void>((resolve) => (resolveFinished = resolve));
    const activeRun: ActiveRun = {
      runId: run.id,
      workspaceId: input.workspaceId,
      agentId: input.agent.id,
      conversationId: input.conversationId,
      transport: this.capabilitiesFor(input.agent),
      controller: new AbortController(),
      paused: false,
      steering: [],
      resumeWaiters: [],
      finished: finishedSignal,
    };
    this.active.add(activeRun);
    const finished = this.execute(run, input, activeRun).finally(() => {
      this.active.remove(run.id);
      resolveFinished();
    });
    return { run, finished };
  }

  private async execute(queued: Run, input: StartRunInput, activeRun: ActiveRun): Promise<RunOutcome> {
    const { workspaceId, agent } = input;
    // A child run belongs to the conversation's run tree but speaks only to its parent: it posts no
    // messages, asks no questions, submits no plans and keeps no runner session there.
    const ownConversationId = speaksIn(input);
    const handle = await this.workspaces.handle(workspaceId);
    const db = handle.database.db;
    // HAR-6: a run-log write that cannot be stored is reported, never dropped silently: it is logged,
    // the run's error says its log is incomplete at once, and a run that would have completed ends
    // failed instead (a run whose log has holes must not look complete and healthy).
    let lostLogWrites = 0;
    let firstLostLogWrite = '';
    const logIncomplete = () => `run log incomplete: ${lostLogWrites} write(s) could not be stored (first: ${firstLostLogWrite})`;
    const log = new RunLog(handle.database, queued.id, (error, what) => {
      lostLogWrites += 1;
      this.logError(`run ${queued.id}: run-log write failed (${what})`, error);
      if (lostLogWrites > 1) return;
      firstLostLogWrite = `${what}: ${error instanceof Error ? error.message : String(error)}`;
      this.runs.update(workspaceId, db, queued.id, { error: logIncomplete() }).catch((updateError: unknown) => this.logError(`run ${queued.id}: could not mark the run's log incomplete`, updateError));
    });
    const settings = await this.settings.get(workspaceId);
    const signal = activeRun.controller.signal;
    const setLiveness = (liveness: Run['liveness']) =>
      void this.runs.update(workspaceId, db, queued.id, { liveness }).catch((error: unknown) => this.logError(`run ${queued.id}: could not record liveness ${liveness}`, error));
    const silenceMinutes = agent.silenceTimeoutMinutes ?? settings.defaultSilenceTimeoutMinutes;
    const watchdog = new LivenessWatchdog(
      silenceMinutes * this.options.minuteMs,
      () => setLiveness('stalled'),
      () => setLiveness('ok'),
    );
    let finalText = '';
    // Run-log writes are queued in event order and written in one transaction per event-loop turn;
    // `finish` flushes them before the run's end is recorded.
    const executedCalls = new Set<string>();
    const emit = (event: AgentEvent) => {
      watchdog.touch();
      this.events.publish(workspaceId, 'run.event', { runId: queued.id, conversationId: input.conversationId, agentId: agent.id, event });
      if (event.type === 'looping_detected') setLiveness('looping');
      if (event.type === 'looping_cleared') setLiveness('ok');
      this.persistEvent(log, event, executedCalls);
      if (event.type === 'assistant_message') {
        const text = event.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
        if (text.trim()) finalText = text;
      }
    };
    const systemLine = async (content: string) => {
      if (!ownConversationId) return;
      await this.messages.append(workspaceId, {
        conversationId: ownConversationId,
        runId: queued.id,
        role: 'system',
        authorKind: 'system',
        authorId: null,
        mode: input.mode,
        picker: null,
        content,
      });
    };

    let releaseShell: (() => void) | null = null;
    const checkoutKey = input.checkoutKey ?? (input.parentRunId ? this.checkoutKeys.get(input.parentRunId) : undefined) ?? input.conversationId ?? queued.id;
    this.checkoutKeys.set(queued.id, checkoutKey);
    let syncCheckout = false;
    const finish = async (state: Run['state'], error: string | null, extra: { deliverableFailed?: boolean; usage?: Run['usage']; costUsd?: number } = {}) => {
      watchdog.stop();
      releaseShell?.();
      this.externalRuns.delete(queued.id);
      this.checkoutKeys.delete(queued.id);
      // SEC-3: the agent's commits show up in the user's repository as cc/<conversation>, brought over
      // by the server after every top-level run that could write (child runs share the parent's checkout).
      if (syncCheckout) {
        const synced = await this.checkouts.sync(workspaceId, checkoutKey).catch((syncError: unknown) => ({ synced: false, ref: '', reason: String(syncError) }));
        if (synced) log.event('checkout_synced', synced);
      }
      // The log's end is written before the run's row says it ended, so a finished run's log is whole
      // or the run says it is not (HAR-6).
      log.flush();
      log.event('run_end', { state, error, deliverableFailed: extra.deliverableFailed ?? false });
      log.flush();
      if (lostLogWrites > 0) {
        error = error ? `${error}; ${logIncomplete()}` : logIncomplete();
        if (state === 'completed') state = 'failed';
      }
      const run = await this.runs.update(workspaceId, db, queued.id, {
        state,
        error,
        ...(state === 'failed' ? { liveness: 'failed' as const } : { liveness: 'ok' as const }),
        ...(extra.deliverableFailed !== undefined ? { deliverableFailed: extra.deliverableFailed } : {}),
        ...(extra.usage ? { usage: extra.usage } : {}),
        ...(extra.costUsd !== undefined ? { costUsd: extra.costUsd } : {}),
      });
      if (ownConversationId && finalText.trim()) {
        await this.messages.append(workspaceId, {
          conversationId: ownConversationId,
          runId: queued.id,
          role: 'assistant',
          authorKind: 'agent',
          authorId: agent.id,
          mode: input.mode,
          picker: spaceModeToPicker(input.mode, input.autonomy),
          content: finalText,
        });
      }
      if (extra.deliverableFailed) {
        const contract = buildCompletionContract(getCapabilityProfile(input.mode));
        if (contract) await systemLine(contract.failureLine);
      }
      if (state === 'failed') await systemLine(`Run failed: ${error ?? 'unknown error'}`);
      this.presence.set(workspaceId, agent.id, state === 'completed' ? 'done' : 'idle', queued.id);
      await input.onFinished?.(run, finalText);
      return { run, finalText };
    };

    try {
      const profile = getCapabilityProfile(input.mode);
      const transport = agent.adapterId ? this.transports.get(agent.adapterId) : undefined;
      if (agent.adapterId && !transport) return await finish('failed', `adapter '${agent.adapterId}' is not available on this server`);
      let model: ResolvedModel | null = null;
      if (!transport) {
        try {
          model = resolveModel({
            modelId: agent.modelId,
            settings: { apiKeys: settings.apiKeys, baseUrls: settings.baseUrls },
            env: this.options.env,
            ...(this.options.idleTimeoutMs !== undefined ? { idleTimeoutMs: this.options.idleTimeoutMs } : {}),
            ...(this.options.maxRetries !== undefined ? { maxRetries: this.options.maxRetries } : {}),
          });
        } catch (error) {
          return await finish('failed', error instanceof DomainError ? error.message : String(error));
        }
      }
      await this.runs.update(workspaceId, db, queued.id, { state: 'running', model: model?.model.id ?? agent.modelId });
      this.presence.set(workspaceId, agent.id, 'thinking', queued.id);

      const worktreeInfo = await this.checkouts.ensure(workspaceId, checkoutKey, input.repoPath ?? null);
      syncCheckout = worktreeInfo.kind === 'git' && worktreeState(profile) !== 'readOnly' && !input.parentRunId;

      // The registry: built-in tools plus the mode's own verbs; one-shot runs have no ask_user (PLAN-4).
      const registry = [
        ...builtinTools(),
        ...this.modeTools.flatMap((provider) =>
          provider({ workspaceId, runId: queued.id, agent, spaceId: input.spaceId, conversationId: ownConversationId, treeConversationId: input.conversationId, mode: input.mode }),
        ),
      ].filter((tool) => ownConversationId !== null || tool.name !== 'ask_user');
      const depth = input.depth ?? 0;
      const withinDepth = registry.filter((tool) => tool.name !== 'task' || depth + 1 < settings.delegationDepth);
      let surfaced = buildToolSurface(profile, toolDescriptors(withinDepth));
      // A subagent reports back to its parent: it never delivers the mode's verb itself, and its
      // surface is the parent's or narrower (HAR-5).
      if (input.surfaceCeiling) surfaced = surfaced.filter((tool) => input.surfaceCeiling!.has(tool.name) && tool.name !== profile.outputVerb);
      const surfacedNames = new Set(surfaced.map((tool) => tool.name));
      const toolsByName = new Map(withinDepth.filter((tool) => surfacedNames.has(tool.name)).map((tool) => [tool.name, tool]));
      let worktreeOptions: NodeWorktreeOptions = {};
      if (!transport) {
        const shell = await this.builtinShell(input, queued.id, worktreeInfo, {
          readOnly: worktreeState(profile) === 'readOnly',
          pushes: toolsByName.has('bash'),
          workspaceDir: handle.dir,
          signal,
          gate: (action, gateSignal) => this.gateTransportAction(input, queued.id, { worktreePath: worktreeInfo.path, watchdog, setLiveness }, action, gateSignal),
        });
        releaseShell = shell.release;
        worktreeOptions = shell.options;
        await this.runs.update(workspaceId, db, queued.id, { sandbox: shell.sandbox });
      }
      const worktree = new NodeWorktree(worktreeInfo.path, worktreeOptions);
      const skills = await this.agents.skillDescriptions(workspaceId, agent);
      // CAP-7: the mode block names exactly the tools this runner gets from us. An external runner
      // brings its own file and shell tools, so its block names only the product's tools.
      const promptTools = transport ? surfaced.filter((tool) => !NATIVE_EQUIVALENTS.has(tool.name)) : surfaced;
      const system = assembleSystemPrompt({
        agentName: agent.name,
        title: agent.title,
        persona: agent.persona,
        systemPrompt: agent.systemPrompt,
        skills,
        modeBlock: buildCapabilityPreamble(profile, promptTools),
        environment: transport
          ? `Your working directory is the conversation's worktree. Your own file and shell tools are checked by the Control Center before they run; the Control Center's tools come from its MCP server.`
          : `Your working directory is the conversation's worktree. Paths are relative to it; paths that leave it are refused.`,
      });
      // HAR-4: a contract only where its verb is on the surface; a verb no tool implements (orchestrate's
      // propose_orchestration today) could never be met, so the run is neither reminded nor flagged.
      const declared = input.surfaceCeiling ? null : buildCompletionContract(profile);
      const contract = declared && toolsByName.has(declared.outputVerb) ? declared : null;
      log.event('run_start', { mode: input.mode, autonomy: input.autonomy, model: model?.model.id ?? agent.modelId, adapter: agent.adapterId, tools: [...surfacedNames] });

      const runState = new Map<string, unknown>();
      const toolContext = (callSignal: AbortSignal): ToolContext => ({
        worktree,
        signal: callSignal,
        runId: queued.id,
        runState,
        ...(ownConversationId
          ? {
              askUser: async (questions, questionSignal) => {
                this.presence.set(workspaceId, agent.id, 'blocked', queued.id);
                setLiveness('blocked');
                watchdog.suspend();
                try {
                  return await this.questions.ask(
                    { workspaceId, runId: queued.id, agentId: agent.id, conversationId: ownConversationId, questions },
                    { timeoutMs: settings.questionTimeoutSeconds * 1000, signal: questionSignal },
                  );
                } finally {
                  watchdog.resume();
                  setLiveness('ok');
                  this.presence.set(workspaceId, agent.id, 'executing', queued.id);
                }
              },
            }
          : {}),
        runSubagent: (request, subSignal) => this.runSubagent(input, queued.id, surfacedNames, request, subSignal),
      });

      /** The one chokepoint for product tools: input validation, policy, approval gate, execution. */
      const executeTool = async (call: ToolCallBlock, callSignal: AbortSignal): Promise<ToolResult> => {
        const tool = toolsByName.get(call.name);
        if (!tool) return fail(`There is no tool named "${call.name}" here.`);
        const parsed = parseToolInput(tool, call.input);
        if (!parsed.ok) return parsed.result;
        const verdict = await this.policy.decideToolCall(
          workspaceId,
          { mode: input.mode, autonomy: input.autonomy, spaceId: input.spaceId, agentId: agent.id, parentAgentId: input.parentAgentId ?? null, worktreeRoot: worktree.root },
          tool,
          parsed.input,
        );
        log.toolCallDecided(call.id, verdict);
        const gated = await this.toolCallGate.apply(verdict, { workspaceId, agent: input.agent, spaceId: input.spaceId, conversationId: input.conversationId, runId: queued.id, call, watchdog, setLiveness, signal: callSignal });
        if (gated) return gated;
        executedCalls.add(call.id);
        this.presence.set(workspaceId, agent.id, 'executing', queued.id);
        try {
          return await tool.execute(parsed.input, toolContext(callSignal));
        } catch (error) {
          return fail(`${call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
        } finally {
          this.presence.set(workspaceId, agent.id, 'thinking', queued.id);
        }
      };

      if (transport) {
        const outcome = await this.runOnTransport(transport, {
          input,
          runId: queued.id,
          worktreePath: worktree.root,
          checkout: worktreeInfo.checkout ? { sharedObjectsDir: worktreeInfo.checkout.sourceObjectsDir, pushRemotes: checkoutPushRemotes(worktreeInfo.checkout) } : undefined,
          system,
          surfaced,
          toolsByName,
          executeTool,
          emit,
          executedCalls,
          signal,
          watchdog,
          setLiveness,
          workspaceDir: handle.dir,
        });
        if (!finalText && outcome.finalText) finalText = outcome.finalText;
        return await finish(outcome.outcome, outcome.error, {
          deliverableFailed: outcome.deliverableFailed,
          usage: { ...outcome.usage, cacheReadTokens: outcome.usage.cacheReadTokens ?? 0, cacheWriteTokens: outcome.usage.cacheWriteTokens ?? 0 },
          costUsd: outcome.costUsd ?? 0,
        });
      }

      const messages: ModelMessage[] = [...(input.history ?? []), { role: 'user', content: input.prompt }];
      const result = await runAgentLoop({
        streamFn: model!.streamFn,
        model: model!.model.id,
        system,
        maxTokens: this.options.maxTokens,
        ...(agent.effort ? { effort: agent.effort } : {}),
        messages,
        tools: [...toolsByName.values()].map(toModelTool),
        executeTool,
        completion: contract ? { outputVerb: contract.outputVerb, reminder: contract.reminder, maxReminders: MAX_REMINDERS } : null,
        drainSteering: () => activeRun.steering.splice(0),
        waitWhilePaused: (waitSignal) => this.active.waitWhilePaused(queued.id, waitSignal),
        signal,
        emit,
      });
      const usage = {
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        cacheReadTokens: result.usage.cacheReadTokens ?? 0,
        cacheWriteTokens: result.usage.cacheWriteTokens ?? 0,
      };
      const state = result.outcome === 'completed' ? 'completed' : result.outcome === 'cancelled' ? 'cancelled' : 'failed';
      return await finish(state, result.error, { deliverableFailed: result.deliverableFailed, usage, costUsd: computeCost(result.usage, model!.pricing) });
    } catch (error) {
      return await finish('failed', `internal error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * How the built-in `bash` runs (SBX-1, POL-6): inside the host's OS sandbox when it has one, with
   * the worktree mounted as the mode says; and with git configured (in its environment) to send every
   * push to the worktree's remotes through the push proxy, authenticated with a run-scoped token, so a
   * push made inside a script is decided by the gitPush rules before it reaches the remote.
   * `release` revokes the token and ends the proxy's session.
   */
  private async builtinShell(
    input: StartRunInput,
    runId: string,
    worktree: ConversationWorktree,
    context: { readOnly: boolean; pushes: boolean; workspaceDir: string; signal: AbortSignal; gate: (action: TransportAction, signal: AbortSignal) => Promise<TransportGateResult> },
  ): Promise<{ options: NodeWorktreeOptions; sandbox: string; release: () => void }> {
    // SEC-2, SEC-3: the remotes recorded from the user's repository when the checkout was made.
    const remotes = context.pushes && worktree.checkout && this.serverUrl ? checkoutPushRemotes(worktree.checkout) : [];
    let pushEnv: Record<string, string> = {};
    const releases: Array<() => void> = [];
    const release = () => {
      for (const step of releases.splice(0)) step();
    };
    try {
      if (remotes.length > 0) {
        const token = this.runTokens.issue({ workspaceId: input.workspaceId, runId, agentId: input.agent.id });
        releases.push(() => this.runTokens.revoke(runId));
        const runEnded = new AbortController();
        releases.push(() => runEnded.abort());
        releases.push(
          this.hookSessions.register({
            token,
            workspaceId: input.workspaceId,
            runId,
            mode: input.mode,
            worktreePath: worktree.path,
            gate: context.gate,
            signal: AbortSignal.any([runEnded.signal, context.signal]),
            pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
            pushStagingDir: join(context.workspaceDir, 'push-staging'),
            decisions: [],
            pushOnly: true,
          }),
        );
        pushEnv = gitPushEnvironment(this.serverUrl, token, remotes);
      }
      const sandbox = await this.commandSandbox.forRun({
        worktreePath: worktree.path,
        readOnly: context.readOnly,
        sharedObjectsDir: worktree.checkout?.sourceObjectsDir ?? null,
        workspaceDir: context.workspaceDir,
        reach: remotes.length > 0 ? [this.serverUrl] : [],
      });
      // SEC-5: repository hooks and fixed-name config programs are switched off for the agent's git.
      const options: NodeWorktreeOptions = { defaultEnv: sanitizedEnv(process.env, withSandboxGitConfig({ ...sandbox.env, ...pushEnv }, { privateHome: sandbox.wrapCommand !== undefined })) };
      if (sandbox.wrapCommand) options.wrapCommand = sandbox.wrapCommand;
      const pushes = remotes.length > 0 ? `; pushes to ${[...new Set(remotes.map((remote) => remote.name))].join(', ')} through the push proxy` : '';
      return { options, sandbox: `${sandbox.description}${pushes}`, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Runs a turn on an external transport with the same surface, prompt, gate and run log (ADP-1). */
  private async runOnTransport(
    transport: AgentTransport,
    context: {
      input: StartRunInput;
      runId: string;
      worktreePath: string;
      checkout: TransportRunContext['checkout'];
      system: string;
      surfaced: ToolDescriptor[];
      toolsByName: Map<string, Tool>;
      executeTool: (call: ToolCallBlock, signal: AbortSignal) => Promise<ToolResult>;
      emit: (event: AgentEvent) => void;
      executedCalls: Set<string>;
      signal: AbortSignal;
      watchdog: LivenessWatchdog;
      setLiveness: (liveness: Run['liveness']) => void;
      workspaceDir: string;
    },
  ): Promise<TransportResult> {
    const { input, runId } = context;
    const { workspaceId, agent } = input;
    const db = (await this.workspaces.handle(workspaceId)).database.db;
    // The runner has its own file and shell tools; the MCP server offers only the product's tools.
    const productTools = new Map([...context.toolsByName].filter(([name]) => !NATIVE_EQUIVALENTS.has(name)));
    this.externalRuns.set(runId, { tools: productTools, executeTool: context.executeTool, emit: context.emit });
    const token = this.runTokens.issue({ workspaceId, runId, agentId: agent.id });
    // A child run never resumes or overwrites the conversation's runner session (it is its parent's).
    const conversationId = speaksIn(input);
    const session = conversationId
      ? await db
          .selectFrom('transport_sessions')
          .select('session_id')
          .where('conversation_id', '=', conversationId)
          .where('agent_id', '=', agent.id)
          .where('adapter_id', '=', transport.id)
          .executeTakeFirst()
      : undefined;
    try {
      this.options.modelBroker?.open(runId, workspaceId);
      const result = await transport.run({
        workspaceId,
        runId,
        agent,
        spaceId: input.spaceId,
        conversationId,
        mode: input.mode,
        autonomy: input.autonomy,
        prompt: input.prompt,
        history: input.history ?? [],
        worktreePath: context.worktreePath,
        ...(context.checkout ? { checkout: context.checkout } : {}),
        systemPrompt: context.system,
        surfacedTools: context.surfaced.filter((tool) => productTools.has(tool.name)),
        mcp: { url: `${this.serverUrl}/mcp`, token },
        serverUrl: this.serverUrl,
        env: this.options.env,
        workspaceDir: context.workspaceDir,
        signal: context.signal,
        emit: (event) => {
          // The runner executes its own native tools; it reports which calls ran.
          if (event.type === 'tool_call_end' && event.executed) context.executedCalls.add(event.call.id);
          context.emit(event);
        },
        gate: (action, gateSignal) => this.gateTransportAction(input, runId, context, action, gateSignal),
        setSandbox: (description) =>
          void this.runs.update(workspaceId, db, runId, { sandbox: description }).catch((error: unknown) => this.logError(`run ${runId}: could not record its sandbox`, error)),
        previousSessionId: session?.session_id ?? null,
        saveSessionId: async (sessionId) => {
          if (!conversationId) return;
          await db
            .insertInto('transport_sessions')
            .values({ conversation_id: conversationId, agent_id: agent.id, adapter_id: transport.id, session_id: sessionId, updated_at: nowIso() })
            .onConflict((conflict) => conflict.columns(['conversation_id', 'agent_id', 'adapter_id']).doUpdateSet({ session_id: sessionId, updated_at: nowIso() }))
            .execute();
        },
      });
      // SEC-6: the tokens the broker measured are exact (every model response passed through it), so
      // they replace what the runner reported about itself; so does the cost, unless a model the
      // catalog cannot price answered (then the runner's own figure, if it gave one, is kept).
      const metered = this.options.modelBroker?.close(runId);
      if (!metered) return result;
      return { ...result, usage: metered.usage, costUsd: metered.priced ? metered.costUsd : (result.costUsd ?? metered.costUsd) };
    } finally {
      this.runTokens.revoke(runId);
      this.options.modelBroker?.close(runId);
    }
  }

  /** A hook's report of a native action, decided and gated like a built-in call (POL-1). */
  private async gateTransportAction(
    input: StartRunInput,
    runId: string,
    context: { worktreePath: string; watchdog: LivenessWatchdog; setLiveness: (liveness: Run['liveness']) => void },
    action: TransportAction,
    signal: AbortSignal,
  ): Promise<TransportGateResult> {
    const policyContext = {
      mode: input.mode,
      autonomy: input.autonomy,
      spaceId: input.spaceId,
      agentId: input.agent.id,
      parentAgentId: input.parentAgentId ?? null,
      worktreeRoot: context.worktreePath,
    };
    let verdict: PolicyVerdict;
    if (action.kind === 'command') {
      verdict = await this.policy.decideCommand(input.workspaceId, policyContext, action.command, action.toolName);
    } else {
      const absolute = resolvePath(context.worktreePath, action.path);
      const inside = absolute === context.worktreePath || absolute.startsWith(`${context.worktreePath}${sep}`);
      const descriptor: ToolDescriptor = {
        name: action.toolName,
        description: 'native file write',
        tier: 'write',
        effects: inside ? [] : ['fileWriteOutsideWorktree'],
        writesWorktree: inside,
      };
      verdict = await this.policy.decideToolCall(input.workspaceId, policyContext, descriptor, { path: action.path });
    }
    const call: ToolCallBlock = { type: 'tool_call', id: `hook_${randomUUID()}`, name: action.toolName, input: action.kind === 'command' ? { command: action.command } : { path: action.path } };
    const denied = await this.toolCallGate.apply(verdict, { workspaceId: input.workspaceId, agent: input.agent, spaceId: input.spaceId, conversationId: input.conversationId, runId, call, watchdog: context.watchdog, setLiveness: context.setLiveness, signal });
    return {
      allow: denied === null,
      decision: verdict.decision,
      reason: denied?.content ?? `Allowed (decided by ${verdict.decidedBy.scope}${verdict.decidedBy.ruleId ? ` rule ${verdict.decidedBy.ruleId}` : ''}).`,
      decidedBy: verdict.decidedBy,
      classes: verdict.classes,
    };
  }

  /** HAR-5: a child run whose surface is the parent's or narrower; it reports back as the tool result. */
  private async runSubagent(
    parent: StartRunInput,
    parentRunId: string,
    parentSurface: ReadonlySet<string>,
    request: { description: string; prompt: string; agent?: string },
    signal: AbortSignal,
  ): Promise<ToolResult> {
    let agent = parent.agent;
    if (request.agent) {
      const named = await this.agents.findByName(parent.workspaceId, request.agent);
      if (!named) return fail(`There is no agent named "${request.agent}" in this workspace.`);
      agent = named;
    }
    const { run, finished } = await this.start({
      workspaceId: parent.workspaceId,
      agent,
      spaceId: parent.spaceId,
      // The child joins the conversation's run tree under its parent (it still reports only to the parent).
      conversationId: parent.conversationId,
      mode: parent.mode,
      autonomy: parent.autonomy,
      prompt: request.prompt,
      parentRunId,
      depth: (parent.depth ?? 0) + 1,
      surfaceCeiling: parentSurface,
      parentAgentId: parent.agent.id,
      repoPath: parent.repoPath ?? null,
      // SEC-7: the parent's checkout (read-only in read-only modes), never one per subagent call.
      ...(this.checkoutKeys.has(parentRunId) ? { checkoutKey: this.checkoutKeys.get(parentRunId)! } : {}),
    });
    const abortChild = () => this.cancel(run.id);
    signal.addEventListener('abort', abortChild, { once: true });
    try {
      const { run: ended, finalText } = await finished;
      if (ended.state !== 'completed') return fail(`Subagent run ${run.id} ${ended.state}: ${ended.error ?? ''}`.trim(), { runId: run.id });
      return { content: finalText || '(the subagent finished without a report)', isError: false, details: { runId: run.id } };
    } finally {
      signal.removeEventListener('abort', abortChild);
    }
  }

  cancel(runId: string): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.controller.abort();
    this.active.resume(runId);
    return true;
  }

  /** Stores an event in the run log; tool calls get a row with their input, decision and output. */
  private persistEvent(log: RunLog, event: AgentEvent, executedCalls: ReadonlySet<string>): void {
    if (event.type === 'text_delta' || event.type === 'thinking_delta') return;
    if (event.type === 'tool_call_start') log.toolCallStarted(event.call);
    if (event.type === 'tool_call_end') log.toolCallEnded(event.call.id, event.result, executedCalls.has(event.call.id));
    log.event(event.type, event);
  }
}
