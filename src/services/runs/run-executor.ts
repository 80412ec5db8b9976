import { nowIso } from '../../ids.js';
import { checkpointTurn } from '../../git/turn-checkpoint.js';
import { BUILTIN_ADAPTER_ID } from '../../adapters/builtin/builtin-capabilities.js';
import { insertTurnCheckpoint } from '../../store/repositories/conversation-rewind-repository.js';
import { promptImagesOf } from '../attachments/attachment-service.js';
import { withDefaultModel } from '../workspaces/runner-credentials.js';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { AgentTransport, RunScope } from '../../adapters/agent-transport.js';
import type { TransportRegistry } from '../../adapters/transport-registry.js';
import type { TransportCapabilities } from '../../adapters/transport-capabilities.js';
import { DEFAULT_AUTONOMY, type AutonomyLevel, type Mode } from '../../core/modes.js';
import type { InheritedRules } from '../../core/policy/inherited-rules.js';
import { ceilingOfWorkStartedBy } from './inherited-ceiling.js';
import { DomainError } from '../../errors/index.js';
import type { ModelMessage, ToolCallBlock } from '../../llm/model-types.js';
import type { Agent } from '../../schemas/agent.js';
import type { Run } from '../../schemas/run.js';
import type { CommandSandbox } from '../../sandbox/command-sandbox.js';
import { configuredSearchProvider } from '../../tools/web/configured-search-provider.js';
import { builtinTools } from '../../tools/builtin-tools.js';
import { fail, type Tool, type ToolResult } from '../../tools/define-tool.js';
import type { AgentService } from '../agents/agent-service.js';
import type { PresenceService } from '../agents/presence-service.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { PolicyService } from '../approvals/policy-service.js';
import type { QuestionService } from '../approvals/question-service.js';
import type { EventBus } from '../event-bus.js';
import type { ModelBroker } from '../model-broker.js';
import type { SpendLimitGate } from '../budgets/spend-limit-gate.js';
import { CheckoutService } from '../workspaces/checkout-service.js';
import type { CheckoutRecord } from '../../git/git-worktrees.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { ActiveRun, ActiveRuns } from './active-runs.js';
import { RunToolCalls } from './gate-tool-calls.js';
import type { MessagePlace, MessageService } from './message-service.js';
import { prepareRun, type ModeToolProvider, type PrepareHook } from './prepare-run.js';
import { pinConfigVersion, pinConfigVersionAt, type ConfigPin } from '../../store/pinned-config-reads.js';
import { runOnTransport, type McpRun } from './run-on-transport.js';
import { brokeredProviderProblem } from './brokered-provider-problem.js';
import { RunRecorder, type CarriedPart } from './record-run.js';
import type { RecordRunInput, RunService, WrittenWithRun } from './run-service.js';
import type { RunTokens } from './run-tokens.js';
import type { QueuedRun } from './run-queue.js';
import { findRunWithConfigVersion, startQueuedRunAt } from '../../store/repositories/run-repository.js';
import { writesRunEndWithRows } from '../../store/repositories/run-end-with-rows.js';
import { findAgent } from '../../store/repositories/agent-repository.js';
import { join } from 'node:path';
import { statOrNull } from '../../worktree/stat-or-null.js';
import { deleteRunDispatch } from '../../store/repositories/run-dispatch-repository.js';
import { RunStartQueue } from './run-start-queue.js';

export type { ModeToolContext, ModeToolProvider } from './prepare-run.js';

/** How a run ended: its final row and the last text the agent wrote (its answer or report). */
export interface RunOutcome {
  run: Run;
  finalText: string;
}

/** What one run needs to start, on whichever transport its agent names. */
export interface StartRunInput extends Omit<RunScope, 'runId' | 'conversationId'> {
  /**
   * The conversation whose run tree the run belongs to. A top-level run speaks in it (messages,
   * questions, plans, the runner's session); a child run (`parentRunId` set) is only listed in its
   * tree and reports back to its parent as a tool result.
   */
  conversationId: string | null;
  prompt: string;
  history?: ModelMessage[];
  /**
   * NF-SCALE, bursts: instead of `history`, the conversation before this message, read when the run
   * starts (by whichever process starts it), so accepting the turn does not wait on reading it.
   */
  historyBefore?: MessagePlace;
  /** The turn's message, committed in one transaction with the run's row. */
  writtenWithRun?: WrittenWithRun;
  parentRunId?: string | null;
  depth?: number;
  /** A child run's surface can only be narrower than its parent's (HAR-5). */
  surfaceCeiling?: ReadonlySet<string>;
  /**
   * SEC-9: the rule scopes of the run that started this one and of every run before it (see
   * `ceilingOfWorkStartedBy`). Recorded on the run row, so a queued run and a worker keep it.
   */
  inheritedRules?: InheritedRules;
  repoPath?: string | null;
  /**
   * The checkout the run works in (SEC-7): a subagent's or a delegate's is its parent's, so a child
   * run never makes a branch or a checkout of its own. Default: the parent run's checkout when
   * `parentRunId` names a run in progress, else the conversation's, else the run's own.
   */
  checkoutKey?: string;
  /** Set when the run executes one step of an approved plan (PLAN-8). */
  planStep?: { planId: string; key: string };
  /** TOOL-3: the conversation's message whose image attachments go to the model with the prompt. */
  imagesOfMessage?: string;
  /** CTX-1 `/compact [focus]`: the run compacts the conversation and ends (built-in harness). */
  compact?: { focus: string | null };
  /** Called with the final result when the run has ended and been recorded. */
  onFinished?: (run: Run, finalText: string) => void | Promise<void>;
}

