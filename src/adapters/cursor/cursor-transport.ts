import { join } from 'node:path';
import type { AgentOptions, Run, SDKAgent, SDKMessage } from '@cursor/sdk';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import type { HookSessions } from '../../core/hook-sessions.js';
import { relayModeOf, type RelayMode } from '../../core/relay/relay-mode.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import type { ToolCallBlock } from '../../llm/model-types.js';
import type { CommandSandbox } from '../../sandbox/command-sandbox.js';
import { sanitizedEnv } from '../../sandbox/sanitized-env.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import { NodeWorktree, type NodeWorktreeOptions } from '../../worktree/node-worktree.js';
import type { AgentTransport, TransportResult, TransportRunContext } from '../agent-transport.js';
import { looksLikePlan, type AskUser } from '../claude-agent-sdk/claude-agent-sdk-transport.js';
import { nextRelayModeLine } from '../last-relay-mode.js';
import { cancelledResult, emptyUsage, outputVerbDelivered, RunnerSandboxChoice, withRunnerLaunch, type RunnerLaunchScope } from '../runner-setup.js';
import { cursorApiKey, CURSOR_API_KEY_VARIABLE } from './cursor-api-key.js';
import { CURSOR_ADAPTER_ID, CURSOR_CAPABILITIES } from './cursor-capabilities.js';
import { cursorHostTools } from './cursor-host-tools.js';
import { realCursorSdk, type CursorSdk } from './cursor-sdk-seam.js';
import { CONTROL_CENTER_MCP_SERVER, cursorToolAllowlist, offSurfaceReason } from './cursor-tool-surface.js';

export { CURSOR_ADAPTER_ID } from './cursor-capabilities.js';

/** The model a Cursor agent runs when it names none (Cursor's own automatic choice). */
const DEFAULT_CURSOR_MODEL = 'auto';
/** RLY-8: the relay modes that reach Cursor as the `[Relay mode: …]` line (plan is Cursor's own mode). */
const LINE_MODES: readonly RelayMode[] = ['ask', 'autopilot'];
/** Reminders before a run that never delivered its output verb is flagged (the other transports' number). */
const MAX_REMINDERS = 2;
/** Why no OS sandbox can wrap this runner (recorded on every run, and in the refusal). */
const IN_PROCESS = 'the Cursor SDK runs inside the server process, which no OS sandbox can wrap';

export interface CursorTransportOptions {
  hookSessions: HookSessions;
  /** The sandbox the host tools' commands run in (the built-in `bash`'s, SBX-1). */
  commandSandbox: CommandSandbox;
  /** Question cards (RLY-4) for the host's `ask_user` tool. */
  askUser: AskUser;
  /** SEC-6: the operator's `--allow-unsandboxed-runners`; without it every Cursor run is refused. */
  allowUnsandboxed?: boolean;
  /** The SDK seam (default: the real `@cursor/sdk`); tests pass a fake. */
  sdk?: CursorSdk;
  log?: (message: string, detail?: unknown) => void;
}

type Json = Record<string, unknown>;

/** What one Control Center turn keeps across the SDK runs it sends (the message, then reminders). */
interface TurnState {
  relayMode: RelayMode;
  /** The mode's output verb when it is on the surface (HAR-4). */
  verb: string | null;
  /** Cursor reported a completed call of the verb (names the event; delivery is the host's record). */
  verbReported: boolean;
  planShown: boolean;
  usage: ReturnType<typeof emptyUsage>;
  /** The last non-empty answer. */
  finalText: string;
}

/** An in-process runner never has an OS sandbox backend: the launch skeleton then applies SEC-6. */
class InProcessRunner extends RunnerSandboxChoice {
  override get(): Promise<{ backend: null; detail: string }> {
    return Promise.resolve({ backend: null, detail: IN_PROCESS });
  }
}

const failed = (error: string, finalText = '', usage = emptyUsage()): TransportResult => ({ outcome: 'failed', error, deliverableFailed: false, usage, costUsd: null, finalText });

