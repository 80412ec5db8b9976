import { dirname, isAbsolute } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import { relayModeOf } from '../../core/relay/relay-mode.js';
import { nextRelayModeLine } from '../last-relay-mode.js';
import { gateFailingClosed, type TransportAction } from '../../core/transport-gate.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { PROVIDERS } from '../../llm/model-catalog.js';
import { modelProxyBaseUrl } from '../../llm/model-proxy-url.js';
import type { ToolCallBlock } from '../../llm/model-types.js';
import { runnerEnvironment } from '../../sandbox/runner-environment.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import { NodeWorktree } from '../../worktree/node-worktree.js';
import type { Agent } from '../../schemas/agent.js';
import type { AgentTransport, TransportResult, TransportRunContext } from '../agent-transport.js';
import { looksLikePlan } from '../claude-agent-sdk/claude-agent-sdk-transport.js';
import { signalProcessTree } from '../claude-code/process-tree.js';
import { emptyUsage, killTreeAfterGrace, outputVerbDelivered, RunnerSandboxChoice, spawnRunnerProcess, withRunnerLaunch, type RunnerTransportOptions, type RunnerTurnInput } from '../runner-setup.js';
import { ACP_ADAPTER_ID, ACP_CAPABILITIES, ACP_SKILLS_FOLDERS } from './acp-capabilities.js';
import { acpCommandFor, resolveAgentAcpCommand, type AcpAgentCommands } from './acp-command.js';
import { acpModeFor, relayModesByLine, type AcpSessionMode } from './acp-modes.js';
import { classifyPermission, permissionOutcome, type AcpPermissionOption } from './acp-permission.js';

export { ACP_ADAPTER_ID } from './acp-capabilities.js';

/** The provider's base URL and key variables, pointing at the model proxy with the run token. */
function brokeredModelVariables(provider: 'anthropic' | 'openai', serverUrl: string, token: string): Record<string, string> {
  const variables = provider === 'openai' ? { baseUrl: 'OPENAI_BASE_URL', apiKey: 'OPENAI_API_KEY' } : { baseUrl: 'ANTHROPIC_BASE_URL', apiKey: 'ANTHROPIC_API_KEY' };
  return { [variables.baseUrl]: modelProxyBaseUrl(serverUrl, provider), [variables.apiKey]: token };
}

export interface AcpTransportOptions extends RunnerTransportOptions {
  /** ACP commands by agent name (`*` for every other agent); absent: `CONTROL_CENTER_ACP_AGENTS` from the server's environment. */
  commands?: AcpAgentCommands;
  /** Paths the agent program needs to see read-only inside the sandbox (its install directory). */
  programPaths?: string[];
}