/**
 * PostgreSQL: which process executes a run (`RunAffinity`), told when a run starts here
 * and when it has ended and been recorded, so a run is declared dead only when its owner is.
 */
export interface RunOwnership {
  own(workspaceId: string, runId: string, conversationId: string | null): Promise<void>;
  disown(workspaceId: string, runId: string): Promise<void>;
}

/** A run that may start: the transport it runs on and the model it is marked `running` with. */
interface ReadyToRun {
  transport: AgentTransport;
  model: string | null;
}

/** Everything the executor works with, handed over by the composition root. */
export interface RunExecutorDeps {
  workspaces: WorkspaceService;
  agents: AgentService;
  runs: RunService;
  active: ActiveRuns;
  events: EventBus;
  messages: MessageService;
  approvals: ApprovalService;
  questions: QuestionService;
  policy: PolicyService;
  presence: PresenceService;
  settings: SettingsService;
  runTokens: RunTokens;
  /** The transports runs are given, by their agent's adapter id (the built-in harness among them). */
  transports: TransportRegistry;
  /** The OS sandbox checkouts are made and synced in. */
  commandSandbox: CommandSandbox;
  /** Milliseconds in one "minute" of silenceTimeoutMinutes; shortened only by tests. */
  minuteMs: number;
  env: Record<string, string | undefined>;
  /** The loopback model endpoint external runners call with their run token (SEC-6); it meters their usage. */
  modelBroker?: ModelBroker;
  /** The process's one logger: failures that must not go unnoticed (lost run-log writes, run-row updates) go to it at error level. */
  logger: Logger;
  /** BUD-1: spend limits checked before every model call of an in-process transport. */
  spendGate?: SpendLimitGate;
  /** NF-SCALE, bursts: how many accepted turns this process starts at once (see RunStartQueue). */
  runStartConcurrency: number;
}

/**
 * Runs agents (HAR-1..7, ADP-1) as a pipeline of named stages: **prepare** the run (profile,
 * checkout, surface, prompt, contract: `prepare-run.ts`), **record** it (events to SSE, run log and
 * watchdog, the typed end: `record-run.ts`), **gate** every tool call (`gate-tool-calls.ts`), and
 * hand it to the **transport** the agent's adapter id selects from the registry
 * (`adapters/transport-registry.ts`; the built-in harness is one of them) with one context for
 * every transport (`run-on-transport.ts`).
 */
export class RunExecutor {
  private readonly modeTools: ModeToolProvider[] = [];
  private readonly prepareHooks: PrepareHook[] = [];
  /** Runs on external transports: their product tools, callable over MCP with the run's token. */
  private readonly mcpRuns = new Map<string, McpRun>();
  private serverUrl = '';
  /** The conversations' checkouts: made, recorded, mounted and synced back (HAR-7, SEC-3). */
  readonly checkouts: CheckoutService;
  /** Checkout key of each run in progress, so its child runs share it (SEC-7). */
  private readonly checkoutKeys = new Map<string, string>();
  /** The transports by adapter id (the built-in harness among them). */
  private readonly transports: TransportRegistry;
  /** Set in an API process (`serve --role api`): runs that can be queued are, never executed here. */
  private dispatch: ((workspaceId: string, run: QueuedRun) => Promise<void>) | null = null;
  /** Which queueable runs are queued rather than executed here; unset: all of them (an API process). */
  private dispatchOnly: ((workspaceId: string, conversationId: string | null) => Promise<boolean>) | null = null;
  private ownership: RunOwnership | null = null;
  /**
   * Runs stopped because this process is going away, with the sentence their row keeps: such a run
   * did not finish and nobody chose to stop it, so it ends `failed` with that cause, not `cancelled`.
   */
  private readonly stoppedByShutdown = new Map<string, string>();
  /**
   * The configuration version a queued run's start last read, by database handle: the next queued
   * run's start is worked out under it and written with the run's read, guarded by it (see
   * {@link executeQueued}).
   */
  private readonly lastConfigVersion = new WeakMap<object, number>();

