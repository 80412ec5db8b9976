/**
 * The `node --import` preload the Grok CLI runs under (RLY-7). It is written as a file per run and
 * loaded before the CLI's own entry, because the CLI as published cannot be run safely or at all from
 * this server's `node_modules`:
 *
 * - **Hostile worktree.** At import the CLI calls `dotenv.config()` (the cwd's `.env`), and its
 *   settings singleton reads `<cwd>/.grok/settings.json` — including `mcpServers`, commands it would
 *   spawn — the first time it is asked, which in headless mode is after `--directory` changed into the
 *   worktree. The preload changes into the runner's private HOME first and creates the singleton
 *   there, so both read the runner's own files; only then does `--directory` move the tools into the
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
 */

/** Environment variables the preload reads (set by the transport). */
export const GROK_PRELOAD_VARIABLES = {
  /** JSON lines of earlier OpenAI-format messages of this conversation (user, assistant, tool). */
  transcript: 'CONTROL_CENTER_GROK_TRANSCRIPT',
  /** The server's system prompt for the turn, as a file. */
  systemPrompt: 'CONTROL_CENTER_GROK_SYSTEM_PROMPT',
  /** The turn's message, as a file: becomes `--prompt` (no argv size limit, not visible in `ps`). */
  prompt: 'CONTROL_CENTER_GROK_PROMPT',
} as const;

/** The exit code the preload uses when the CLI swallowed a failed model call. */
export const GROK_MODEL_FAILURE_EXIT = 3;
/** The stderr prefix of that failure (the transport quotes the line). */
export const GROK_MODEL_FAILURE_PREFIX = 'control-center-grok: the model call failed: ';

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

const DIST = ${JSON.stringify(distUrl)};
const env = process.env;

// The private HOME first: dotenv and the settings singleton must never see the worktree's files.
process.chdir(env.HOME);
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

const { GrokAgent } = await import(DIST + 'agent/grok-agent.js');
const processUserMessage = GrokAgent.prototype.processUserMessage;
GrokAgent.prototype.processUserMessage = async function (message) {
  const systemPrompt = env.${GROK_PRELOAD_VARIABLES.systemPrompt} ? readFileSync(env.${GROK_PRELOAD_VARIABLES.systemPrompt}, 'utf8') : '';
  if (systemPrompt.trim() && this.messages[0]?.role === 'system') this.messages[0].content += '\\n\\n' + systemPrompt;
  for (const earlier of readLines(env.${GROK_PRELOAD_VARIABLES.transcript})) {
    if (earlier && (earlier.role === 'user' || earlier.role === 'assistant' || earlier.role === 'tool')) this.messages.push(earlier);
  }
  const client = this.grokClient;
  const chat = client.chat.bind(client);
  let failure = null;
  client.chat = async (...args) => {
    try {
      failure = null;
      return await chat(...args);
    } catch (error) {
      failure = error;
      throw error;
    }
  };
  const entries = await processUserMessage.call(this, message);
  if (failure) {
    process.stderr.write(${JSON.stringify(GROK_MODEL_FAILURE_PREFIX)} + String(failure?.message ?? failure).replace(/\\s+/g, ' ') + '\\n');
    process.exitCode = ${GROK_MODEL_FAILURE_EXIT};
  }
  return entries;
};
`;
}