/**
 * Runs agents on Cursor through `@cursor/sdk` (RLY-7): a local Cursor agent per conversation, its
 * state in a JSONL store under the conversation's runner directory, resumed turn after turn. The SDK
 * runs inside this process and asks the host nothing before a tool runs, so the host decides what
 * the agent can call: Cursor's reads, the Control Center's MCP server, and host tools — `run_command`
 * and `write_file` through the policy gate (POL-1, fail closed POL-4) in writable modes, `ask_user`
 * as a question card (RLY-4). Any other tool call the SDK reports cancels the turn (after the fact).
 * Plan → Cursor's `plan` mode with reads only, its `createPlan` a Plan ready board (RLY-5); ask and
 * autopilot → the RLY-8 line on a change; agent → nothing. Cursor's settings files in the worktree
 * are never loaded (`settingSources: []`).
 */
export class CursorTransport implements AgentTransport {
  readonly id = CURSOR_ADAPTER_ID;
  readonly capabilities = CURSOR_CAPABILITIES;
  private readonly sandboxChoice = new InProcessRunner('none');
  private readonly sdk: CursorSdk;

  constructor(private readonly options: CursorTransportOptions) {
    this.sdk = options.sdk ?? realCursorSdk();
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const log = this.options.log ?? (() => undefined);
    return withRunnerLaunch(
      {
        context,
        runner: 'cursor',
        runnerName: 'Cursor',
        transport: { hookSessions: this.options.hookSessions, allowUnsandboxed: this.options.allowUnsandboxed ?? false },
        sandboxChoice: this.sandboxChoice,
        startFailure: 'The Cursor runner could not start',
        log,
      },
      (scope) => this.turn(context, scope, log),
    );
  }