  /** Accepted turns wait here for their start, so accepting a turn never waits on starting it. */
  readonly startQueue: RunStartQueue;

  constructor(private readonly deps: RunExecutorDeps) {
    this.transports = deps.transports;
    this.startQueue = new RunStartQueue(deps.runStartConcurrency);
    this.checkouts = new CheckoutService(deps.workspaces, deps.commandSandbox);
  }

  registerModeTools(provider: ModeToolProvider): void {
    this.modeTools.push(provider);
  }

  /** Work the prepare stage runs once a run's checkout exists (materialized skills, the repo-skills index). */
  registerPrepareHook(hook: PrepareHook): void {
    this.prepareHooks.push(hook);
  }

  /** Makes a transport available for agents whose `adapterId` is its id (ADP-1); replaces one of the same id. */
  registerTransport(transport: AgentTransport): void {
    this.transports.register(transport);
  }

  /** What the transport an agent runs on declares (the built-in harness when it names no adapter). */
  capabilitiesFor(agent: Pick<Agent, 'adapterId'>): TransportCapabilities {
    return this.transports.capabilitiesFor(agent);
  }

  /** Every transport's declaration, the built-in harness first (the honesty matrix is checked against them). */
  transportCapabilities(): TransportCapabilities[] {
    return this.transports.capabilities();
  }

  /**
   * The names of the tools a run in `mode` can be given before surface filtering: the built-in tools
   * and every mode-tool provider's. Lets a test check that a declared output verb really exists.
   */
  toolNamesFor(mode: Mode): string[] {
    // An agent with nothing linked: providers that list per-agent tools (skills) offer none for it.
    return this.productToolsFor({ mode, autonomy: DEFAULT_AUTONOMY, inConversation: false, linkedSkills: [] }).map((tool) => tool.name);
  }

  /**
   * Every product tool a run could be given before surface filtering — the built-in tools and every
   * mode-tool provider's — for a run in `mode` and `autonomy`, speaking in a conversation or not, with
   * an agent that has `linkedSkills`. What SEC-9's declaration test walks: a provider that adds a tool
   * makes it appear here, declared or not. The tools are built, never executed.
   */
  productToolsFor(run: { mode: Mode; autonomy: AutonomyLevel; inConversation: boolean; linkedSkills: string[] }): Tool[] {
    // A conversation lives in a space: providers that need one (review verbs) offer their tools then.
    const conversationId = run.inConversation ? 'cv_enumeration' : null;
    const spaceId = run.inConversation ? 'sp_enumeration' : null;
    const placeholder = { workspaceId: '', runId: '', agent: { skills: run.linkedSkills } as Agent, spaceId, conversationId, treeConversationId: conversationId, mode: run.mode, autonomy: run.autonomy };
    // A configured search provider adds web_search; a placeholder key stands for one (the tools are never executed here).
    const webSearch = configuredSearchProvider({ webSearchKeys: { brave: 'enumeration' }, webSearchBaseUrl: 'http://127.0.0.1/' });
    return [...builtinTools({ webSearch }), ...this.modeTools.flatMap((provider) => provider(placeholder))];
  }

  /** The server's own base URL, once it listens (external runners call back into it). */
  setServerUrl(url: string): void {
    this.serverUrl = url;
  }

  /** Product tools an external run may call over MCP, already narrowed to its mode's surface. */
  externalTools(runId: string): Tool[] {
    return [...(this.mcpRuns.get(runId)?.tools.values() ?? [])];
  }

  /** Calls one product tool for an external run, through the same gate as the built-in harness. */
  async callExternalTool(runId: string, name: string, input: unknown, signal: AbortSignal): Promise<ToolResult> {
    const run = this.mcpRuns.get(runId);
    if (!run) return fail(`run ${runId} is not in progress`);
    if (!run.tools.has(name)) return fail(`There is no tool named "${name}" here.`);
    const call: ToolCallBlock = { type: 'tool_call', id: `mcp_${randomUUID()}`, name, input: (input ?? {}) as Record<string, unknown> };
    run.recorder.emit({ type: 'tool_call_start', call });
    const started = performance.now();
    const result = await run.toolCalls.execute(call, signal);
    // HAR-4: the host's own record of the output verb, the only one a transport's contract check reads.
    run.delivery?.noteExecuted(name, result);
    run.recorder.emit({ type: 'tool_call_end', call, result, executed: true, durationMs: performance.now() - started });
    return result;
  }

