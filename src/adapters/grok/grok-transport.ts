import { realpathSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import { relayModeOf, type RelayMode } from '../../core/relay/relay-mode.js';
import { relayModeLine } from '../../core/relay/relay-mode-line.js';
import { gitPushEnvironment } from '../../git/git-push-proxy.js';
import { modelProxyBaseUrl } from '../../llm/model-proxy-url.js';
import { runnerEnvironment } from '../../sandbox/runner-environment.js';
import { withSandboxGitConfig } from '../../sandbox/sandbox-git-environment.js';
import type { AgentTransport, TransportResult, TransportRunContext } from '../agent-transport.js';
import { looksLikePlan } from '../claude-agent-sdk/claude-agent-sdk-transport.js';
import { signalProcessTree } from '../claude-code/process-tree.js';
import { emptyUsage, killTreeAfterGrace, outputVerbDelivered, RunnerSandboxChoice, spawnRunnerProcess, withRunnerLaunch, type RunnerTransportOptions } from '../runner-setup.js';
import { GROK_ADAPTER_ID, GROK_CAPABILITIES } from './grok-capabilities.js';
import { GROK_MCP_BRIDGE_VARIABLES, GROK_MCP_SERVER_NAME, grokMcpBridgeSource, grokMcpSettings, grokMcpToolName, mcpSdkModuleUrls } from './grok-mcp-bridge.js';
import { GROK_MODEL_FAILURE_EXIT, GROK_MODEL_FAILURE_PREFIX, GROK_PRELOAD_VARIABLES, grokPreloadSource, type GrokHostLine } from './grok-preload.js';
import { GrokTurnTranslator, parseGrokLiveLine, parseGrokMessage, type GrokMessage } from './grok-transcript.js';
import { compactGrokTranscript, DEFAULT_GROK_TRANSCRIPT_BOUNDS, type GrokTranscriptBounds } from './grok-transcript-compaction.js';

export { GROK_ADAPTER_ID } from './grok-capabilities.js';

/** The model a Grok agent runs when it names none (the CLI's own default). */
const DEFAULT_GROK_MODEL = 'grok-code-fast-1';
/** The relay modes that reach the Grok CLI only as the RLY-8 line: all but agent (it has no modes). */
const LINE_MODES: readonly RelayMode[] = ['ask', 'plan', 'autopilot'];
/** A bound on the CLI's own agent loop (its default is 400 tool rounds per message). */
const MAX_TOOL_ROUNDS = 100;
/** Reminders before a run that never delivered its output verb is flagged (the other transports' number). */
const MAX_REMINDERS = 2;
/** How long the CLI may take to exit once told the turn is over (it closes its MCP bridge first). */
const EXIT_GRACE_MS = 5_000;
/** How often operator steering is passed on to the CLI. */
const STEER_POLL_MS = 100;

export interface GrokTransportOptions extends RunnerTransportOptions {
  /** How much of the conversation is carried into a turn (default `DEFAULT_GROK_TRANSCRIPT_BOUNDS`). */
  transcriptBounds?: GrokTranscriptBounds;
}

/** Where the installed Grok CLI is: its entry, its `dist/` as a URL, and the `node_modules` it loads from. */
function resolveGrokCli(): { entry: string; distUrl: string; modulesDir: string } {
  const entry = realpathSync(new URL(import.meta.resolve('@vibe-kit/grok-cli')).pathname);
  const dist = dirname(entry);
  // <modules>/@vibe-kit/grok-cli/dist/index.js: the CLI also loads packages hoisted into <modules>.
  const modulesDir = dirname(dirname(dirname(dist)));
  return { entry, distUrl: `${pathToFileURL(dist).href}/`, modulesDir };
}

/**
 * Where the host keeps a conversation's Grok state: outside every directory the runner can see or
 * write, so the runner cannot rewrite its own history or the mode it was last told.
 */
function conversationState(root: string, configDir: string): { transcript: string; lastMode: string } {
  const key = basename(configDir);
  return { transcript: join(root, 'transcripts', `${key}.jsonl`), lastMode: join(root, 'transcripts', `${key}.relay-mode`) };
}

/** The conversation's stored transcript (JSON lines) as the bounded copy the next turn continues. */
function carriedTranscript(stored: string, bounds: GrokTranscriptBounds = DEFAULT_GROK_TRANSCRIPT_BOUNDS): string {
  const messages: GrokMessage[] = [];
  for (const line of stored.split('\n')) {
    if (!line.trim()) continue;
    try {
      const message = parseGrokMessage(JSON.parse(line));
      if (message) messages.push(message);
    } catch {
      // A torn last line (a crash mid-append) is skipped, not carried.
    }
  }
  return compactGrokTranscript(messages, bounds)
    .map((message) => `${JSON.stringify(message)}\n`)
    .join('');
}

/**
 * Runs agents on the npm Grok CLI (`@vibe-kit/grok-cli`, RLY-7) in headless mode, one CLI process per
 * turn, inside the host's OS sandbox (SBX-1), its model reached through the model proxy with the run
 * token (SEC-6). The CLI approves and runs its own tool calls — there is no hook or permission seam —
 * so the OS sandbox is the only bound: a read-only turn (plan) is refused without one. Modes go as the
 * RLY-8 line when they change; the conversation's transcript is carried by the host into the next
 * turn. The Control Center's MCP tools reach it through a stdio bridge (grok-mcp-bridge.ts), so the
 * mode's completion contract is observed, with reminders sent as further messages to the same process;
 * its events are reported live, as the preload prints them (grok-preload.ts).
 */
export class GrokTransport implements AgentTransport {
  readonly id = GROK_ADAPTER_ID;
  readonly capabilities = GROK_CAPABILITIES;
  private readonly sandboxChoice: RunnerSandboxChoice;

  constructor(private readonly options: GrokTransportOptions) {
    this.sandboxChoice = new RunnerSandboxChoice(options.sandbox);
  }

  /** SEC-8: the provider the runner is pointed at through the model proxy; its run token spends no other. */
  modelProvider() {
    return 'xai' as const;
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    const log = this.options.log ?? (() => undefined);
    // MODE-2: fixed at turn start; each turn is a fresh CLI process.
    const relayMode = relayModeOf(context.mode, context.autonomy);
    return withRunnerLaunch(
      { context, transport: this.options, sandboxChoice: this.sandboxChoice, runner: 'grok', runnerName: 'Grok CLI', extraDirs: ['launch'], startFailure: 'The Grok CLI could not start', log },
      async ({ dirs, readOnly, sandboxed }) => {
        const launchDir = dirs.extra[0]!;
        const cli = resolveGrokCli();
        const state = conversationState(dirs.root, dirs.configDir);
        await mkdir(dirname(state.transcript), { recursive: true, mode: 0o700 });
        const previousMode = await readFile(state.lastMode, 'utf8').then(
          (value) => (LINE_MODES.includes(value.trim() as RelayMode) || value.trim() === 'agent' ? (value.trim() as RelayMode) : null),
          () => null,
        );
        // RLY-8: the mode line only on the message that changes the mode.
        const line = relayModeLine(previousMode, relayMode, LINE_MODES);
        const prompt = line ? `${line}\n\n${context.prompt}` : context.prompt;
        // The launch directory is read-only inside the sandbox: the runner reads its inputs, never rewrites them.
        const files = {
          preload: join(launchDir, 'grok-preload.mjs'),
          prompt: join(launchDir, 'prompt.txt'),
          systemPrompt: join(launchDir, 'system-prompt.txt'),
          transcript: join(launchDir, 'transcript.jsonl'),
          bridge: join(launchDir, 'grok-mcp-bridge.mjs'),
        };
        // The CLI's MCP servers come only from <project>/.grok/settings.json, and the preload makes this
        // folder inside the read-only launch directory its project: the runner can neither see the
        // worktree's settings there nor rewrite the host's.
        const projectDir = join(launchDir, 'project');
        const settingsDir = join(projectDir, '.grok');
        await mkdir(settingsDir, { recursive: true, mode: 0o700 });
        // The host keeps the whole transcript; the CLI gets a bounded copy (older tool outputs cut, very old exchanges left out).
        const earlier = carriedTranscript(await readFile(state.transcript, 'utf8').catch(() => ''), this.options.transcriptBounds);
        await Promise.all([
          writeFile(files.preload, grokPreloadSource(cli.distUrl), { mode: 0o600 }),
          writeFile(files.prompt, prompt, { mode: 0o600 }),
          writeFile(files.systemPrompt, context.systemPrompt, { mode: 0o600 }),
          writeFile(files.transcript, earlier, { mode: 0o600 }),
          writeFile(files.bridge, grokMcpBridgeSource(mcpSdkModuleUrls()), { mode: 0o600 }),
          writeFile(join(settingsDir, 'settings.json'), grokMcpSettings({ node: process.execPath, bridgePath: files.bridge }), { mode: 0o600 }),
        ]);
        const remotes = context.checkout?.pushRemotes ?? [];
        // SEC-8: the CLI asks xAI for Live Search on its own; the run's policy is asked ahead, as for Codex's web_search.
        const liveSearch = (await context.providerToolAllowed?.({ field: 'search_parameters', what: 'xAI Live Search', effects: ['networkEgress'] })) ?? true;
        const env = runnerEnvironment({
          source: context.env,
          home: dirs.home,
          passThrough: [],
          // SEC-6: the model proxy and the run token, never a real xAI key.
          brokered: { GROK_BASE_URL: modelProxyBaseUrl(context.serverUrl, this.modelProvider()), GROK_API_KEY: context.mcp.token, [GROK_MCP_BRIDGE_VARIABLES.token]: context.mcp.token },
          extra: {
            [GROK_MCP_BRIDGE_VARIABLES.url]: context.mcp.url,
            [GROK_PRELOAD_VARIABLES.prompt]: files.prompt,
            [GROK_PRELOAD_VARIABLES.systemPrompt]: files.systemPrompt,
            [GROK_PRELOAD_VARIABLES.transcript]: files.transcript,
            [GROK_PRELOAD_VARIABLES.projectDir]: projectDir,
            ...(liveSearch ? {} : { [GROK_PRELOAD_VARIABLES.liveSearch]: 'off' }),
            ...withSandboxGitConfig(gitPushEnvironment(context.serverUrl, context.mcp.token, remotes), { privateHome: true }),
          },
        });
        const model = context.agent.modelId ?? DEFAULT_GROK_MODEL;
        const args = ['--import', pathToFileURL(files.preload).href, cli.entry, '--directory', context.worktreePath, '--model', model, '--max-tool-rounds', String(MAX_TOOL_ROUNDS)];
        const program = await sandboxed({ command: process.execPath, args, readOnlyPaths: [launchDir, cli.modulesDir, dirname(process.execPath)] });
        if (readOnly && !program.wrapped) {
          // Nothing but the OS sandbox stops the CLI's edits: a read-only turn without one would be a lie.
          return {
            outcome: 'failed',
            error: `The Grok CLI approves its own edits, so a ${context.mode} turn (read-only) runs only inside an OS sandbox that keeps the worktree read-only, and this server has none. Install bubblewrap (Linux) or use macOS, or use Agent mode.`,
            deliverableFailed: false,
            usage: emptyUsage(),
            costUsd: null,
            finalText: '',
          };
        }
        const result = await this.execute({ context, command: program.command, args: program.args, cwd: dirs.home, env, readOnly, log });
        if (result.turn) {
          // Only a finished turn joins the transcript and fixes the mode it was told (a failed one is retold).
          await appendFile(state.transcript, result.turn.map((message) => `${JSON.stringify(message)}\n`).join(''), { mode: 0o600 });
          await writeFile(state.lastMode, relayMode, { mode: 0o600 });
        }
        return result.result;
      },
    );
  }

  private async execute(input: {
    context: TransportRunContext;
    command: string;
    args: string[];
    cwd: string;
    env: Record<string, string>;
    readOnly: boolean;
    log: (message: string, detail?: unknown) => void;
  }): Promise<{ result: TransportResult; turn: GrokMessage[] | null }> {
    const { context, log } = input;
    const usage = emptyUsage();
    // HAR-4: the mode's output verb, when it is on the surface. Delivered is the host's MCP record
    // (outputVerbDelivered); the CLI's report of a successful call only names the event.
    const contract = buildCompletionContract(getCapabilityProfile(context.mode));
    const verb = contract && context.surfacedTools.some((tool) => tool.name === contract.outputVerb) ? contract.outputVerb : null;
    const translator = new GrokTurnTranslator((event) => context.emit(event), verb ? grokMcpToolName(verb) : null);
    const { child, exited, stderrTail } = spawnRunnerProcess(input.command, input.args, { cwd: input.cwd, env: input.env });
    if (child.pid !== undefined) this.options.onSpawn?.(child.pid);
    let exitedYet = false;
    // Resolves the current wait: the CLI is idle (true), or it exited (false).
    let wake: (idle: boolean) => void = () => undefined;
    void exited.then(() => {
      exitedYet = true;
      wake(false);
    });
    const lines = createInterface({ input: child.stdout });
    let other = 0;
    lines.on('line', (raw) => {
      if (!raw.trim()) return;
      const line = parseGrokLiveLine(raw);
      if (!line) {
        // The CLI and its libraries may print other things: never trusted as events.
        if ((other += 1) <= 5) log('grok: a line that is not an event', raw.slice(0, 500));
        return;
      }
      if (translator.handle(line)) wake(true);
    });
    const waitIdle = () => new Promise<boolean>((resolve) => (exitedYet ? resolve(false) : (wake = resolve)));
    const tell = (line: GrokHostLine) => {
      if (!child.stdin.destroyed) child.stdin.write(`${JSON.stringify(line)}\n`);
    };
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      const pid = child.pid;
      if (pid === undefined) return;
      void signalProcessTree(pid, 'SIGTERM', []);
      killTreeAfterGrace(pid, this.options.killGraceMs);
    };
    if (context.signal.aborted) onAbort();
    else context.signal.addEventListener('abort', onAbort, { once: true });
    // HAR-5, RLY-9: operator text sent into the running turn goes to the CLI as it arrives; it joins the
    // conversation before the CLI's next model call. The turn keeps the mode it started with.
    let told = 0;
    const passOn = (texts: readonly string[]) => {
      for (const text of texts) tell({ steer: text });
      told += texts.length;
    };
    const steering = setInterval(() => passOn(context.drainSteering?.() ?? []), STEER_POLL_MS);
    // Text passed on that the CLI has not taken yet: it came after the CLI's last model call.
    const untaken = () => translator.steeredCount < told;

    let idle = await waitIdle();
    // RLY-5: the CLI has no plan signal of its own; a read-only turn whose answer reads like a plan gets
    // the board (before any reminder replaces the answer).
    if (idle && !cancelled && input.readOnly && looksLikePlan(translator.finalText)) context.emit({ type: 'plan_ready', plan: translator.finalText, source: 'answer' });
    let reminders = 0;
    while (idle && !cancelled) {
      passOn(context.drainSteering?.() ?? []);
      if (!untaken() && contract && verb && !outputVerbDelivered(context) && reminders < MAX_REMINDERS) {
        // HAR-4: a message that ended without the output verb gets the contract's reminder as a new message, in the same process.
        reminders += 1;
        const reminder = `${contract.reminder}\n\n(In this runner the tool is \`${grokMcpToolName(verb)}\`, the \`${verb}\` tool of the ${GROK_MCP_SERVER_NAME} MCP server.)`;
        context.emit({ type: 'reminder_injected', text: reminder, attempt: reminders });
        tell({ send: reminder });
      } else {
        // RLY-9: the turn would end here. Steering is closed first (later text gets a 409), and what came
        // meanwhile is passed on: the turn goes on with it instead of dropping it.
        if (!untaken()) passOn(context.closeSteering?.() ?? context.drainSteering?.() ?? []);
        if (!untaken()) break;
        tell({ go_on: true });
      }
      idle = await waitIdle();
    }
    clearInterval(steering);
    const finished = idle;
    if (finished) {
      tell({ end: true });
      child.stdin.end();
      const grace = setTimeout(() => void (child.pid !== undefined && signalProcessTree(child.pid, 'SIGKILL', [])), EXIT_GRACE_MS);
      await exited;
      clearTimeout(grace);
    }
    const exit = await exited;
    context.signal.removeEventListener('abort', onAbort);
    lines.close();
    // Whatever the CLI started (shell commands, the MCP bridge) ends with the turn.
    if (child.pid !== undefined) await signalProcessTree(child.pid, 'SIGKILL', []);
    translator.closeOpenCalls();
    const failed = (error: string) => ({ result: { outcome: 'failed' as const, error, deliverableFailed: false, usage, costUsd: null, finalText: '' }, turn: null });
    if (cancelled) return { result: { outcome: 'cancelled', error: null, deliverableFailed: false, usage, costUsd: null, finalText: '' }, turn: null };
    const stderr = stderrTail().trim();
    if (exit.code === GROK_MODEL_FAILURE_EXIT) {
      const reason = stderr.split('\n').find((entry) => entry.startsWith(GROK_MODEL_FAILURE_PREFIX))?.slice(GROK_MODEL_FAILURE_PREFIX.length);
      return failed(`The Grok CLI's model call failed: ${reason ?? stderr.slice(-1_000)}`);
    }
    if (!finished) {
      const how = exit.error ? exit.error.message : exit.signal ? `killed by ${exit.signal}` : `exit ${exit.code}`;
      return failed(`The Grok CLI ended without finishing the turn (${how})${stderr ? ` — ${stderr.slice(-1_000)}` : ''}`);
    }
    const answered = translator.messages.some((message) => message.role === 'assistant' && !message.tool_calls);
    if (stderr) log('grok: stderr of a finished turn', stderr.slice(-2_000));
    if (!answered) return failed(`The Grok CLI exited without an answer${stderr ? ` — ${stderr.slice(-1_000)}` : ''}`);
    return {
      result: { outcome: 'completed', error: null, deliverableFailed: Boolean(verb && !outputVerbDelivered(context)), usage, costUsd: null, finalText: translator.finalText },
      turn: translator.messages,
    };
  }
}
