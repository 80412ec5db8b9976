import { join } from 'node:path';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import type { HookSessions } from '../../core/hook-sessions.js';
import { worktreeState } from '../../core/worktree-state.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { runAgentLoop } from '../../harness/agent-loop.js';
import { contextBudget } from '../../harness/context-budget.js';
import { ContextWindow } from '../../harness/context-window.js';
import { computeCost, resolveModel, type ResolvedModel } from '../../llm/model-catalog.js';
import type { ModelMessage } from '../../llm/model-types.js';
import { CommandSandbox } from '../../sandbox/command-sandbox.js';
import { sanitizedEnv } from '../../sandbox/sanitized-env.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import { toModelTool } from '../../tools/builtin-tools.js';
import { NodeWorktree, type NodeWorktreeOptions } from '../../worktree/node-worktree.js';
import type { AgentTransport, TransportModelRequest, TransportResult, TransportRunContext } from '../agent-transport.js';
import { BUILTIN_CAPABILITIES } from './builtin-capabilities.js';
import { keepLargeOutput } from './saved-tool-output.js';
import { timedStreamFn } from '../../llm/timed-stream-fn.js';

/** How many times a run that ends without its output verb is reminded before it is flagged (HAR-4). */
const MAX_REMINDERS = 2;

export interface BuiltinTransportOptions {
  /** The OS sandbox for the built-in `bash` (default: the host's backend, probed once). */
  commandSandbox?: CommandSandbox;
  /** Where built-in runs register with the push proxy: the composition root's one registry. */
  hookSessions: HookSessions;
  maxTokens: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
  /** Told each model call's duration in seconds (the process's `/metrics` histogram); absent: not measured. */
  observeModelCall?: (seconds: number) => void;
}

/**
 * The built-in harness (ADP-2, HAR-1..7) as a transport like any other: the agent loop runs in this
 * process on the model the agent names, with the run's tools from the toolbox (every call through
 * the one chokepoint), and `bash` inside the host's OS sandbox with pushes sent through the push
 * proxy (SBX-1, POL-6).
 */
export class BuiltinTransport implements AgentTransport {
  readonly id = BUILTIN_CAPABILITIES.adapterId;
  readonly capabilities = BUILTIN_CAPABILITIES;
  private readonly commandSandbox: CommandSandbox;

  constructor(private readonly options: BuiltinTransportOptions) {
    this.commandSandbox = options.commandSandbox ?? new CommandSandbox();
  }

  /** The model the run calls; a model it cannot reach (unknown, no key) throws and fails the run before it starts. */
  resolveModel(request: TransportModelRequest): string {
    return this.model(request).model.id;
  }

  private model(request: TransportModelRequest): ResolvedModel {
    return resolveModel({
      modelId: request.agent.modelId,
      settings: { apiKeys: request.providerSettings.apiKeys, baseUrls: request.providerSettings.baseUrls },
      env: request.env,
      ...(this.options.idleTimeoutMs !== undefined ? { idleTimeoutMs: this.options.idleTimeoutMs } : {}),
      ...(this.options.maxRetries !== undefined ? { maxRetries: this.options.maxRetries } : {}),
    });
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const toolbox = context.toolbox;
    if (!toolbox) throw new Error('the built-in harness runs only with the run toolbox');
    const model = this.model({ agent: context.agent, providerSettings: context.providerSettings ?? { apiKeys: {}, baseUrls: {} }, env: context.env });
    const shell = await this.shell(context, toolbox.tools.some((tool) => tool.name === 'bash'));
    try {
      context.setSandbox(shell.sandbox);
      const worktree = new NodeWorktree(context.worktreePath, shell.options);
      toolbox.useWorktree(worktree);
      const images = context.images ?? [];
      // `/compact` sends no prompt: the turn only compacts the history.
      const messages: ModelMessage[] = context.compact ? [...context.history] : [...context.history, { role: 'user', content: context.prompt, ...(images.length > 0 ? { images } : {}) }];
      const completion = context.completion ?? null;
      const tools = toolbox.tools.map(toModelTool);
      // CTX-1: every request is budgeted against the agent's contextSize, else the model's window.
      const budget = contextBudget({ contextSize: context.agent.contextSize, contextWindow: model.model.contextWindow, maxTokens: this.options.maxTokens });
      const result = await runAgentLoop({
        streamFn: this.options.observeModelCall ? timedStreamFn(model.streamFn, this.options.observeModelCall) : model.streamFn,
        model: model.model.id,
        system: context.systemPrompt,
        maxTokens: this.options.maxTokens,
        ...(context.agent.effort ? { effort: context.agent.effort } : {}),
        messages,
        tools,
        contextWindow: new ContextWindow(budget, context.systemPrompt, tools),
        ...(context.compact ? { compactOnly: context.compact } : {}),
        costOf: (usage) => computeCost(usage, model.pricing),
        ...(model.countTokens ? { countTokens: model.countTokens } : {}),
        executeTool: async (call, signal) => keepLargeOutput(worktree, context.runId, call.id, await toolbox.execute(call, signal)),
        completion: completion ? { outputVerb: completion.outputVerb, reminder: completion.reminder, maxReminders: MAX_REMINDERS } : null,
        drainSteering: () => context.drainSteering?.() ?? [],
        closeSteering: () => context.closeSteering?.() ?? [],
        waitWhilePaused: (signal) => context.waitWhilePaused?.(signal) ?? Promise.resolve(),
        signal: context.signal,
        ...(context.beforeModelCall ? { beforeModelCall: context.beforeModelCall } : {}),
        emit: (event) => {
          // BUD-1: every call's usage is recorded with its cost as it arrives, not only the run's total.
          if (event.type === 'usage') context.recordModelCall?.({ provider: model.provider.id, model: model.model.id, usage: event.usage, costUsd: computeCost(event.usage, model.pricing), priced: model.pricing !== null });
          context.emit(event);
        },
      });
      return {
        outcome: result.outcome === 'completed' ? 'completed' : result.outcome === 'cancelled' ? 'cancelled' : 'failed',
        error: result.error,
        deliverableFailed: result.deliverableFailed,
        usage: result.usage,
        costUsd: computeCost(result.usage, model.pricing),
        finalText: '',
      };
    } finally {
      shell.release();
    }
  }