  /**
   * Queue runs for the workers instead of executing them: all of them (an API process), or — in a
   * process that executes work — only those `only` picks (a turn whose conversation sticks to
   * another live worker, started here by relay_tool or an orchestrator's wake-up, runs where its
   * checkout is).
   */
  dispatchTo(enqueue: (workspaceId: string, run: QueuedRun) => Promise<void>, only?: (workspaceId: string, conversationId: string | null) => Promise<boolean>): void {
    this.dispatch = enqueue;
    this.dispatchOnly = only ?? null;
  }

  /** Report which runs this process executes (PostgreSQL). */
  reportOwnership(ownership: RunOwnership): void {
    this.ownership = ownership;
  }

  /**
   * Starts a conversation's turn: in this process (the embedded default, a worker, plain `serve`),
   * or — in an API process — recorded `queued` and put on the runs queue for a worker. Only a run
   * described by plain data can be queued: one with an in-process callback (`onFinished`), a parent
   * or a plan step keeps executing where it was started.
   */
  async launch(input: StartRunInput): Promise<Run> {
    const queueable = !input.onFinished && !input.parentRunId && !input.planStep && !input.surfaceCeiling && input.checkoutKey === undefined;
    // A plain-data run is accepted `queued` and started through the bounded start queue; one tied to
    // a caller (a plan step, a subagent) starts at once, as its caller waits on it.
    if (!this.dispatch || !queueable) return (await this.start(input, queueable)).run;
    if (this.dispatchOnly && !(await this.dispatchOnly(input.workspaceId, input.conversationId))) return (await this.start(input, queueable)).run;
    const db = (await this.deps.workspaces.handle(input.workspaceId)).database.db;
    const queuedRun = (run: Run): QueuedRun => ({
      runId: run.id,
      agentId: input.agent.id,
      spaceId: input.spaceId,
      conversationId: input.conversationId,
      mode: input.mode,
      autonomy: input.autonomy,
      prompt: input.prompt,
      history: input.history ?? [],
      ...(input.historyBefore ? { historyBefore: { id: input.historyBefore.id, createdAt: input.historyBefore.createdAt } } : {}),
      repoPath: input.repoPath ?? null,
      ...(input.imagesOfMessage ? { imagesOfMessage: input.imagesOfMessage } : {}),
      ...(input.compact ? { compact: input.compact } : {}),
    });
    // The payload is committed with the run: if this process dies before the enqueue, a worker's sweep enqueues it.
    const run = await this.deps.runs.recordForDispatch(input.workspaceId, db, this.runRecord(input), queuedRun, input.writtenWithRun);
    // Accepted: the enqueue happens off the request, through the start queue (bounded, in order per
    // conversation), so a burst of turns is answered without waiting on the job queue's connections.
    const dispatch = this.dispatch;
    void this.startQueue.schedule(input.conversationId ?? run.id, () => this.enqueueAccepted(input.workspaceId, db, queuedRun(run), dispatch));
    return run;
  }

  /** Puts an accepted run on the runs queue; one that cannot be queued is failed, never left looking queued. */
  private async enqueueAccepted(workspaceId: string, db: Parameters<RunService['record']>[1], run: QueuedRun, dispatch: (workspaceId: string, run: QueuedRun) => Promise<void>): Promise<void> {
    try {
      await dispatch(workspaceId, run);
    } catch (error) {
      this.deps.logger.error({ err: error, runId: run.runId }, 'an accepted run could not be queued');
      try {
        await this.deps.runs.update(workspaceId, db, run.runId, { state: 'failed', error: `the run could not be queued: ${error instanceof Error ? error.message : String(error)}` });
      } catch (updateError) {
        // Its dispatch row stays: a worker's sweep enqueues it later.
        this.deps.logger.error({ err: updateError, runId: run.runId }, 'a run that could not be queued could not be marked failed either');
        return;
      }
    }
    await deleteRunDispatch(db, run.runId).catch((error: unknown) => this.deps.logger.warn({ err: error, runId: run.runId }, 'a dispatched run kept its dispatch row; the sweep will drop it'));
  }

