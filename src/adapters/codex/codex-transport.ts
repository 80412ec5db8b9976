import { existsSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import { relayModeOf, type RelayMode } from '../../core/relay/relay-mode.js';
import { gateFailingClosed, type TransportAction } from '../../core/transport-gate.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { modelProxyBaseUrl } from '../../llm/model-proxy-url.js';
import type { ToolCallBlock } from '../../llm/model-types.js';
import { runnerEnvironment } from '../../sandbox/runner-environment.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import type { AgentTransport, TransportResult, TransportRunContext } from '../agent-transport.js';
import { looksLikePlan, type AskUser } from '../claude-agent-sdk/claude-agent-sdk-transport.js';
import { signalProcessTree } from '../claude-code/process-tree.js';
import { emptyUsage, killTreeAfterGrace, outputVerbDelivered, RunnerSandboxChoice, spawnRunnerProcess, withRunnerLaunch, type RunnerTransportOptions, type RunnerTurnInput } from '../runner-setup.js';
import { runSkillsPluginDir, type SkillsTarget } from '../skills-target.js';
import { resolveCodexBinary } from './codex-binary.js';
import { CODEX_ADAPTER_ID, CODEX_CAPABILITIES } from './codex-capabilities.js';
import { codexConfigToml, CODEX_TOKEN_VARIABLE } from './codex-config.js';
import { confineCodexSkills } from './codex-skills.js';
import { JsonRpcError, JsonRpcStdio, METHOD_NOT_FOUND } from './json-rpc-stdio.js';

export { CODEX_ADAPTER_ID } from './codex-capabilities.js';

/** The model a Codex agent runs when it names none. */
const DEFAULT_CODEX_MODEL = 'gpt-5.4';
/** Reminders before a run that never delivered its output verb is flagged (the other transports' number). */
const MAX_REMINDERS = 2;

export interface CodexTransportOptions extends RunnerTransportOptions {
  /** Question cards (RLY-4) for Codex's `request_user_input`. */
  askUser: AskUser;
}

/** RLY-7 for Codex: plan → Codex's `plan` collaboration mode; ask and autopilot → developer sentences; agent → nothing. */
function relaySentences(mode: RelayMode): string {
  if (mode === 'ask') return 'Relay mode Ask: before you change files, run commands with side effects or contact other systems, ask the user with the request_user_input tool and wait for the answer.';
  if (mode === 'autopilot') return 'Relay mode Autopilot: work through the task without stopping for confirmation; ask the user (request_user_input) only when you really must.';
  return '';
}

type Json = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The questions of a `item/tool/requestUserInput` request, with their ids (answers are keyed by id). */
function userInputQuestions(params: Json): Array<{ id: string; question: string; options?: string[] }> {
  const raw = Array.isArray(params.questions) ? (params.questions as Json[]) : [];
  return raw
    .filter((entry) => typeof entry === 'object' && entry !== null && typeof entry.id === 'string' && text(entry.question))
    .map((entry) => {
      const options = Array.isArray(entry.options) ? (entry.options as Json[]).map((option) => text(option?.label)).filter((label) => label) : [];
      return { id: String(entry.id), question: text(entry.question), ...(options.length > 0 ? { options } : {}) };
    });
}

/**
 * Runs agents on OpenAI Codex through `codex app-server` (JSON-RPC over stdio, RLY-7), one app-server
 * process per turn resuming the conversation's thread, inside the host's OS sandbox (SBX-1), with a
 * server-owned `CODEX_HOME` whose config names the model proxy as the only model provider (SEC-6).
 * Codex's commands run in its own read-only sandbox; every escape from it and every patch arrives as
 * an approval request the policy gate answers (POL-1, fail closed POL-4); `request_user_input` is a
 * question card (RLY-4); a `plan` item is a Plan ready board (RLY-5). Every request Codex sends is
 * answered (unknown ones with a JSON-RPC error) so a turn never waits on the host.
 */
export class CodexTransport implements AgentTransport {
  readonly id = CODEX_ADAPTER_ID;
  readonly capabilities = CODEX_CAPABILITIES;
  private readonly sandboxChoice: RunnerSandboxChoice;

  constructor(private readonly options: CodexTransportOptions) {
    this.sandboxChoice = new RunnerSandboxChoice(options.sandbox);
  }

  /** SKL-5: the scanned skills as bare folders in the run's own folder, Codex's only extra skills root. */
  skillsTarget(run: { workspaceDir: string; runId: string }): SkillsTarget {
    return { dir: runSkillsPluginDir(run.workspaceDir, 'codex', run.runId), layout: 'skillFolders' };
  }

  /** SEC-8: the provider the runner is pointed at through the model proxy; its run token spends no other. */
  modelProvider() {
    return 'openai' as const;
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const log = this.options.log ?? (() => undefined);
    // MODE-2, RLY-9: fixed at turn start; each turn is a fresh app-server, so a change applies next turn.
    const relayMode = relayModeOf(context.mode, context.autonomy);
    return withRunnerLaunch(
      { context, transport: this.options, sandboxChoice: this.sandboxChoice, runner: 'codex', runnerName: 'Codex', extraDirs: ['bin'], startFailure: 'The Codex runner could not start', log },
      async ({ dirs, session, readOnly, sandboxed }) => {
        const { home, configDir } = dirs;
        const binDir = dirs.extra[0]!;
        const codex = resolveCodexBinary(context.env);
        // Codex's own sandbox re-executes the binary as `codex-linux-sandbox`; the alias lives in a
        // server-owned directory (Codex refuses to make it under a temporary directory itself).
        await symlink(codex.binary, join(binDir, 'codex-linux-sandbox')).catch(() => undefined);
        const model = context.agent.modelId ?? DEFAULT_CODEX_MODEL;
        await mkdir(configDir, { recursive: true, mode: 0o700 });
        // SEC-8: the proxy decides Codex's web_search (a provider-side search) on every request; off when refused.
        const webSearch = (await context.providerToolAllowed?.({ field: 'tools[].type "web_search"', what: 'web search', effects: ['networkEgress'] })) ?? true;
        await writeFile(join(configDir, 'config.toml'), codexConfigToml({ model, effort: context.agent.effort, modelBaseUrl: modelProxyBaseUrl(context.serverUrl, this.modelProvider()), mcpUrl: context.mcp.url, webSearch }), { mode: 0o600 });
        const remotes = context.checkout?.pushRemotes ?? [];
        const env = runnerEnvironment({
          source: context.env,
          home,
          passThrough: [],
          // SEC-6: the model proxy's run token, never a real key; the same token opens the MCP server.
          brokered: { [CODEX_TOKEN_VARIABLE]: context.mcp.token },
          extra: {
            CODEX_HOME: configDir,
            PATH: [binDir, codex.pathDir, context.env.PATH ?? process.env.PATH ?? '/usr/bin:/bin'].filter(Boolean).join(':'),
            ...withSandboxGitConfig(gitPushEnvironment(context.serverUrl, context.mcp.token, remotes), { privateHome: true }),
          },
        });
        const skillsRoot = this.skillsTarget(context).dir;
        const program = await sandboxed({ command: codex.binary, args: ['app-server', '--listen', 'stdio://'], readOnlyPaths: [binDir, codex.packageDir, dirname(codex.binary), ...(existsSync(skillsRoot) ? [skillsRoot] : [])] });
        return this.execute({ context, command: program.command, args: program.args, env, readOnly, relayMode, model, log, session, skillsRoot });
      },
    );
  }

  private async execute(
    input: RunnerTurnInput & {
      model: string;
      /** The run's materialized scanned skills (SKL-5); the only skills Codex may offer. */
      skillsRoot: string;
    },
  ): Promise<TransportResult> {
    const { context, log, readOnly } = input;
    const usage = emptyUsage();
    const protocolError = (message: string, line?: string) => {
      log(`codex: ${message}`, line);
      context.emit({ type: 'protocol_error', source: 'codex', message, ...(line !== undefined ? { line } : {}) });
    };
    const { child, exited, stderrTail } = spawnRunnerProcess(input.command, input.args, { cwd: context.worktreePath, env: input.env, onSpawn: this.options.onSpawn });

    // Items Codex started this turn: commands and patches, by id (an approval request names only the id).
    const items = new Map<string, { call: ToolCallBlock; started: number; changes: string[] }>();
    let finalText = '';
    let planShown = false;
    let turnDone: { status: string; error: string | null } | null = null;
    let resolveTurn: () => void = () => undefined;
    // HAR-4: the mode's output verb, when it is on the surface. Delivered is what the host's MCP server
    // recorded (outputVerbDelivered); Codex's completed MCP item of it only names the event.
    const contract = buildCompletionContract(getCapabilityProfile(context.mode));
    const verb = contract && context.surfacedTools.some((tool) => tool.name === contract.outputVerb) ? contract.outputVerb : null;
    let verbReported = false;
    const requestSignal = AbortSignal.any([context.signal, input.session.signal]);

    // Each decision is kept on the run's session like a hook decision: Codex's approval request is
    // its pre-execution hook (the item id stands in for the tool-use id).
    const gate = async (action: TransportAction, itemId: string): Promise<boolean> => {
      const result = await gateFailingClosed(() => context.gate(action, requestSignal), []);
      input.session.decisions.push({ source: 'hook', toolUseId: itemId || null, toolName: action.toolName, action, allow: result.allow, result, at: new Date().toISOString() });
      return result.allow;
    };

    const handleRequest = async (method: string, params: Json): Promise<unknown> => {
      switch (method) {
        case 'item/commandExecution/requestApproval': {
          const command = text(params.command) || text(items.get(text(params.itemId))?.call.input.command);
          // POL-1: the policy engine (and the operator, where it asks) decides; the read-only mount of
          // a plan turn's worktree stops a write even when it is allowed.
          const allow = command ? await gate({ kind: 'command', command, toolName: 'exec_command' }, text(params.itemId)) : false;
          return { decision: allow ? 'accept' : 'decline' };
        }
        case 'item/fileChange/requestApproval': {
          const paths = items.get(text(params.itemId))?.changes ?? [];
          // Read-only modes never write, whatever the policy would allow (MODE-2).
          if (readOnly || paths.length === 0) return { decision: 'decline' };
          for (const path of paths) if (!(await gate({ kind: 'fileWrite', path, toolName: 'apply_patch' }, text(params.itemId)))) return { decision: 'decline' };
          return { decision: 'accept' };
        }
        case 'item/tool/requestUserInput': {
          const questions = userInputQuestions(params);
          if (questions.length === 0 || !context.conversationId) return { answers: {} };
          const answers = await this.options.askUser(
            { workspaceId: context.workspaceId, runId: context.runId, agentId: context.agent.id, conversationId: context.conversationId, questions: questions.map(({ question, options }) => (options ? { question, options } : { question })) },
            requestSignal,
          );
          return { answers: Object.fromEntries(questions.map((question, index) => [question.id, { answers: [answers[index] ?? ''] }])) };
        }
        default:
          // Elicitations, permission grants, dynamic tools, auth refreshes, legacy approvals: this
          // host grants none of them; answering keeps the turn from waiting forever (fail closed).
          throw new JsonRpcError(METHOD_NOT_FOUND, `Control Center does not handle ${method}`);
      }
    };

    const handleNotification = (method: string, params: Json) => {
      const item = (typeof params.item === 'object' && params.item !== null ? params.item : {}) as Json;
      switch (method) {
        case 'item/agentMessage/delta':
          context.emit({ type: 'text_delta', text: text(params.delta) });
          return;
        case 'item/started': {
          const id = text(item.id);
          if (item.type === 'commandExecution') {
            const call: ToolCallBlock = { type: 'tool_call', id, name: 'exec_command', input: { command: text(item.command) } };
            items.set(id, { call, started: Date.now(), changes: [] });
            context.emit({ type: 'tool_call_start', call });
          } else if (item.type === 'fileChange') {
            const changes = Array.isArray(item.changes) ? (item.changes as Json[]).map((change) => text(change.path)).filter((path) => path) : [];
            const call: ToolCallBlock = { type: 'tool_call', id, name: 'apply_patch', input: { paths: changes } };
            items.set(id, { call, started: Date.now(), changes });
            context.emit({ type: 'tool_call_start', call });
          } else if (item.type === 'mcpToolCall') {
            const call: ToolCallBlock = { type: 'tool_call', id, name: `${text(item.server)}.${text(item.tool)}`, input: (item.arguments as Record<string, unknown>) ?? {} };
            items.set(id, { call, started: Date.now(), changes: [] });
            context.emit({ type: 'tool_call_start', call });
          }
          return;
        }
        case 'item/completed': {
          const id = text(item.id);
          if (item.type === 'agentMessage') {
            finalText = text(item.text);
            return;
          }
          if (item.type === 'plan') {
            // RLY-5: Codex's native plan signal.
            planShown = true;
            context.emit({ type: 'plan_ready', plan: text(item.text), source: 'native' });
            return;
          }
          const started = items.get(id);
          if (!started) return;
          const status = text(item.status);
          if (item.type === 'mcpToolCall' && verb && text(item.tool) === verb && status === 'completed' && !verbReported) {
            verbReported = true;
            context.emit({ type: 'output_verb_delivered', toolName: verb });
          }
          const executed = status !== 'declined';
          const output = item.type === 'commandExecution' ? text(item.aggregatedOutput) : status;
          context.emit({
            type: 'tool_call_end',
            call: started.call,
            result: { content: status === 'declined' ? 'Declined by the Control Center policy.' : output, isError: status !== 'completed', details: { observedIn: 'codex', status } },
            executed,
            durationMs: Date.now() - started.started,
          });
          items.delete(id);
          return;
        }
        case 'thread/tokenUsage/updated': {
          const total = ((params.tokenUsage as Json | undefined)?.total ?? {}) as Json;
          const cached = Number(total.cachedInputTokens ?? 0);
          usage.inputTokens = Number(total.inputTokens ?? 0) - cached;
          usage.cacheReadTokens = cached;
          usage.outputTokens = Number(total.outputTokens ?? 0);
          return;
        }
        case 'error': {
          const error = (params.error ?? {}) as Json;
          protocolError(`Codex reported an error${params.willRetry ? ' (retrying)' : ''}: ${text(error.message)}`);
          return;
        }
        case 'turn/completed': {
          const turn = (params.turn ?? {}) as Json;
          const error = (turn.error ?? null) as Json | null;
          turnDone = { status: text(turn.status), error: error ? text(error.message) : null };
          resolveTurn();
          return;
        }
        default:
          return;
      }
    };

    const rpc = new JsonRpcStdio(child.stdin, child.stdout, {
      notification: handleNotification,
      request: handleRequest,
      malformed: (line, error) => protocolError(`malformed app-server message: ${error}`, line),
    });
    let cancelled = false;
    let threadId: string | null = null;
    let turnId: string | null = null;
    const onAbort = () => {
      cancelled = true;
      if (threadId && turnId) void rpc.request('turn/interrupt', { threadId, turnId }).catch(() => undefined);
      killTreeAfterGrace(child.pid, this.options.killGraceMs);
      resolveTurn();
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    const died = exited.then((exit) => {
      rpc.close(new Error(`the Codex app-server exited (${exit.error?.message ?? exit.code ?? exit.signal})`));
      resolveTurn();
      return exit;
    });

    let failure: string | null = null;
    try {
      await rpc.request('initialize', { clientInfo: { name: 'control-center', title: 'Control Center', version: '1' }, capabilities: { experimentalApi: true, requestAttestation: false } });
      rpc.notify('initialized');
      const developerInstructions = [context.systemPrompt, relaySentences(input.relayMode)].filter((part) => part.trim()).join('\n\n');
      const confineSkills = () => confineCodexSkills(rpc, { cwd: context.worktreePath, root: input.skillsRoot });
      await confineSkills();
      const threadParams = { cwd: context.worktreePath, model: input.model, developerInstructions, approvalPolicy: 'on-request', sandbox: 'read-only' };
      let thread: Json | null = null;
      if (context.previousSessionId) {
        thread = await rpc.request<Json>('thread/resume', { threadId: context.previousSessionId, ...threadParams }).catch((error: unknown) => {
          log('codex: resuming the thread failed, starting a new one', error);
          return null;
        });
      }
      thread ??= await rpc.request<Json>('thread/start', threadParams);
      threadId = text((thread.thread as Json | undefined)?.id);
      if (threadId && threadId !== context.previousSessionId) await context.saveSessionId(threadId).catch((error: unknown) => log('codex: saving the thread id failed', error));
      const collaborationMode = { mode: input.relayMode === 'plan' ? 'plan' : 'default', settings: { model: input.model, reasoning_effort: context.agent.effort, developer_instructions: null } };
      const runTurn = async (prompt: string) => {
        turnDone = null;
        // SKL-5: again before every turn — a command of the previous turn may have written a SKILL.md.
        await confineSkills();
        const finished = new Promise<void>((resolve) => (resolveTurn = resolve));
        const started = await rpc.request<Json>('turn/start', { threadId, input: [{ type: 'text', text: prompt, text_elements: [] }], collaborationMode });
        turnId = text((started.turn as Json | undefined)?.id);
        if (context.signal.aborted) onAbort();
        await finished;
        // RLY-5 fallback: a read-only turn whose answer reads like a plan gets its board (once,
        // before any completion-contract reminder turn replaces the answer).
        if (readOnly && !planShown && (turnDone as { status: string } | null)?.status === 'completed' && looksLikePlan(finalText)) {
          planShown = true;
          context.emit({ type: 'plan_ready', plan: finalText, source: 'answer' });
        }
      };
      await runTurn(context.prompt);
      // HAR-4: a turn that ended without the output verb gets the contract's reminder as a new turn.
      for (let attempt = 1; contract && verb && !outputVerbDelivered(context) && !cancelled && attempt <= MAX_REMINDERS && (turnDone as { status: string } | null)?.status === 'completed'; attempt += 1) {
        const reminder = `${contract.reminder}\n\n(In this runner the tool is the \`${verb}\` tool of the control-center MCP server.)`;
        context.emit({ type: 'reminder_injected', text: reminder, attempt });
        await runTurn(reminder);
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    } finally {
      context.signal.removeEventListener('abort', onAbort);
      child.stdin.end();
    }
    const exit = await Promise.race([died, new Promise<null>((resolve) => setTimeout(() => resolve(null), 3_000).unref())]);
    if (child.pid !== undefined) await signalProcessTree(child.pid, 'SIGKILL', []);
    for (const started of items.values()) {
      context.emit({ type: 'tool_call_end', call: started.call, result: { content: 'The runner ended before this call reported a result.', isError: true, details: { observedIn: 'codex' } }, executed: false, durationMs: 0 });
    }
    if (cancelled) return { outcome: 'cancelled', error: null, deliverableFailed: false, usage, costUsd: null, finalText };
    const done = turnDone as { status: string; error: string | null } | null;
    if (!done || failure) {
      const stderr = stderrTail().trim();
      const how = exit ? `exit ${exit.error?.message ?? exit.code ?? exit.signal}` : 'still running';
      return { outcome: 'failed', error: `The Codex runner ended without finishing the turn (${how})${failure ? `: ${failure}` : ''}${stderr ? ` — ${stderr.slice(-1_000)}` : ''}`, deliverableFailed: false, usage, costUsd: null, finalText };
    }
    if (done.status !== 'completed') return { outcome: 'failed', error: `Codex ended the turn ${done.status}${done.error ? `: ${done.error}` : ''}`, deliverableFailed: false, usage, costUsd: null, finalText };
    return { outcome: 'completed', error: null, deliverableFailed: Boolean(verb && !outputVerbDelivered(context)), usage, costUsd: null, finalText };
  }
}
