/**
 * The `node --import` preload the Grok CLI runs under (RLY-7). It is written as a file per run and
 * loaded before the CLI's own entry, because the CLI as published cannot be run safely or at all from
 * this server's `node_modules`:
 *
 * - **Hostile worktree.** At import the CLI calls `dotenv.config()` (the cwd's `.env`), and its
 *   settings singleton reads `<cwd>/.grok/settings.json` — including `mcpServers`, commands it would
 *   spawn — the first time it is asked, which in headless mode is after `--directory` changed into the
 *   worktree. The preload changes into the host's project folder (read-only to the runner) first and
 *   creates the singleton there, so both read only what the host wrote; only then does `--directory` move the tools into the
 *   worktree. `.grok/GROK.md` ("custom instructions") is not read at all: the loader answers the CLI's
 *   instructions module with one that returns none (the server's system prompt takes its place).
 * - **React clash.** The CLI imports Ink 4 at its top, which would load the server's React 19 and
 *   crash; headless mode never renders, so the loader answers `ink` and the chat UI with stubs.
 * - **Conversation and system prompt.** Headless mode sends one prompt to a fresh agent. The preload
 *   seeds the agent's messages from the conversation's transcript (kept by the host) and appends the
 *   server's system prompt, so a second message continues the first.
 * - **Errors.** The CLI turns a failed model call into an ordinary answer ("Sorry, I encountered an
 *   error: …") and exits 0; the preload records the thrown error and exits non-zero instead, so the
 *   run fails with the reason.
 * - **The message** is read from a file and put on the CLI's argv as `--prompt` before the CLI parses it.
 * - **Live events and more messages.** Headless mode prints the turn only when it is over. The
 *   preload runs the message through the CLI's own streaming loop (`processUserMessageStream`, what its
 *   UI uses) instead and prints, as it happens, one JSON line per event (`GrokLiveLine`): text deltas,
 *   each message as it joins the conversation, each tool call's start and end (with whether it
 *   failed), and `idle` when the message is done. It then reads the host's next instruction from
 *   stdin: another message in the same process (a completion-contract reminder) or the end.
 * - **MCP.** When the project folder's `.grok/settings.json` names servers (the transport writes the
 *   Control Center bridge there), the first message waits until the CLI has connected them, so the
 *   product tools are on the first model request; and a product tool call may wait as long as the
 *   host's question cards (the CLI's client would give up after 60 s).
 */

/** Environment variables the preload reads (set by the transport). */
export const GROK_PRELOAD_VARIABLES = {
  /** JSON lines of earlier OpenAI-format messages of this conversation (user, assistant, tool). */
  transcript: 'CONTROL_CENTER_GROK_TRANSCRIPT',
  /** The server's system prompt for the turn, as a file. */
  systemPrompt: 'CONTROL_CENTER_GROK_SYSTEM_PROMPT',
  /** The turn's message, as a file: becomes `--prompt` (no argv size limit, not visible in `ps`). */
  prompt: 'CONTROL_CENTER_GROK_PROMPT',
  /**
   * The CLI's "project" directory: the host's read-only folder holding `.grok/settings.json` (its MCP
   * servers). HOME cannot hold it: the sandbox gives the runner a fresh private HOME.
   */
  projectDir: 'CONTROL_CENTER_GROK_PROJECT_DIR',
  /**
   * "off" when the run's policy refuses xAI Live Search (SEC-8): the CLI has no option for it, so the
   * preload makes its search heuristic always say no and every request names mode "off" (the model
   * proxy switching it off is the backstop).
   */
  liveSearch: 'CONTROL_CENTER_GROK_LIVE_SEARCH',
} as const;

/** The exit code the preload uses when the CLI swallowed a failed model call. */
export const GROK_MODEL_FAILURE_EXIT = 3;
/** The stderr prefix of that failure (the transport quotes the line). */
export const GROK_MODEL_FAILURE_PREFIX = 'control-center-grok: the model call failed: ';
/** How long the first message waits for the CLI to connect its MCP servers. */
const MCP_CONNECT_WAIT_MS = 30_000;
/** How long one MCP tool call may take (see grok-mcp-bridge.ts). */
const MCP_CALL_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/** One line the preload prints on stdout while the CLI works (the host's view of the turn). */
export type GrokLiveLine =
  | { cc: 'text'; text: string }
  | { cc: 'message'; message: unknown }
  | { cc: 'tool_start'; id: string }
  | { cc: 'tool_end'; id: string; success: boolean; output: string }
  | { cc: 'steered'; text: string }
  | { cc: 'idle' };