  /**
   * A worker's side of {@link launch}: executes a run another process queued, to its end. A run that
   * is no longer `queued` (a previous claimer started it, then died) is never started again: runs
   * have side effects (at most once). `endCarries` (its job's completion) is sent in the statement
   * that ends the run, when the run gets that far; its `carried` is called when it was.
   */
  async executeQueued(workspaceId: string, queued: QueuedRun, endCarries?: CarriedPart): Promise<RunOutcome | null> {
    const handle = await this.deps.workspaces.handle(workspaceId);
    // The run queue took the run for this process with its job (`RunQueue`: the owner row and the
    // conversation's affinity, in the lease's statement) before this reads its state: of two claimers
    // of one run, only the holder gets here. That owner row is deleted with the job's completion, so
    // neither a run not executed here nor one executed to its end sends a release of its own.
    // The run row and the configuration's version in one statement (NF-SCALE): the version pins
    // this run's reads of agent, settings, space… (a row that is not queued wastes only the version).
    // PostgreSQL, NF-SCALE: that statement also marks the run `running` when the start worked out
    // beforehand (agent, settings, transport and model, read under the version the previous start
    // read) still holds: the update is guarded by the run still `queued`, agreeing with its job, and
    // the configuration's version being that one in the statement's own snapshot. Every write to the
    // configuration bumps the version in its own transaction, and a value kept under a version is
    // never older than it, so when the guard holds the start is exactly what the pinned reads after
    // the read would have worked out. When it does not (no earlier start, the configuration changed,
    // the agent is gone, the run could not start), nothing is written and the run starts as before:
    // a run that cannot start still goes from `queued` to `failed`, never through `running`.
    const db = handle.database.db;
    const startedAt = nowIso();
    const foreseen = writesRunEndWithRows(db) ? await this.foreseenStart(workspaceId, db, queued).catch(() => null) : null;
    const found = foreseen
      ? await startQueuedRunAt(db, queued.runId, queued, foreseen.configPin.version, { startedAt, model: foreseen.ready.model })
      : await findRunWithConfigVersion(db, queued.runId);
    if (found) this.lastConfigVersion.set(db, found.configVersion);
    if (!found || found.run.state !== 'queued') return null;
    // The recorded row is the authority: a job that disagrees with it about who runs, where and how is not this run's.
    if (found.run.agentId !== queued.agentId || found.run.conversationId !== queued.conversationId || found.run.spaceId !== queued.spaceId || found.run.mode !== queued.mode || found.run.autonomy !== queued.autonomy) {
      this.deps.logger.error({ workspaceId, runId: found.run.id }, 'a queued job disagrees with its run row; nothing executed');
      return null;
    }
    let run = found.run;
    let configPin: ConfigPin;
    let agent: Agent | null;
    let startedAs: ReadyToRun | undefined;
    if (foreseen && 'started' in found && found.started) {
      ({ configPin, agent } = foreseen);
      startedAs = foreseen.ready;
      run = { ...run, state: 'running', startedAt, model: foreseen.ready.model };
    } else {
      configPin = pinConfigVersionAt(db, found.configVersion);
      // The agent's record only, through the pin: its AG-3 state is derived from its runs on every
      // read for the registry's answers, and no step of a run reads it, so the worker does not send
      // that read (NF-SCALE: a statement per turn). It carries `running`: what this run makes it.
      const record = await findAgent(db, queued.agentId, configPin).catch(() => null);
      agent = record ? { ...record, state: 'running' } : null;
    }
    if (!agent) {
      await this.deps.runs.update(workspaceId, db, run.id, { state: 'failed', error: `agent ${queued.agentId} no longer exists` });
      return null;
    }
    // Owned since its job's claim (which made its conversation stick here too): begin writes no owner row and deletes none.
    const { finished } = await this.begin(run, {
      workspaceId,
      agent,
      spaceId: queued.spaceId,
      conversationId: queued.conversationId,
      mode: queued.mode,
      autonomy: queued.autonomy,
      prompt: queued.prompt,
      history: queued.history,
      ...(queued.historyBefore ? { historyBefore: queued.historyBefore } : {}),
      repoPath: queued.repoPath,
      ...(queued.imagesOfMessage ? { imagesOfMessage: queued.imagesOfMessage } : {}),
      ...(queued.compact ? { compact: queued.compact } : {}),
      // SEC-9: the ceiling comes from the recorded row, never from the job payload.
      inheritedRules: run.inheritedRules,
    }, false, configPin, true, endCarries, startedAs);
    return finished;
  }

  /**
   * A queued run's start worked out before its row is read: under the configuration version the
   * previous queued start read (null: none yet), its agent (carrying `running`), and the transport
   * and model it would be marked `running` with; null when it could not start so (the run then starts
   * as before, and says why it cannot).
   */
  private async foreseenStart(workspaceId: string, db: Parameters<RunService['record']>[1], queued: QueuedRun): Promise<{ configPin: ConfigPin; agent: Agent; ready: ReadyToRun } | null> {
    const version = this.lastConfigVersion.get(db);
    if (version === undefined) return null;
    const configPin = pinConfigVersionAt(db, version);
    const record = await findAgent(db, queued.agentId, configPin);
    if (!record) return null;
    const agent: Agent = { ...record, state: 'running' };
    const settings = await this.deps.settings.get(workspaceId, configPin);
    const ready = await this.readyToRun(withDefaultModel(agent, settings), settings, workspaceId);
    return 'problem' in ready ? null : { configPin, agent, ready };
  }