type Json = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Reminders before a run that never delivered its output verb is flagged (the other transports' number). */
const MAX_REMINDERS = 2;

/** Whether a reported tool name is `tool` itself or an MCP-prefixed form of it (`mcp__control-center__x`, `control-center.x`, `x (MCP)`). */
function namesTool(name: string, tool: string): boolean {
  const bare = name.trim().replace(/\s*\(MCP\)$/i, '');
  return bare === tool || bare.endsWith(`__${tool}`) || bare.endsWith(`.${tool}`) || bare.endsWith(`/${tool}`);
}


/** The text of an ACP content block (text blocks only; others are named). */
function contentText(content: unknown): string {
  const block = (content ?? {}) as Json;
  if (block.type === 'text') return text(block.text);
  return block.type ? `[${text(block.type)}]` : '';
}

/** An ACP plan update rendered as a numbered list (the board shows it as the plan). */
function planText(entries: unknown): string {
  const list = Array.isArray(entries) ? (entries as Json[]) : [];
  return list.map((entry, index) => `${index + 1}. ${text(entry.content)}`).join('\n');
}

/**
 * Runs agents on any Agent Client Protocol agent (RLY-7) over stdio through the ACP SDK's client
 * connection: one agent process per turn (`initialize`, `session/load` of the conversation's session
 * when the agent can load one, else `session/new`, then `session/prompt`), the conversation's
 * worktree as cwd, the Control Center MCP server as the session's MCP server, inside the host's OS
 * sandbox (SBX-1). Every request the agent may send is answered, so no turn waits on the host:
 * `session/request_permission` by the policy gate (POL-1, fail closed POL-4), `fs/*` through the
 * worktree's confined file access (writes also through the gate, refused in read-only modes),
 * `terminal/*` refused, anything else a JSON-RPC "method not found".
 * Relay modes go through `session/set_mode` when the agent advertises a fitting mode, else as the
 * RLY-8 `[Relay mode: …]` line on the message that changes the mode.
 */
export class AcpTransport implements AgentTransport {
  readonly id = ACP_ADAPTER_ID;
  readonly capabilities = ACP_CAPABILITIES;
  /**
   * SKL-5: ACP's `session/new` has no skills option, so the scanned set goes where ACP agents look on
   * their own: the checkout's `.agents/skills/` (the Agent Skills folder) and `.claude/skills/`
   * (Claude-based agents such as claude-agent-acp), written by the prepare stage.
   */
  readonly worktreeSkillsFolders = ACP_SKILLS_FOLDERS;
  private readonly sandboxChoice: RunnerSandboxChoice;

  constructor(private readonly options: AcpTransportOptions) {
    this.sandboxChoice = new RunnerSandboxChoice(options.sandbox);
  }

  /** TRUTH-4: an ACP agent may call no model through the proxy at all (it can bring its own). */
  readonly modelProviderOptional = true;

  /**
   * SEC-8: an ACP agent could speak to either model API, but its run token spends one provider: OpenAI
   * when the agent's model is one of the catalog's OpenAI models, else Anthropic (claude-agent-acp,
   * the common case). Only that provider's base URL and key variables are set for the agent.
   */
  modelProvider(agent: Agent): 'anthropic' | 'openai' {
    return PROVIDERS.openai.models.some((model) => model.id === agent.modelId) ? 'openai' : 'anthropic';
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const log = this.options.log ?? (() => undefined);
    // MODE-2, RLY-9: fixed at turn start; each turn is a fresh agent process, so a change applies next turn.
    const relayMode = relayModeOf(context.mode, context.autonomy);
    return withRunnerLaunch(
      { context, transport: this.options, sandboxChoice: this.sandboxChoice, runner: 'acp', runnerName: 'ACP agent', startFailure: 'The ACP agent could not start', log },
      async ({ dirs, session, readOnly, sandboxed }) => {
        // The agent's own command (set by an operator on the agent) wins over the server's table.
        const program = context.agent.acpCommand
          ? resolveAgentAcpCommand(context.agent.acpCommand)
          : { ...acpCommandFor(context.agent.name, this.options.commands, context.env), readOnlyPaths: [] as string[] };
        const remotes = context.checkout?.pushRemotes ?? [];
        const env = runnerEnvironment({
          source: context.env,
          home: dirs.home,
          // SEC-6: an ACP agent that calls a model reaches it through the model proxy with the run token.
          brokered: brokeredModelVariables(this.modelProvider(context.agent), context.serverUrl, context.mcp.token),
          extra: withSandboxGitConfig(gitPushEnvironment(context.serverUrl, context.mcp.token, remotes), { privateHome: true }),
        });
        const launched = await sandboxed({
          command: program.command,
          args: program.args,
          readOnlyPaths: [...new Set([...(isAbsolute(program.command) ? [dirname(program.command)] : []), ...program.readOnlyPaths, ...(this.options.programPaths ?? [])])],
        });
        return this.execute({ context, command: launched.command, args: launched.args, env, readOnly, relayMode, configDir: dirs.configDir, log, session });
      },
    );
  }

  private async execute(input: RunnerTurnInput & { configDir: string }): Promise<TransportResult> {
    const { context, log, readOnly } = input;
    const usage = emptyUsage();
    const { child, exited, stderrTail } = spawnRunnerProcess(input.command, input.args, { cwd: context.worktreePath, env: input.env, onSpawn: this.options.onSpawn });

    const worktree = new NodeWorktree(context.worktreePath);
    const calls = new Map<string, { call: ToolCallBlock; started: number }>();
    let finalText = '';
    let planEntries = '';
    let planShown = false;
    const requestSignal = AbortSignal.any([context.signal, input.session.signal]);
    // HAR-4: the mode's output verb, when it is on the surface. Delivered is what the host's MCP server
    // recorded (outputVerbDelivered); the agent's report of a completed call of it (the MCP tool's name,
    // however the agent prefixes it) only names the event.
    const contract = buildCompletionContract(getCapabilityProfile(context.mode));
    const verb = contract && context.surfacedTools.some((tool) => tool.name === contract.outputVerb) ? contract.outputVerb : null;
    let verbReported = false;
    const productTools = context.surfacedTools.map((tool) => tool.name);

    // Each decision is kept on the run's session like a hook decision (the tool-call id stands in for the tool-use id).
    const gate = async (action: TransportAction, toolCallId: string): Promise<boolean> => {
      const result = await gateFailingClosed(() => context.gate(action, requestSignal), []);
      input.session.decisions.push({ source: 'hook', toolUseId: toolCallId || null, toolName: action.toolName, action, allow: result.allow, result, at: new Date().toISOString() });
      return result.allow;
    };
    const showPlan = (plan: string, source: 'native' | 'answer') => {
      if (planShown || !plan.trim()) return;
      planShown = true;
      context.emit({ type: 'plan_ready', plan, source });
    };

    const requestPermission = async (params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> => {
      const toolCall = (params.toolCall ?? {}) as unknown as Json;
      const options = (params.options ?? []) as unknown as AcpPermissionOption[];
      const id = text(toolCall.toolCallId);
      // A plan-exit request (Claude's ExitPlanMode arrives as `switch_mode`) is the native plan
      // signal in a read-only mode: show the board and keep the agent planning (RLY-5).
      if (text(toolCall.kind) === 'switch_mode' && readOnly) {
        const raw = (toolCall.rawInput ?? {}) as Json;
        showPlan(text(raw.plan) || planEntries || finalText, 'native');
        return { outcome: permissionOutcome(options, false) };
      }
      const ask = classifyPermission(toolCall, readOnly, productTools);
      let allow = ask.kind === 'read' || ask.kind === 'productTool';
      if (ask.kind === 'gate') {
        allow = true;
        for (const action of ask.actions) if (!(await gate(action, id))) allow = false;
      } else if (ask.kind === 'refuse') log(`acp: permission refused without asking (${ask.reason})`, toolCall.title);
      return { outcome: permissionOutcome(options, allow) };
    };

    const sessionUpdate = (params: acp.SessionNotification) => {
      const update = params.update as unknown as Json;
      switch (update.sessionUpdate) {
        case 'agent_message_chunk': {
          const chunk = contentText(update.content);
          finalText += chunk;
          context.emit({ type: 'text_delta', text: chunk });
          return;
        }
        case 'agent_thought_chunk':
          context.emit({ type: 'thinking_delta', text: contentText(update.content) });
          return;
        case 'tool_call': {
          const id = text(update.toolCallId);
          const call: ToolCallBlock = { type: 'tool_call', id, name: text(update.title) || text(update.kind) || 'tool', input: (update.rawInput ?? {}) as Record<string, unknown> };
          calls.set(id, { call, started: Date.now() });
          context.emit({ type: 'tool_call_start', call });
          if (update.status === 'completed' || update.status === 'failed') finishCall(id, update);
          return;
        }
        case 'tool_call_update':
          if (update.status === 'completed' || update.status === 'failed') finishCall(text(update.toolCallId), update);
          return;
        case 'plan':
          planEntries = planText(update.entries);
          return;
        default:
          return;
      }
    };

    const readTextFile = async (params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> => {
      // HAR-7, SEC-4: the agent reads through the same confinement as the file tools.
      const content = await worktree.readFile(params.path).catch((error: unknown) => {
        throw acp.RequestError.invalidParams(undefined, `path: ${error instanceof Error ? error.message : String(error)}`);
      });
      if (params.line == null && params.limit == null) return { content };
      const lines = content.split('\n');
      const start = Math.max(0, (params.line ?? 1) - 1);
      return { content: lines.slice(start, params.limit == null ? undefined : start + params.limit).join('\n') };
    };

    const writeTextFile = async (params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> => {
      // MODE-2: no write in a read-only mode, whatever the policy would allow; else the gate, then the confined write.
      if (readOnly) throw acp.RequestError.invalidParams(undefined, 'path: this relay mode is read-only; the Control Center refused the write');
      if (!(await gate({ kind: 'fileWrite', path: params.path, toolName: 'fs/write_text_file' }, ''))) throw acp.RequestError.invalidParams(undefined, 'path: the Control Center policy denied this write');
      await worktree.writeFile(params.path, params.content).catch((error: unknown) => {
        throw acp.RequestError.invalidParams(undefined, `path: ${error instanceof Error ? error.message : String(error)}`);
      });
      return {};
    };

    const finishCall = (id: string, update: Json) => {
      const started = calls.get(id);
      if (!started) return;
      calls.delete(id);
      if (verb && !verbReported && update.status === 'completed' && namesTool(started.call.name, verb)) {
        verbReported = true;
        context.emit({ type: 'output_verb_delivered', toolName: verb });
      }
      const content = Array.isArray(update.content) ? (update.content as Json[]).map((entry) => contentText(entry.content)).join('\n') : '';
      context.emit({
        type: 'tool_call_end',
        call: started.call,
        result: { content: content || text(update.status), isError: update.status !== 'completed', details: { observedIn: 'acp', status: update.status } },
        executed: update.status === 'completed',
        durationMs: Date.now() - started.started,
      });
    };

    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const connection = acp
      .client({ name: 'control-center' })
      .onRequest('session/request_permission', ({ params }) => requestPermission(params))
      .onRequest('fs/read_text_file', ({ params }) => readTextFile(params))
      .onRequest('fs/write_text_file', ({ params }) => writeTextFile(params))
      .onNotification('session/update', ({ params }) => sessionUpdate(params))
      // Terminals are not offered (clientCapabilities.terminal is false) and this host grants nothing
      // else: every other request (terminal/*, elicitations, extensions) is "method not found", answered
      // at once so the agent's turn never waits on the host (fail closed).
      .onRequest('*', ({ method }) => {
        throw acp.RequestError.methodNotFound(method);
      })
      .connect(stream);
    const agent = connection.agent;
    let cancelled = false;
    let sessionId: string | null = null;
    const onAbort = () => {
      cancelled = true;
      if (sessionId) void agent.notify('session/cancel', { sessionId }).catch(() => undefined);
      killTreeAfterGrace(child.pid, this.options.killGraceMs);
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    // Process death is detected however the turn stands: every pending request fails with it.
    const died = exited.then((exit) => {
      throw new Error(`the ACP agent exited (${exit.error?.message ?? (exit.signal ? exit.signal : `code ${exit.code}`)})`);
    });
    died.catch(() => undefined);
    const orDeath = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, died]);

    let failure: string | null = null;
    let stopReason: string | null = null;
    try {
      const init = await orDeath(
        agent.request('initialize', {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        }),
      );
      const mcpServers: acp.McpServer[] = init.agentCapabilities?.mcpCapabilities?.http
        ? [{ type: 'http', name: 'control-center', url: context.mcp.url, headers: [{ name: 'Authorization', value: `Bearer ${context.mcp.token}` }] }]
        : [];
      if (mcpServers.length === 0) log('acp: the agent does not take HTTP MCP servers; product tools are not offered');
      let modes: AcpSessionMode[] = [];
      if (context.previousSessionId && init.agentCapabilities?.loadSession) {
        const loaded = await orDeath(agent.request('session/load', { sessionId: context.previousSessionId, cwd: context.worktreePath, mcpServers })).catch((error: unknown) => {
          log('acp: loading the session failed, starting a new one', error);
          return null;
        });
        if (loaded) {
          sessionId = context.previousSessionId;
          modes = (loaded.modes?.availableModes ?? []) as AcpSessionMode[];
        }
      }
      // The system prompt opens a new session only (a loaded one has it already).
      const fresh = !sessionId;
      if (!sessionId) {
        const created = await orDeath(agent.request('session/new', { cwd: context.worktreePath, mcpServers }));
        sessionId = created.sessionId;
        modes = (created.modes?.availableModes ?? []) as AcpSessionMode[];
        await context.saveSessionId(sessionId).catch((error: unknown) => log('acp: saving the session id failed', error));
      }
      // RLY-7: the agent's own mode when it has one that fits; RLY-8: else the line, only on a change.
      const native = acpModeFor(input.relayMode, modes);
      if (native) await orDeath(agent.request('session/set_mode', { sessionId, modeId: native }));
      const line = await nextRelayModeLine(input.configDir, input.relayMode, relayModesByLine(modes));
      const prompt = [line, fresh ? context.systemPrompt : null, context.prompt].filter((part): part is string => Boolean(part && part.trim())).join('\n\n');
      if (context.signal.aborted) onAbort();
      const promptTurn = async (body: string) => {
        const result = await orDeath(agent.request('session/prompt', { sessionId: sessionId!, prompt: [{ type: 'text', text: body }] }));
        stopReason = result.stopReason;
        const reported = (result as unknown as { usage?: Json }).usage;
        if (reported) {
          usage.inputTokens += Number(reported.inputTokens ?? 0);
          usage.outputTokens += Number(reported.outputTokens ?? 0);
          usage.cacheReadTokens += Number(reported.cachedReadTokens ?? 0);
          usage.cacheWriteTokens += Number(reported.cachedWriteTokens ?? 0);
        }
        // RLY-5: the agent's own plan (a plan update) in a read-only turn, else a plan-like answer
        // (checked before a reminder turn replaces the answer).
        if (readOnly && stopReason === 'end_turn') {
          if (planEntries) showPlan(planEntries, 'native');
          else if (looksLikePlan(finalText)) showPlan(finalText, 'answer');
        }
      };
      await promptTurn(prompt);
      // HAR-4: a turn that ended without the output verb gets the contract's reminder as another prompt.
      for (let attempt = 1; contract && verb && !outputVerbDelivered(context) && !cancelled && attempt <= MAX_REMINDERS && stopReason === 'end_turn'; attempt += 1) {
        const reminder = `${contract.reminder}\n\n(In this runner the tool is the \`${verb}\` tool of the control-center MCP server.)`;
        context.emit({ type: 'reminder_injected', text: reminder, attempt });
        finalText = '';
        await promptTurn(reminder);
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    } finally {
      context.signal.removeEventListener('abort', onAbort);
      connection.close();
      child.stdin.end();
    }
    const exit = await Promise.race([exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 3_000).unref())]);
    if (child.pid !== undefined) await signalProcessTree(child.pid, 'SIGKILL', []);
    for (const started of calls.values()) {
      context.emit({ type: 'tool_call_end', call: started.call, result: { content: 'The agent ended before this call reported a result.', isError: true, details: { observedIn: 'acp' } }, executed: false, durationMs: 0 });
    }
    if (cancelled || stopReason === 'cancelled') return { outcome: 'cancelled', error: null, deliverableFailed: false, usage, costUsd: null, finalText };
    if (failure || stopReason === null) {
      const stderr = stderrTail().trim();
      const how = exit ? `exit ${exit.error?.message ?? exit.signal ?? exit.code}` : 'still running';
      return { outcome: 'failed', error: `The ACP agent ended without finishing the turn (${how})${failure ? `: ${failure}` : ''}${stderr ? ` — ${stderr.slice(-1_000)}` : ''}`, deliverableFailed: false, usage, costUsd: null, finalText };
    }
    if (stopReason === 'refusal') return { outcome: 'failed', error: 'The ACP agent refused the turn', deliverableFailed: false, usage, costUsd: null, finalText };
    return { outcome: 'completed', error: null, deliverableFailed: Boolean(verb && !outputVerbDelivered(context)), usage, costUsd: null, finalText };
  }
}