/**
 * One line the host writes on the CLI's stdin: steering text at any time (taken before the next model
 * call); after an `idle`, `send` (a further message), `go_on` (go on with the steering text that came
 * after the last model call) or `end`.
 */
export type GrokHostLine = { steer: string } | { send: string } | { go_on: true } | { end: true };

/** The loader hooks (run in Node's loader thread): stubs for Ink, the chat UI and the instructions file. */
function hooksSource(distUrl: string): string {
  const stub = (source: string) => `data:text/javascript,${encodeURIComponent(source)}`;
  const uiStub = stub('export function render() { throw new Error("the Grok CLI UI is not available under Control Center"); } export default function ChatInterface() { return null; }');
  const instructionsStub = stub('export function loadCustomInstructions() { return null; }');
  return `
const DIST = ${JSON.stringify(distUrl)};
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  if (parent.startsWith(DIST)) {
    if (specifier === 'ink' || specifier.endsWith('/ui/components/chat-interface.js')) return { url: ${JSON.stringify(uiStub)}, shortCircuit: true };
    if (specifier.endsWith('/utils/custom-instructions.js')) return { url: ${JSON.stringify(instructionsStub)}, shortCircuit: true };
  }
  return next(specifier, context);
}
`;
}

/**
 * The preload module's source for the Grok CLI whose `dist/` directory is at `distUrl` (a `file:`
 * URL ending in `/`).
 */