  private async turn(context: TransportRunContext, scope: RunnerLaunchScope, log: (message: string, detail?: unknown) => void): Promise<TransportResult> {
    const apiKey = cursorApiKey(context);
    if (!apiKey) return failed(`Cursor needs an API key: set the Cursor runner key in Settings (runnerKeys.cursor) or ${CURSOR_API_KEY_VARIABLE} in the server's environment.`);
    // MODE-2, RLY-9: fixed at turn start; a mode change applies from the next message.
    const relayMode = relayModeOf(context.mode, context.autonomy);
    const writable = !scope.readOnly && relayMode !== 'plan';
    const remotes = context.checkout?.pushRemotes ?? [];
    const commands = await this.options.commandSandbox.forRun({
      worktreePath: context.worktreePath,
      readOnly: !writable,
      sharedObjectsDir: context.checkout?.sharedObjectsDir ?? null,
      workspaceDir: context.workspaceDir,
      reach: remotes.length > 0 ? [context.serverUrl] : [],
      conversationId: context.conversationId,
    });
    context.setSandbox(`none: ${IN_PROCESS}; unsandboxed by operator opt-in (--allow-unsandboxed-runners); the host tools' commands: ${commands.description}`);
    const turnEnded = new AbortController();
    const signal = AbortSignal.any([context.signal, scope.session.signal, turnEnded.signal]);
    let agent: SDKAgent | null = null;
    try {
      const pushEnv = remotes.length > 0 ? gitPushEnvironment(context.serverUrl, context.mcp.token, remotes) : {};
      const worktreeOptions: NodeWorktreeOptions = { defaultEnv: sanitizedEnv(process.env, withSandboxGitConfig({ ...commands.env, ...pushEnv }, { privateHome: commands.wrapCommand !== null })) };
      if (commands.wrapCommand) worktreeOptions.wrapCommand = commands.wrapCommand;
      if (commands.spawnHelper) worktreeOptions.spawnHelper = commands.spawnHelper;
      const agentOptions: AgentOptions = {
        apiKey,
        name: 'Control Center',
        model: { id: context.agent.modelId ?? DEFAULT_CURSOR_MODEL },
        tools: cursorToolAllowlist(),
        mode: relayMode === 'plan' ? 'plan' : 'agent',
        mcpServers: { [CONTROL_CENTER_MCP_SERVER]: { type: 'http', url: context.mcp.url, headers: { authorization: `Bearer ${context.mcp.token}` } } },
        local: {
          cwd: context.worktreePath,
          store: await this.sdk.store(join(scope.dirs.configDir, 'cursor-store')),
          // The worktree is the agent's to write: none of its files (.cursor/, rules, MCP lists) may
          // change what the host gave the agent.
          settingSources: [],
          customTools: cursorHostTools({ context, session: scope.session, worktree: new NodeWorktree(context.worktreePath, worktreeOptions), writable, askUser: this.options.askUser, signal }),
          // A transport failure fails the run at once instead of retrying behind the operator's back.
          enableAgentRetries: false,
        },
      };
      if (context.previousSessionId) {
        agent = await this.sdk.resume(context.previousSessionId, agentOptions).catch((error: unknown) => {
          log('cursor: resuming the agent failed, starting a new one', error);
          return null;
        });
      }
      const fresh = agent === null;
      agent ??= await this.sdk.create(agentOptions);
      if (agent.agentId !== context.previousSessionId) await context.saveSessionId(agent.agentId).catch((error: unknown) => log('cursor: saving the agent id failed', error));
      const line = await nextRelayModeLine(scope.dirs.configDir, relayMode, LINE_MODES);
      // The system prompt opens a new agent only (a resumed one has it in its conversation).
      const message = [line, fresh ? context.systemPrompt : null, context.prompt].filter((part): part is string => Boolean(part?.trim())).join('\n\n');
      if (context.signal.aborted) return cancelledResult();
      // HAR-4: the mode's output verb, when it is on the surface. Delivered is what the host's MCP
      // server recorded executing (outputVerbDelivered), never Cursor's report of the call.
      const contract = buildCompletionContract(getCapabilityProfile(context.mode));
      const verb = contract && context.surfacedTools.some((tool) => tool.name === contract.outputVerb) ? contract.outputVerb : null;
      const state: TurnState = { relayMode, verb, verbReported: false, planShown: false, usage: emptyUsage(), finalText: '' };
      let ended = await this.follow(context, await agent.send(message, { mode: agentOptions.mode! }), state, log);
      // A turn that ended without the output verb gets the contract's reminder as a new message (twice at most).
      for (let attempt = 1; contract && verb && ended === null && !outputVerbDelivered(context) && attempt <= MAX_REMINDERS; attempt += 1) {
        const reminder = `${contract.reminder}\n\n(In this runner the tool is \`${verb}\` of the ${CONTROL_CENTER_MCP_SERVER} MCP server.)`;
        context.emit({ type: 'reminder_injected', text: reminder, attempt });
        ended = await this.follow(context, await agent.send(reminder, { mode: agentOptions.mode! }), state, log);
      }
      return ended ?? { outcome: 'completed', error: null, deliverableFailed: Boolean(verb && !outputVerbDelivered(context)), usage: state.usage, costUsd: null, finalText: state.finalText };
    } finally {
      turnEnded.abort();
      agent?.close();
      commands.release();
    }
  }