  /** Whether a run of `agent` can start (its transport, its model, TRUTH-4's setup), and on what; else why not. */
  private async readyToRun(agent: Agent, settings: Awaited<ReturnType<SettingsService['get']>>, workspaceId: string): Promise<ReadyToRun | { problem: string }> {
    const transport = this.transports.for(agent);
    if (!transport) return { problem: `adapter '${agent.adapterId}' is not available on this server` };
    let model = agent.modelId;
    try {
      if (transport.resolveModel) model = transport.resolveModel({ agent, providerSettings: settings, env: this.deps.env });
    } catch (error) {
      return { problem: error instanceof DomainError ? error.message : String(error) };
    }
    // TRUTH-4: a runner without its provider's key or base URL cannot work: say which setting, now.
    const setupProblem = await brokeredProviderProblem(this.deps.modelBroker, transport, agent, workspaceId);
    if (setupProblem) return { problem: setupProblem };
    return { transport, model };
  }

  /**
   * Records the run (queued) and starts it in the background — at once, or `throughStartQueue` when
   * a slot of the start queue is free; resolves with the queued run.
   */
  async start(input: StartRunInput, throughStartQueue = false): Promise<{ run: Run; finished: Promise<RunOutcome> }> {
    const handle = await this.deps.workspaces.handle(input.workspaceId);
    return this.begin(await this.recordQueued(input, handle.database.db), input, throughStartQueue);
  }

  private recordQueued(input: StartRunInput, db: Parameters<RunService['record']>[1]): Promise<Run> {
    return this.deps.runs.record(input.workspaceId, db, this.runRecord(input), input.writtenWithRun);
  }

  private runRecord(input: StartRunInput): RecordRunInput {
    return {
      agentId: input.agent.id,
      spaceId: input.spaceId,
      conversationId: input.conversationId,
      parentRunId: input.parentRunId ?? null,
      mode: input.mode,
      autonomy: input.autonomy,
      depth: input.depth ?? 0,
      model: input.agent.modelId,
      inheritedRules: input.inheritedRules ?? [],
    };
  }

  /** Executes a recorded `queued` run in this process, in the background; `claimed`: owned through its job's claim, released with its completion. */
  private async begin(run: Run, input: StartRunInput, throughStartQueue = false, configPin?: ConfigPin, claimed = false, endCarries?: CarriedPart, startedAs?: ReadyToRun): Promise<{ run: Run; finished: Promise<RunOutcome> }> {
    // Owned before it can be `running`, so a running run without an owner row is always an orphan.
    if (this.ownership && !claimed) await this.ownership.own(input.workspaceId, run.id, input.conversationId);
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
    // Active from its acceptance: a queued turn can be cancelled or steered before it starts.
    this.deps.active.add(activeRun);
    const execution = throughStartQueue
      ? this.startQueue.schedule(input.conversationId ?? run.id, (started) => this.execute(run, input, activeRun, started))
      : this.execute(run, input, activeRun, undefined, configPin, endCarries, startedAs);
    const finished = execution.finally(async () => {
      this.deps.active.remove(run.id);
      if (this.ownership && !claimed) await this.ownership.disown(input.workspaceId, run.id).catch((error: unknown) => this.deps.logger.error({ err: error, runId: run.id }, 'could not release the ownership of an ended run'));
      resolveFinished();
    });
    return { run, finished };
  }

