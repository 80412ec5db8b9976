import { join } from 'node:path';
import { buildCapabilityPreamble } from '../core/capability-preamble.js';
import { getCapabilityProfile } from '../core/capability-profiles.js';
import { buildCompletionContract } from '../core/completion-contract.js';
import type { AutonomyLevel, Mode } from '../core/modes.js';
import { buildToolSurface } from '../core/tool-surface.js';
import { DomainError } from '../errors/index.js';
import type { AgentEvent } from '../harness/agent-events.js';
import { runAgentLoop } from '../harness/agent-loop.js';
import { assembleSystemPrompt } from '../harness/assemble-system-prompt.js';
import { computeCost, resolveModel, type ResolvedModel } from '../llm/model-catalog.js';
import type { ModelMessage, ToolCallBlock } from '../llm/model-types.js';
import type { Agent } from '../schemas/agent.js';
import type { Run } from '../schemas/run.js';
import { builtinTools, parseToolInput, toModelTool, toolDescriptors } from '../tools/builtin-tools.js';
import { fail, type Tool, type ToolContext, type ToolResult } from '../tools/define-tool.js';
import { ensureWorktree } from '../tools/git-worktrees.js';
import { NodeWorktree } from '../tools/node-worktree.js';
import type { ActiveRun, ActiveRuns } from './active-runs.js';
import type { AgentService } from './agent-service.js';
import type { ApprovalService } from './approval-service.js';
import type { EventBus } from './event-bus.js';
import { LivenessWatchdog } from './liveness-watchdog.js';
import type { MessageService } from './message-service.js';
import type { PolicyService, PolicyVerdict } from './policy-service.js';
import type { PresenceService } from './presence-service.js';
import type { QuestionService } from './question-service.js';
import { RunLog } from './run-log.js';
import type { RunService } from './run-service.js';
import type { SettingsService } from './settings-service.js';
import type { WorkspaceService } from './workspace-service.js';

/** Extra tools a mode brings (plan verbs, review verbs…), registered by the services that own them. */
export type ModeToolProvider = (context: { workspaceId: string; runId: string; agent: Agent; spaceId: string | null; conversationId: string | null; mode: Mode }) => Tool[];

/** What one built-in harness run needs to start. */
export interface StartRunInput {
  workspaceId: string;
  agent: Agent;
  /** The space's id, or null for a one-shot run (MODE-2 → chat). */
  spaceId: string | null;
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
}

const MAX_REMINDERS = 2;

/**
 * Runs agents on the built-in harness (HAR-1..7): builds the mode's tool surface, prompt and model
 * from the capability profile, gates every call through the policy engine and approvals, writes the
 * run log, and streams every event to the workspace's SSE channel.
 */