  /**
   * Reads one SDK run to its end, translating its messages into run events and enforcing the
   * surface: null when it finished (the caller decides about reminders), else the turn's result.
   */
  private async follow(context: TransportRunContext, run: Run, state: TurnState, log: (message: string, detail?: unknown) => void): Promise<TransportResult | null> {
    const { relayMode, usage } = state;
    const texts: string[] = [];
    const open = new Map<string, { call: ToolCallBlock; started: number; verb: boolean }>();
    let offSurface: string | null = null;
    const showPlan = (plan: string, source: 'native' | 'answer') => {
      if (state.planShown || !plan.trim()) return;
      state.planShown = true;
      context.emit({ type: 'plan_ready', plan, source });
    };
    const cancel = () => void run.cancel().catch((error: unknown) => log('cursor: cancelling the run failed', error));
    context.signal.addEventListener('abort', cancel, { once: true });
    const handle = (message: SDKMessage) => {
      switch (message.type) {
        case 'assistant':
          for (const block of message.message.content) {
            if (block.type !== 'text' || !block.text) continue;
            texts.push(block.text);
            context.emit({ type: 'text_delta', text: block.text });
          }
          return;
        case 'thinking':
          if (message.text) context.emit({ type: 'thinking_delta', text: message.text });
          return;
        case 'tool_call': {
          const input = typeof message.args === 'object' && message.args !== null ? (message.args as Json) : {};
          const call: ToolCallBlock = { type: 'tool_call', id: message.call_id, name: message.name, input };
          if (!open.has(message.call_id) && message.status === 'running') {
            const verbCall = state.verb !== null && message.name === 'mcp' && input.providerIdentifier === CONTROL_CENTER_MCP_SERVER && input.toolName === state.verb;
            open.set(message.call_id, { call, started: Date.now(), verb: verbCall });
            context.emit({ type: 'tool_call_start', call });
            const reason = offSurfaceReason({ name: message.name, args: message.args }, relayMode);
            if (reason && offSurface === null) {
              // RLY-7: the SDK reports a call as it starts; the host cannot stop that one call, so it stops the turn.
              offSurface = reason;
              context.emit({ type: 'protocol_error', source: 'cursor', message: `Cancelled by the host: ${reason}.` });
              cancel();
            }
            if (message.name === 'createPlan' && relayMode === 'plan' && typeof input.plan === 'string') showPlan(input.plan, 'native');
            return;
          }
          if (message.status === 'running') return;
          const started = open.get(message.call_id) ?? { call, started: Date.now(), verb: false };
          open.delete(message.call_id);
          if (started.verb && message.status === 'completed' && !state.verbReported) {
            state.verbReported = true;
            context.emit({ type: 'output_verb_delivered', toolName: state.verb! });
          }
          const content = typeof message.result === 'string' ? message.result : JSON.stringify(message.result ?? null);
          context.emit({ type: 'tool_call_end', call: started.call, result: { content, isError: message.status === 'error', details: { observedIn: 'cursor' } }, executed: true, durationMs: Date.now() - started.started });
          return;
        }
        case 'usage':
          usage.inputTokens += Number(message.usage.inputTokens ?? 0);
          usage.outputTokens += Number(message.usage.outputTokens ?? 0);
          usage.cacheReadTokens += Number(message.usage.cacheReadTokens ?? 0);
          usage.cacheWriteTokens += Number(message.usage.cacheWriteTokens ?? 0);
          return;
        default:
          return;
      }
    };
    let crash: string | null = null;
    let status: string | null = null;
    let sdkError: string | null = null;
    try {
      for await (const message of run.stream()) handle(message);
      const ended = await run.wait();
      status = ended.status;
      sdkError = ended.error?.message ?? null;
    } catch (error) {
      crash = error instanceof Error ? error.message : String(error);
    } finally {
      context.signal.removeEventListener('abort', cancel);
    }
    for (const started of open.values()) {
      context.emit({ type: 'tool_call_end', call: started.call, result: { content: 'The turn ended before this call reported a result.', isError: true, details: { observedIn: 'cursor' } }, executed: false, durationMs: 0 });
    }
    const finalText = texts.join('');
    if (finalText.trim()) state.finalText = finalText;
    if (offSurface) return failed(`Cancelled by the host: ${offSurface}. The SDK reports a tool call as it starts, so that call may have run before the turn was stopped.`, finalText, usage);
    if (context.signal.aborted) return { outcome: 'cancelled', error: null, deliverableFailed: false, usage, costUsd: null, finalText };
    if (crash !== null) return failed(`The Cursor SDK failed during the turn: ${crash}`, finalText, usage);
    if (status !== 'finished') return failed(`The Cursor run ended ${status ?? 'without a status'}${sdkError ? `: ${sdkError}` : ''}`, finalText, usage);
    // RLY-5 fallback (before a reminder replaces the answer): a plan turn without Cursor's createPlan whose answer reads like a plan.
    if (relayMode === 'plan' && looksLikePlan(finalText)) showPlan(finalText, 'answer');
    return null;
  }
}