  /**
   * How the built-in `bash` runs (SBX-1, POL-6): inside the host's OS sandbox when it has one, with
   * the worktree mounted as the mode says; and with git configured (in its environment) to send every
   * push to the checkout's remotes through the push proxy, authenticated with the run's token, so a
   * push made inside a script is decided by the gitPush rules before it reaches the remote.
   * `release` ends the proxy's session.
   */
  private async shell(context: TransportRunContext, bash: boolean): Promise<{ options: NodeWorktreeOptions; sandbox: string; release: () => void }> {
    // SEC-2, SEC-3: the remotes recorded from the user's repository when the checkout was made.
    const remotes = bash && context.checkout && context.serverUrl ? context.checkout.pushRemotes : [];
    let pushEnv: Record<string, string> = {};
    const releases: Array<() => void> = [];
    const release = () => {
      for (const step of releases.splice(0)) step();
    };
    try {
      if (remotes.length > 0) {
        const runEnded = new AbortController();
        releases.push(() => runEnded.abort());
        releases.push(
          this.options.hookSessions.register({
            token: context.mcp.token,
            workspaceId: context.workspaceId,
            runId: context.runId,
            mode: context.mode,
            worktreePath: context.worktreePath,
            gate: context.gate,
            signal: AbortSignal.any([runEnded.signal, context.signal]),
            pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
            pushStagingDir: join(context.workspaceDir, 'push-staging'),
            decisions: [],
            pushOnly: true,
          }),
        );
        pushEnv = gitPushEnvironment(context.serverUrl, context.mcp.token, remotes);
      }
      const sandbox = await this.commandSandbox.forRun({
        worktreePath: context.worktreePath,
        readOnly: worktreeState(getCapabilityProfile(context.mode)) === 'readOnly',
        sharedObjectsDir: context.checkout?.sharedObjectsDir ?? null,
        workspaceDir: context.workspaceDir,
        reach: remotes.length > 0 ? [context.serverUrl] : [],
        conversationId: context.conversationId,
      });
      releases.push(() => sandbox.release());
      // SEC-5: repository hooks and fixed-name config programs are switched off for the agent's git.
      const options: NodeWorktreeOptions = { defaultEnv: sanitizedEnv(process.env, withSandboxGitConfig({ ...sandbox.env, ...pushEnv }, { privateHome: sandbox.wrapCommand !== undefined })) };
      if (sandbox.wrapCommand) options.wrapCommand = sandbox.wrapCommand;
      if (sandbox.spawnHelper) options.spawnHelper = sandbox.spawnHelper;
      const pushes = remotes.length > 0 ? `; pushes to ${[...new Set(remotes.map((remote) => remote.name))].join(', ')} through the push proxy` : '';
      return { options, sandbox: `${sandbox.description}${pushes}`, release };
    } catch (error) {
      release();
      throw error;
    }
  }
}