export class RunExecutor {
  private readonly modeTools: ModeToolProvider[] = [];

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
    private readonly options: RunExecutorOptions,
  ) {}

  registerModeTools(provider: ModeToolProvider): void {
    this.modeTools.push(provider);
  }

  /** Records the run (queued) and starts it in the background; resolves with the queued run. */
  async start(input: StartRunInput): Promise<{ run: Run; finished: Promise<Run> }> {
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

  private async execute(queued: Run, input: StartRunInput, activeRun: ActiveRun): Promise<Run> {
    const { workspaceId, agent } = input;
    const handle = await this.workspaces.handle(workspaceId);
    const db = handle.database.db;
    const log = new RunLog(db, queued.id);
    const settings = await this.settings.get(workspaceId);
    const signal = activeRun.controller.signal;
    const publish = (event: AgentEvent) =>
      this.events.publish(workspaceId, 'run.event', { runId: queued.id, conversationId: input.conversationId, agentId: agent.id, event });
    const setLiveness = (liveness: Run['liveness']) => void this.runs.update(workspaceId, db, queued.id, { liveness }).catch(() => undefined);
    const silenceMinutes = agent.silenceTimeoutMinutes ?? settings.defaultSilenceTimeoutMinutes;
    const watchdog = new LivenessWatchdog(
      silenceMinutes * this.options.minuteMs,
      () => setLiveness('stalled'),
      () => setLiveness('ok'),
    );
    let finalText = '';
    // Run-log writes happen in event order, one at a time, and are all done before the run ends.
    let persisted: Promise<void> = Promise.resolve();
    const persist = (work: () => Promise<void>) => {
      persisted = persisted.then(work).catch(() => undefined);
    };

    const finish = async (state: Run['state'], error: string | null, extra: { deliverableFailed?: boolean; usage?: Run['usage']; costUsd?: number } = {}) => {
      watchdog.stop();
      await persisted;
      const run = await this.runs.update(workspaceId, db, queued.id, {
        state,
        error,
        ...(state === 'failed' ? { liveness: 'failed' as const } : { liveness: 'ok' as const }),
        ...(extra.deliverableFailed !== undefined ? { deliverableFailed: extra.deliverableFailed } : {}),
        ...(extra.usage ? { usage: extra.usage } : {}),
        ...(extra.costUsd !== undefined ? { costUsd: extra.costUsd } : {}),
      });
      await log.event('run_end', { state, error, deliverableFailed: extra.deliverableFailed ?? false });
      this.presence.set(workspaceId, agent.id, state === 'completed' ? 'done' : 'idle', queued.id);
      await input.onFinished?.(run, finalText);
      return run;
    };

    try {
      const profile = getCapabilityProfile(input.mode);
      let model: ResolvedModel;
      try {
        model = resolveModel({
          modelId: agent.modelId,
          settings: { apiKeys: settings.apiKeys, baseUrls: settings.baseUrls },
          env: this.options.env,
          ...(this.options.idleTimeoutMs !== undefined ? { idleTimeoutMs: this.options.idleTimeoutMs } : {}),
          ...(this.options.maxRetries !== undefined ? { maxRetries: this.options.maxRetries } : {}),
        });
      } catch (error) {
        const message = error instanceof DomainError ? error.message : String(error);
        if (input.conversationId) {
          await this.messages.append(workspaceId, {
            conversationId: input.conversationId,
            runId: queued.id,
            role: 'system',
            authorKind: 'system',
            authorId: null,
            mode: input.mode,
            picker: null,
            content: `Run failed: ${message}`,
          });
        }
        return await finish('failed', message);
      }
      await this.runs.update(workspaceId, db, queued.id, { state: 'running', model: model.model.id });
      this.presence.set(workspaceId, agent.id, 'thinking', queued.id);

      const worktreeInfo = await ensureWorktree({
        repoPath: input.repoPath ?? null,
        worktreesDir: join(handle.dir, 'worktrees'),
        conversationId: input.conversationId ?? queued.id,
      });
      const worktree = new NodeWorktree(worktreeInfo.path);

      // The registry: built-in tools plus the mode's own verbs; one-shot runs have no ask_user (PLAN-4).
      const registry = [
        ...builtinTools(),
        ...this.modeTools.flatMap((provider) =>
          provider({ workspaceId, runId: queued.id, agent, spaceId: input.spaceId, conversationId: input.conversationId, mode: input.mode }),
        ),
      ].filter((tool) => input.conversationId !== null || tool.name !== 'ask_user');
      const depth = input.depth ?? 0;
      const withinDepth = registry.filter((tool) => tool.name !== 'task' || depth + 1 < settings.delegationDepth);
      let surfaced = buildToolSurface(profile, toolDescriptors(withinDepth));
      // A subagent reports back to its parent: it never delivers the mode's verb itself, and its
      // surface is the parent's or narrower (HAR-5).
      if (input.surfaceCeiling) surfaced = surfaced.filter((tool) => input.surfaceCeiling!.has(tool.name) && tool.name !== profile.outputVerb);
      const surfacedNames = new Set(surfaced.map((tool) => tool.name));
      const toolsByName = new Map(withinDepth.filter((tool) => surfacedNames.has(tool.name)).map((tool) => [tool.name, tool]));
      const skills = await this.agents.skillDescriptions(workspaceId, agent);
      const system = assembleSystemPrompt({
        agentName: agent.name,
        title: agent.title,
        persona: agent.persona,
        systemPrompt: agent.systemPrompt,
        skills,
        modeBlock: buildCapabilityPreamble(profile, surfaced),
        environment: `Your working directory is the conversation's worktree. Paths are relative to it; paths that leave it are refused.`,
      });
      const contract = input.surfaceCeiling ? null : buildCompletionContract(profile);
      await log.event('run_start', { mode: input.mode, autonomy: input.autonomy, model: model.model.id, tools: [...surfacedNames] });

      const runState = new Map<string, unknown>();
      const toolContext = (callSignal: AbortSignal): ToolContext => ({
        worktree,
        signal: callSignal,
        runId: queued.id,
        runState,
        ...(input.conversationId
          ? {
              askUser: async (questions, questionSignal) => {
                this.presence.set(workspaceId, agent.id, 'blocked', queued.id);
                setLiveness('blocked');
                watchdog.suspend();
                try {
                  return await this.questions.ask(
                    { workspaceId, runId: queued.id, agentId: agent.id, conversationId: input.conversationId!, questions },
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

      const executedCalls = new Set<string>();
      const executeTool = async (call: ToolCallBlock, callSignal: AbortSignal): Promise<ToolResult> => {
        const tool = toolsByName.get(call.name)!;
        const parsed = parseToolInput(tool, call.input);
        if (!parsed.ok) return parsed.result;
        const verdict = await this.policy.decideToolCall(
          workspaceId,
          { mode: input.mode, autonomy: input.autonomy, spaceId: input.spaceId, agentId: agent.id, parentAgentId: input.parentAgentId ?? null, worktreeRoot: worktree.root },
          tool,
          parsed.input,
        );
        persist(() => log.toolCallDecided(call.id, verdict));
        const gated = await this.gate(verdict, { workspaceId, input, runId: queued.id, call, watchdog, setLiveness, signal: callSignal });
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

      const messages: ModelMessage[] = [...(input.history ?? []), { role: 'user', content: input.prompt }];
      const result = await runAgentLoop({
        streamFn: model.streamFn,
        model: model.model.id,
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
        emit: (event) => {
          watchdog.touch();
          publish(event);
          if (event.type === 'looping_detected') setLiveness('looping');
          if (event.type === 'looping_cleared') setLiveness('ok');
          persist(() => this.persistEvent(log, event, executedCalls));
          if (event.type === 'assistant_message') {
            const text = event.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
            if (text.trim()) finalText = text;
          }
        },
      });
      const usage = {
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        cacheReadTokens: result.usage.cacheReadTokens ?? 0,
        cacheWriteTokens: result.usage.cacheWriteTokens ?? 0,
      };
      const costUsd = computeCost(result.usage, model.pricing);
      if (input.conversationId && finalText.trim()) {
        await this.messages.append(workspaceId, {
          conversationId: input.conversationId,
          runId: queued.id,
          role: 'assistant',
          authorKind: 'agent',
          authorId: agent.id,
          mode: input.mode,
          picker: null,
          content: finalText,
        });
      }
      if (result.deliverableFailed && contract && input.conversationId) {
        await this.messages.append(workspaceId, {
          conversationId: input.conversationId,
          runId: queued.id,
          role: 'system',
          authorKind: 'system',
          authorId: null,
          mode: input.mode,
          picker: null,
          content: contract.failureLine,
        });
      }
      const state = result.outcome === 'completed' ? 'completed' : result.outcome === 'cancelled' ? 'cancelled' : 'failed';
      if (state === 'failed' && input.conversationId) {
        await this.messages.append(workspaceId, {
          conversationId: input.conversationId,
          runId: queued.id,
          role: 'system',
          authorKind: 'system',
          authorId: null,
          mode: input.mode,
          picker: null,
          content: `Run failed: ${result.error ?? 'unknown error'}`,
        });
      }
      return await finish(state, result.error, { deliverableFailed: result.deliverableFailed, usage, costUsd });
    } catch (error) {
      return await finish('failed', `internal error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Applies a policy verdict (POL-4, POL-7): deny → an error result naming the deciding rule; ask →
   * fail closed when no operator is connected, else an approval the call waits on. Returns null when
   * the call may run.
   */
  private async gate(
    verdict: PolicyVerdict,
    context: {
      workspaceId: string;
      input: StartRunInput;
      runId: string;
      call: ToolCallBlock;
      watchdog: LivenessWatchdog;
      setLiveness: (liveness: Run['liveness']) => void;
      signal: AbortSignal;
    },
  ): Promise<ToolResult | null> {
    const { workspaceId, input, runId, call } = context;
    const rule = `${verdict.decidedBy.scope}${verdict.decidedBy.ruleId ? ` rule ${verdict.decidedBy.ruleId}` : ''}`;
    if (verdict.decision === 'allow') return null;
    if (verdict.decision === 'deny') {
      return fail(`Denied by policy (decided by ${rule}): ${verdict.explanation}`, { decidedBy: verdict.decidedBy, classes: verdict.classes });
    }
    if (this.events.subscriberCount(workspaceId) === 0) {
      return fail(
        `Denied: this call needs an operator's approval (${verdict.classes.join(', ') || 'gated'}; decided by ${rule}) and no operator is connected to approve it (fail closed, POL-4).`,
        { decidedBy: verdict.decidedBy, classes: verdict.classes },
      );
    }
    const settings = await this.settings.get(workspaceId);
    this.presence.set(workspaceId, input.agent.id, 'blocked', runId);
    context.setLiveness('blocked');
    context.watchdog.suspend();
    try {
      const outcome = await this.approvals.requestAndWait(
        workspaceId,
        {
          kind: 'tool',
          durable: false,
          runId,
          agentId: input.agent.id,
          spaceId: input.spaceId,
          conversationId: input.conversationId,
          title: `${input.agent.name} wants to run ${call.name}: ${verdict.summary}`,
          request: { toolName: call.name, input: call.input, classes: verdict.classes, summary: verdict.summary, decidedBy: verdict.decidedBy, fingerprint: verdict.fingerprint },
        },
        { timeoutMs: settings.approvalTimeoutSeconds * 1000, signal: context.signal },
      );
      if (outcome.status === 'approved') {
        if (outcome.remember) await this.policy.rememberChoice(workspaceId, verdict, 'allow');
        return null;
      }
      if (outcome.status === 'rejected') {
        if (outcome.remember) await this.policy.rememberChoice(workspaceId, verdict, 'deny');
        return fail(`The operator rejected this call${outcome.reason ? `: ${outcome.reason}` : '.'}`, { approvalId: outcome.approval.id });
      }
      return fail(`Denied: ${outcome.reason ?? 'no decision'} (an unanswered approval is never a yes, POL-4).`, { approvalId: outcome.approval.id });
    } finally {
      context.watchdog.resume();
      context.setLiveness('ok');
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
      const named = await this.agents.findByName(parent.workspaceId, request.agent);
      if (!named) return fail(`There is no agent named "${request.agent}" in this workspace.`);
      agent = named;
    }
    const { run, finished } = await this.start({
      workspaceId: parent.workspaceId,
      agent,
      spaceId: parent.spaceId,
      conversationId: null,
      mode: parent.mode,
      autonomy: parent.autonomy,
      prompt: request.prompt,
      parentRunId,
      depth: (parent.depth ?? 0) + 1,
      surfaceCeiling: parentSurface,
      parentAgentId: parent.agent.id,
      repoPath: parent.repoPath ?? null,
    });
    const abortChild = () => this.cancel(run.id);
    signal.addEventListener('abort', abortChild, { once: true });
    let finalText = '';
    const unsubscribe = this.events.subscribe(parent.workspaceId, (event) => {
      const data = event.data as { runId?: string; event?: AgentEvent };
      if (event.type === 'run.event' && data.runId === run.id && data.event?.type === 'assistant_message') {
        const text = data.event.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
        if (text.trim()) finalText = text;
      }
    });
    try {
      const ended = await finished;
      if (ended.state !== 'completed') return fail(`Subagent run ${run.id} ${ended.state}: ${ended.error ?? ''}`.trim(), { runId: run.id });
      return { content: finalText || '(the subagent finished without a report)', isError: false, details: { runId: run.id } };
    } finally {
      unsubscribe();
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
  private async persistEvent(log: RunLog, event: AgentEvent, executedCalls: ReadonlySet<string>): Promise<void> {
    if (event.type === 'text_delta' || event.type === 'thinking_delta') return;
    if (event.type === 'tool_call_start') await log.toolCallStarted(event.call);
    if (event.type === 'tool_call_end') await log.toolCallEnded(event.call.id, event.result, executedCalls.has(event.call.id));
    await log.event(event.type, event);
  }
}