export function grokPreloadSource(distUrl: string): string {
  return `// Written by Control Center for one Grok CLI run (src/adapters/grok/grok-preload.ts).
import { register } from 'node:module';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const DIST = ${JSON.stringify(distUrl)};
const env = process.env;

// The host's project folder (else the private HOME) first: dotenv and the settings singleton must never
// see the worktree's files.
process.chdir(env.${GROK_PRELOAD_VARIABLES.projectDir} || env.HOME);
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooksSource(distUrl))}));
const { getSettingsManager } = await import(DIST + 'utils/settings-manager.js');
getSettingsManager();
process.argv.push('--prompt', readFileSync(env.${GROK_PRELOAD_VARIABLES.prompt}, 'utf8'));

function readLines(path) {
  if (!path) return [];
  try {
    return readFileSync(path, 'utf8').split('\\n').filter((line) => line.trim()).map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

const print = (line) => process.stdout.write(JSON.stringify(line) + '\\n');

// The host's lines: steering text for the running message (HAR-5, RLY-9), taken before the next model
// call; any other line is an instruction, read only after an idle.
const host = createInterface({ input: process.stdin });
const instructions = [];
const waiting = [];
const steering = [];
host.on('line', (line) => {
  try {
    const parsed = JSON.parse(line);
    if (parsed && typeof parsed.steer === 'string') return void steering.push(parsed.steer);
  } catch {}
  if (waiting.length > 0) waiting.shift()(line);
  else instructions.push(line);
});
host.on('close', () => { while (waiting.length > 0) waiting.shift()(null); instructions.push(null); });
const nextInstruction = () => (instructions.length > 0 ? Promise.resolve(instructions.shift()) : new Promise((resolve) => waiting.push(resolve)));
const parseInstruction = (line) => {
  try {
    return line === null ? null : JSON.parse(line);
  } catch {
    return null;
  }
};
// Steering that came after the last model call, as the message the turn goes on with (null: none).
function takeLateSteering() {
  if (steering.length === 0) return null;
  const texts = steering.splice(0);
  for (const text of texts) print({ cc: 'steered', text });
  return texts.join('\\n\\n');
}
// After an idle: the next message, or null for the end. Steering that arrived while idle (the host wrote
// it before this instruction, RLY-9) is never dropped: the message goes on with it, even on an end.
async function nextMessage() {
  for (;;) {
    const parsed = parseInstruction(await nextInstruction());
    if (parsed && typeof parsed.send === 'string') return parsed.send;
    const steered = takeLateSteering();
    if (steered !== null) return steered;
    // Nothing to go on with: still idle, waiting for the host's next word.
    if (parsed && parsed.go_on === true) print({ cc: 'idle' });
    else return null;
  }
}

// A tool call of a product tool may wait on a question card for much longer than the SDK's 60 s.
const { MCPManager } = await import(DIST + 'mcp/client.js');
MCPManager.prototype.callTool = async function (toolName, args) {
  const tool = this.tools.get(toolName);
  if (!tool) throw new Error('Tool ' + toolName + ' not found');
  const client = this.clients.get(tool.serverName);
  if (!client) throw new Error('Server ' + tool.serverName + ' not connected');
  return client.callTool({ name: toolName.slice(('mcp__' + tool.serverName + '__').length), arguments: args }, undefined, { timeout: ${MCP_CALL_TIMEOUT_MS} });
};

const { GrokAgent } = await import(DIST + 'agent/grok-agent.js');
if (env.${GROK_PRELOAD_VARIABLES.liveSearch} === 'off') GrokAgent.prototype.shouldUseSearchFor = () => false;
GrokAgent.prototype.processUserMessage = async function (message) {
  const systemPrompt = env.${GROK_PRELOAD_VARIABLES.systemPrompt} ? readFileSync(env.${GROK_PRELOAD_VARIABLES.systemPrompt}, 'utf8') : '';
  if (systemPrompt.trim() && this.messages[0]?.role === 'system') this.messages[0].content += '\\n\\n' + systemPrompt;
  for (const earlier of readLines(env.${GROK_PRELOAD_VARIABLES.transcript})) {
    if (earlier && (earlier.role === 'user' || earlier.role === 'assistant' || earlier.role === 'tool')) this.messages.push(earlier);
  }
  const started = Date.now();
  while (!this.mcpInitialized && Date.now() - started < ${MCP_CONNECT_WAIT_MS}) await new Promise((resolve) => setTimeout(resolve, 20));

  const client = this.grokClient;
  // HAR-5: a paused run's model request is held at the host's model proxy until resume; the CLI's
  // client would give up after 6 minutes (and retry, then fail the turn), so it waits as long as a
  // question card may.
  client.client.timeout = ${MCP_CALL_TIMEOUT_MS};
  const chatStream = client.chatStream.bind(client);
  let failure = null;
  const agent = this;
  // Steering joins the conversation as user messages right before the next model call.
  const takeSteering = () => {
    const texts = steering.splice(0);
    for (const text of texts) {
      agent.messages.push({ role: 'user', content: text });
      print({ cc: 'steered', text });
    }
    return texts.length;
  };
  client.chatStream = async function* (...args) {
    takeSteering();
    try {
      failure = null;
      yield* chatStream(...args);
    } catch (error) {
      failure = error;
      throw error;
    }
  };
  // Every message that joined the conversation is printed once, before the tool call that follows it.
  let printed = this.messages.length;
  const flush = () => {
    for (; printed < this.messages.length; printed += 1) print({ cc: 'message', message: this.messages[printed] });
  };
  const executeTool = this.executeTool.bind(this);
  this.executeTool = async (toolCall) => {
    flush();
    print({ cc: 'tool_start', id: toolCall.id });
    const result = await executeTool(toolCall);
    print({ cc: 'tool_end', id: toolCall.id, success: result.success === true, output: result.success ? result.output || 'Success' : result.error || 'Error' });
    return result;
  };

  let next = message;
  while (next !== null) {
    for await (const chunk of this.processUserMessageStream(next)) {
      if (chunk.type === 'content' && !failure) print({ cc: 'text', text: chunk.content });
    }
    if (failure) {
      process.stderr.write(${JSON.stringify(GROK_MODEL_FAILURE_PREFIX)} + String(failure?.message ?? failure).replace(/\\s+/g, ' ') + '\\n');
      process.exitCode = ${GROK_MODEL_FAILURE_EXIT};
      break;
    }
    // Steering that came after the last model call: the message goes on with it (the turn is not over).
    flush();
    next = takeLateSteering();
    if (next !== null) continue;
    print({ cc: 'idle' });
    next = await nextMessage();
  }
  host.close();
  process.stdin.destroy();
  const { getMCPManager } = await import(DIST + 'grok/tools.js');
  await getMCPManager().shutdown().catch(() => undefined);
  // Headless mode prints what this returns: everything was printed already.
  return [];
};
`;
}