  /**
   * The pipeline: record → prepare → gate + transport → finish. `pinned`: the configuration version
   * the caller read just before (a queued run's start); else it is read here. Only the settings read
   * and the prepare stage are served under it, never the run's later reads. `endCarries`: what the
   * run's end statement carries (a queued run's job completion). `startedAs`: the run's row is
   * already `running` (written with its read, {@link executeQueued}) on this transport and model.
   */
  private async execute(queued: Run, input: StartRunInput, activeRun: ActiveRun, started?: () => void, pinned?: ConfigPin, endCarries?: CarriedPart, startedAs?: ReadyToRun): Promise<RunOutcome> {
    const { workspaceId } = input;
    const handle = await this.deps.workspaces.handle(workspaceId);
    const configPin = pinned ?? (await pinConfigVersion(handle.database.db));
    const settings = await this.deps.settings.get(workspaceId, configPin);
    // The workspace's default model for the agent's provider, unless the agent names its own.
    const agent = withDefaultModel(input.agent, settings);
    const runId = queued.id;
    // A child run belongs to the conversation's run tree but speaks only to its parent: it posts no
    // messages, asks no questions, submits no plans and keeps no runner session there.
    const scope: RunScope = {
      workspaceId,
      runId,
      agent,
      spaceId: input.spaceId,
      conversationId: input.parentRunId ? null : input.conversationId,
      mode: input.mode,
      autonomy: input.autonomy,
    };
    const recorder = new RunRecorder(this.deps, {
      scope,
      treeConversationId: input.conversationId,
      database: handle.database,
      row: queued,
      silenceMinutes: agent.silenceTimeoutMinutes ?? settings.defaultSilenceTimeoutMinutes,
      onFinished: input.onFinished,
      endCarries,
    });
    const checkoutKey = input.checkoutKey ?? (input.parentRunId ? this.checkoutKeys.get(input.parentRunId) : undefined) ?? input.conversationId ?? runId;
    this.checkoutKeys.set(runId, checkoutKey);
    let syncCheckout = false;
    let checkoutRecord: CheckoutRecord | undefined;
    let worktreePath = '';
    recorder.onEnding(async () => {
      this.mcpRuns.delete(runId);
      this.checkoutKeys.delete(runId);
      // SEC-3: the agent's commits show up in the user's repository as cc/<conversation>, brought over
      // by the server after every top-level run that could write (child runs share the parent's checkout).
      if (syncCheckout) {
        // A folder (no repository, so no record came with the checkout) that is not a git checkout
        // has no branch to bring over: its record is not read (NF-SCALE: a statement per turn on
        // PostgreSQL). One that is — made when the space had a repository — is synced as before.
        if (checkoutRecord || statOrNull(join(worktreePath, '.git'), 'noFollow')) {
          const synced = await this.checkouts.sync(workspaceId, checkoutKey, checkoutRecord).catch((syncError: unknown) => ({ synced: false, ref: '', reason: String(syncError) }));
          if (synced) recorder.log.event('checkout_synced', synced);
        }
        // SKL-4: and each linked repository's checkout under repos/<name>/ into its own repository.
        const linked = await this.checkouts.syncLinked(workspaceId, checkoutKey).catch((syncError: unknown) => [{ repository: '', synced: false as const, ref: '', reason: String(syncError) }]);
        for (const result of linked) recorder.log.event('checkout_synced', result);
      }
    });

    try {
      // Cancelled (or stopped by a shutdown) while it waited in the start queue: it ends without starting.
      if (activeRun.controller.signal.aborted) {
        const shutdownCause = this.stoppedByShutdown.get(runId);
        return await recorder.finish(shutdownCause ? 'failed' : 'cancelled', shutdownCause ?? null);
      }
      const ready = startedAs ?? (await this.readyToRun(agent, settings, workspaceId));
      if ('problem' in ready) return await recorder.finish('failed', ready.problem);
      const { transport, model } = ready;
      // Written `running` with its read: announced as that write would have been.
      if (startedAs) this.deps.events.publish(workspaceId, 'run.updated', queued);
      else await recorder.update({ state: 'running', model });
      this.deps.presence.set(workspaceId, agent.id, 'thinking', runId);

      const prepared = await prepareRun(
        { agents: this.deps.agents, checkouts: this.checkouts, modeTools: this.modeTools, hooks: this.prepareHooks },
        {
          scope,
          treeConversationId: input.conversationId,
          transport,
          settings,
          depth: input.depth ?? 0,
          surfaceCeiling: input.surfaceCeiling,
          checkoutKey,
          repoPath: input.repoPath ?? null,
          isChildRun: Boolean(input.parentRunId),
          workspaceDir: handle.dir,
          configPin,
        },
      );
      syncCheckout = prepared.syncCheckout;
      checkoutRecord = prepared.checkout.checkout ?? undefined;
      worktreePath = prepared.worktreePath;
      recorder.log.event('run_start', { mode: input.mode, autonomy: input.autonomy, model, adapter: agent.adapterId, tools: [...prepared.surfacedNames] });
      // CTX-3: the checkout as this turn begins, so the conversation can be rewound to before it.
      const checkpointBeforeChange = this.turnCheckpoint(workspaceId, input, runId, syncCheckout ? checkoutRecord : undefined, recorder);
      // The built-in harness changes the checkout only through its gate, which takes the checkpoint
      // before the turn's first call that may change it (a turn that only reads costs none); an
      // external runner writes on its own, so its checkpoint is taken before it starts.
      if (checkpointBeforeChange && transport.id !== BUILTIN_ADAPTER_ID) await checkpointBeforeChange();

      const toolCalls = new RunToolCalls(
        { policy: this.deps.policy, approvals: this.deps.approvals, events: this.deps.events, settings: this.deps.settings, presence: this.deps.presence, questions: this.deps.questions },
        {
          scope,
          treeConversationId: input.conversationId,
          inheritedRules: queued.inheritedRules,
          tools: prepared.tools,
          worktreePath: prepared.worktreePath,
          settings,
          recorder,
          runSubagent: (request, subSignal) => this.runSubagent(input, runId, prepared.surfacedNames, request, subSignal),
          ...(checkpointBeforeChange ? { checkpointBeforeChange } : {}),
        },
      );
      // Prepared: its start-queue slot goes to the next accepted turn while this one talks to its model.
      started?.();
      const outcome = await runOnTransport(
        { workspaces: this.deps.workspaces, active: this.deps.active, runTokens: this.deps.runTokens, modelBroker: this.deps.modelBroker, env: this.deps.env, serverUrl: this.serverUrl, mcpRuns: this.mcpRuns, spendGate: this.deps.spendGate },
        transport,
        {
          scope,
          prompt: input.prompt,
          // TOOL-3: read here, not carried in the job: the bytes stay in the database until the run needs them.
          images: input.imagesOfMessage && input.conversationId ? await promptImagesOf(handle.database.db, input.conversationId, input.imagesOfMessage) : [],
          history: await this.historyOf(input),
          ...(input.compact ? { compact: input.compact } : {}),
          workspaceDir: handle.dir,
          prepared,
          toolCalls,
          recorder,
          activeRun,
          settings,
        },
      );
      if (!recorder.finalText && outcome.finalText) recorder.finalText = outcome.finalText;
      const shutdownCause = outcome.outcome === 'cancelled' ? this.stoppedByShutdown.get(runId) : undefined;
      return await recorder.finish(shutdownCause ? 'failed' : outcome.outcome, shutdownCause ?? outcome.error, {
        deliverableFailed: outcome.deliverableFailed,
        usage: { ...outcome.usage, cacheReadTokens: outcome.usage.cacheReadTokens ?? 0, cacheWriteTokens: outcome.usage.cacheWriteTokens ?? 0 },
        costUsd: outcome.costUsd ?? 0,
      });
    } catch (error) {
      return await recorder.finish('failed', `internal error: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.stoppedByShutdown.delete(runId);
    }
  }

  /** The run's history: given, or read now (`historyBefore`, NF-SCALE bursts) as the turn would have seen it when accepted. */
  private async historyOf(input: StartRunInput): Promise<ModelMessage[]> {
    if (input.history?.length || !input.historyBefore || !input.conversationId) return input.history ?? [];
    return this.deps.messages.historyBefore(input.workspaceId, input.conversationId, input.historyBefore);
  }

  /**
   * CTX-3: a top-level turn in a conversation with a checkout gets one checkpoint, taken by the first
   * caller of the returned function; every later caller awaits the same one. Null for a child run
   * (its parent's turn holds the checkpoint) and a run without a checkout.
   */
  private turnCheckpoint(workspaceId: string, input: StartRunInput, runId: string, record: CheckoutRecord | undefined, recorder: RunRecorder): (() => Promise<void>) | null {
    const conversationId = input.conversationId;
    if (!record || !conversationId || input.parentRunId) return null;
    let taken: Promise<void> | undefined;
    return () => (taken ??= this.checkpointTurn(workspaceId, conversationId, runId, record, recorder));
  }

  /** CTX-3: commits the checkout's state before the turn; a failure is logged and the turn goes on (it only cannot be rewound to). */
  private async checkpointTurn(workspaceId: string, conversationId: string, runId: string, record: CheckoutRecord, recorder: RunRecorder): Promise<void> {
    try {
      const commit = await checkpointTurn(await this.checkouts.runner(workspaceId, record), conversationId, runId);
      const db = (await this.deps.workspaces.handle(workspaceId)).database.db;
      await insertTurnCheckpoint(db, { run_id: runId, conversation_id: conversationId, commit_sha: commit, created_at: nowIso() });
      recorder.log.event('turn_checkpoint', { commit });
    } catch (error) {
      recorder.log.event('turn_checkpoint_failed', { reason: error instanceof Error ? error.message : String(error) });
    }
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
      const named = await this.deps.agents.findByName(parent.workspaceId, request.agent);
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
      // SEC-9: the parent's rules (its space's, its agent's, its own ceiling) bound the child.
      inheritedRules: await ceilingOfWorkStartedBy((await this.deps.workspaces.handle(parent.workspaceId)).database.db, parentRunId),
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
    const run = this.deps.active.get(runId);
    if (!run) return false;
    run.controller.abort();
    this.deps.active.resume(runId);
    return true;
  }

  /**
   * Stops a run because this process is shutting down (a worker's SIGTERM after its grace period):
   * the run ends `failed` with `cause`, a sentence a person reads on the run, never left `running`.
   */
  stopForShutdown(runId: string, cause: string): boolean {
    if (!this.deps.active.get(runId)) return false;
    this.stoppedByShutdown.set(runId, cause);
    return this.cancel(runId);
  }
}
