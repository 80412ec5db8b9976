import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError, type Command, type CommanderError } from 'commander';
import { DEFAULT_AUTONOMY } from '../core/modes.js';
import { PICKER_VALUES, pickerToSpaceMode, type PickerValue } from '../core/picker.js';
import type { AttachmentUpload } from '../schemas/attachment.js';
import type { PostMessageResponse } from '../schemas/message.js';
import type { Run } from '../schemas/run.js';
import type { Conversation, Space } from '../schemas/space.js';
import { ApiRequestError, type ApiClient } from './api-client.js';
import { ChatOutput } from './chat-output.js';
import { ChatTurnWatcher, type ChatPrompter } from './chat-turn-watcher.js';
import { EventStreamReader } from './event-stream-reader.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { excerpt } from './terminal-text.js';

/** Exit codes of `control-center chat`. 130 is the shell's code for Ctrl-C. */
export const CHAT_EXIT = { completed: 0, failed: 1, badInput: 2, interrupted: 130 } as const;

/** How long Ctrl-C waits for the server to confirm the cancel before leaving anyway. */
const CANCEL_WAIT_MS = 15_000;

/** Bad input: printed with the flag it concerns, exit code 2, nothing changed on the server. */
class ChatUsageError extends Error {}

/** Which flag a field the API refused came from. */
const FLAG_OF_FIELD: Record<string, string> = { conversationId: '--conversation', spaceId: '--space', picker: '--mode', text: '<message>', workspaceId: '--workspace' };

/** The flag a refused field came from; `attachments[1].data` is the second `--attach`. */
function flagOfField(field: string): string | undefined {
  const attachment = /^attachments(?:\[(\d+)\])?/.exec(field);
  if (attachment) return attachment[1] === undefined ? '--attach' : `--attach #${Number(attachment[1]) + 1}`;
  return FLAG_OF_FIELD[field];
}

/** The largest file `--attach` reads; the server's own caps (3 MiB images, 256 KiB text) decide the rest. */
const MAX_ATTACH_READ_BYTES = 4 * 1024 * 1024;

/** `--attach`: repeatable, in order. */
function collectAttachment(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Reads the `--attach` files before anything is created: a file that cannot be read changes nothing. */
async function readAttachments(paths: readonly string[]): Promise<AttachmentUpload[]> {
  const uploads: AttachmentUpload[] = [];
  for (const path of paths) {
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      throw new ChatUsageError(`--attach: cannot read ${path}: ${error.code ?? error.message}`);
    });
    if (bytes.length > MAX_ATTACH_READ_BYTES) throw new ChatUsageError(`--attach: ${path} is ${bytes.length} bytes; attachments are at most 3 MiB (images) or 256 KiB (text)`);
    // Only the file's own name is sent: the server refuses a path, and the folders are nobody's business.
    uploads.push({ name: basename(path), data: bytes.toString('base64') });
  }
  return uploads;
}

interface ChatOptions {
  workspace?: string;
  space?: string;
  conversation?: string;
  mode?: PickerValue;
  json?: boolean;
  attach?: string[];
}

/** `--mode`: a picker value (RLY-1), in any letter case. */
function parseMode(value: string): PickerValue {
  const found = PICKER_VALUES.find((picker) => picker.toLowerCase() === value.trim().toLowerCase());
  if (!found) throw new InvalidArgumentError(`must be one of ${PICKER_VALUES.join(', ')}`);
  return found;
}

/** The progress interval: CONTROL_CENTER_PROGRESS_MS, else 1 s on a terminal and 10 s in a log. */
function progressInterval(): number {
  const configured = Number(process.env.CONTROL_CENTER_PROGRESS_MS);
  if (Number.isFinite(configured) && configured > 0) return configured;
  return process.stderr.isTTY ? 1_000 : 10_000;
}

/**
 * `control-center chat [--space s] [--conversation c] [--mode m] [--json] "message"` (RLY-1,
 * RLY-2, HAR-6, POL-7): posts one message and follows the turn it starts until it ends. With neither
 * --space nor --conversation it is a new chat, which (as in the web app, RLY-2) is a new space with one
 * conversation, in --mode or Agent. With --space it is a new conversation in that space; --mode then
 * applies the picker to the space, as the composer does. Exit 0 completed, 1 failed or cancelled,
 * 2 bad input, 130 Ctrl-C (the run is cancelled first).
 */
export function registerChatCommand(program: Command, context: OperatorCommandContext): void {
  const chat = program
    .command('chat')
    .description('send a message and stream the turn: text, tool calls, approvals and questions (asked inline on a terminal)')
    .argument('<message>', 'what to say (quote it)')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('-s, --space <idOrName>', 'a new conversation in this space (default: a new chat, i.e. a new space)')
    .option('-c, --conversation <id>', 'continue this conversation')
    .option('-m, --mode <mode>', `the picker for this message: ${PICKER_VALUES.join(', ')} (a new chat: Agent)`, parseMode)
    .option('--json', 'print the turn as NDJSON: one event per line')
    .option('-a, --attach <file>', 'attach an image (PNG, JPEG, WebP, GIF) or a text file to the message; repeat for more', collectAttachment)
    .action(async (message: string, options: ChatOptions) => {
      try {
        process.exitCode = await runChat(context, message, options);
      } catch (error) {
        const usage = error instanceof ChatUsageError || (error instanceof ApiRequestError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403);
        process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = usage ? CHAT_EXIT.badInput : CHAT_EXIT.failed;
      }
      // The stream and any prompt hold the event loop open; the turn is over, so leave now.
      process.exit(process.exitCode);
    });
  // Commander's own usage errors (unknown flag, missing message, bad --mode) exit 2, not 1.
  chat.exitOverride((error: CommanderError) => {
    process.exit(error.exitCode === 0 ? 0 : CHAT_EXIT.badInput);
  });
}

async function runChat(context: OperatorCommandContext, message: string, options: ChatOptions): Promise<number> {
  // Checked before anything is created, so bad input changes nothing.
  if (!message.trim()) throw new ChatUsageError('<message> must not be empty');
  if (options.space && options.conversation) throw new ChatUsageError('give --space or --conversation, not both (a conversation already has its space)');
  const attachments = await readAttachments(options.attach ?? []);
  const api = await context.client();
  const workspace = await context.resolveWorkspace(api, options.workspace).catch((error: unknown) => {
    // "no workspace 'x'" / "pass --workspace" are usage errors; a refused token or a dead server are not.
    if (error instanceof ApiRequestError || error instanceof TypeError || !(error instanceof Error)) throw error;
    throw new ChatUsageError(`--workspace: ${error.message}`);
  });
  const base = `/api/workspaces/${workspace.id}`;
  const conversation = await targetConversation(api, base, options);

  const output = new ChatOutput(process.stdout, process.stderr, () => watcher.waitingFor(), progressInterval());
  const interactive = !options.json && process.stdin.isTTY === true;
  const prompt = interactive ? createInterface({ input: process.stdin, output: process.stdout, terminal: true }) : null;
  const prompter: ChatPrompter | null = prompt
    ? { ask: (question, signal) => prompt.question(question, { signal }).then((answer) => answer, () => null) }
    : null;
  const watcher: ChatTurnWatcher = new ChatTurnWatcher({ api, base, conversationId: conversation.id, output, json: options.json === true, prompter });
  let lost: (error: Error) => void = () => undefined;
  const streamLost = new Promise<never>((_, reject) => {
    lost = reject;
  });
  const stream = new EventStreamReader(api, `${base}/events`, (event) => watcher.accept(event), (error) => lost(new Error(`lost the live events stream: ${error.message}`)));
  // Subscribed before posting, so the turn's first event cannot be missed (and POL-4 sees an operator).
  await stream.open();

  let cancelling = false;
  const interrupted = new Promise<number>((resolve) => {
    const onInterrupt = () => {
      if (cancelling || !watcher.runId) return resolve(CHAT_EXIT.interrupted);
      cancelling = true;
      output.note(`cancelling ${watcher.runId}… (Ctrl-C again to leave at once)`);
      void api
        .request('POST', `${base}/runs/${encodeURIComponent(watcher.runId)}/cancel`)
        .catch((error: unknown) => output.note(`could not cancel: ${error instanceof Error ? error.message : String(error)}`))
        .then(() => Promise.race([watcher.ended, new Promise((done) => setTimeout(done, CANCEL_WAIT_MS))]))
        .then(() => resolve(CHAT_EXIT.interrupted));
    };
    process.on('SIGINT', onInterrupt);
    prompt?.on('SIGINT', onInterrupt);
  });

  const posted = await api
    .request<PostMessageResponse>('POST', `${base}/conversations/${conversation.id}/messages`, { text: message, ...(options.mode ? { picker: options.mode } : {}), ...(attachments.length > 0 ? { attachments } : {}) })
    .catch(refusedInput);
  if (options.json) output.text(`${JSON.stringify({ type: 'chat.posted', data: { workspaceId: workspace.id, spaceId: posted.space.id, conversationId: conversation.id, messageId: posted.message?.id ?? null, runId: posted.run?.id ?? null } })}\n`);
  else output.note(`${printableIds(posted, conversation)}`);
  if (!posted.run) {
    // `/context` answers with a system line at once (CTX-1); `/plan` alone arms plan mode for the next message.
    if (!options.json && posted.message?.role === 'system') output.text(`${posted.message.content}\n`);
    else if (!options.json) output.note(`no turn started; the space is now in ${posted.space.picker ?? posted.space.mode} mode`);
    stream.close();
    return CHAT_EXIT.completed;
  }
  watcher.start(posted.run);
  output.startProgress();
  try {
    const outcome = await Promise.race([watcher.ended, interrupted, streamLost]);
    output.stopProgress();
    output.endLine();
    if (typeof outcome === 'number') return outcome;
    if (!options.json) output.note(summaryLine(outcome));
    // The run ended because of Ctrl-C (its cancel landed before the wait did): still the Ctrl-C code.
    if (cancelling) return CHAT_EXIT.interrupted;
    return outcome.state === 'completed' ? CHAT_EXIT.completed : CHAT_EXIT.failed;
  } finally {
    output.stopProgress();
    stream.close();
    prompt?.close();
  }
}

function printableIds(posted: PostMessageResponse, conversation: Conversation): string {
  return `conversation ${conversation.id} in space ${posted.space.id} · ${posted.space.picker ?? posted.space.mode}${posted.run ? ` · run ${posted.run.id}` : ''}`;
}

/** The turn's last line on stderr: how it ended, how long it took, what it cost. */
function summaryLine(run: Run): string {
  const seconds = run.startedAt && run.endedAt ? ` in ${Math.max(0, Math.round((Date.parse(run.endedAt) - Date.parse(run.startedAt)) / 1000))}s` : '';
  const tokens = run.usage.inputTokens + run.usage.outputTokens;
  const error = run.error ? `: ${excerpt(run.error, 300)}` : '';
  return `${run.state}${seconds} · $${run.costUsd.toFixed(4)} · ${tokens} tokens${error}`;
}

/**
 * The conversation the message goes to (RLY-2): --conversation as it is; --space: a new conversation
 * in it (found by id or name); neither: a new chat, i.e. a new space in --mode (else Agent) with one
 * conversation, as the web app's "New chat" makes.
 */
/** A 4xx answer as a usage error naming the flag its field came from; anything else is rethrown. */
function refusedInput(error: unknown): never {
  if (error instanceof ApiRequestError && error.status < 500) {
    const field = (error.body as { error?: { field?: string } } | null)?.error?.field;
    throw new ChatUsageError(`${(field && flagOfField(field)) ?? field ?? 'input'}: ${error.problem}`);
  }
  throw error;
}

async function targetConversation(api: ApiClient, base: string, options: ChatOptions): Promise<Conversation> {
  const refused = refusedInput;
  if (options.conversation) return api.request<Conversation>('GET', `${base}/conversations/${encodeURIComponent(options.conversation)}`).catch(refused);
  if (options.space) {
    const { spaces } = await api.request<{ spaces: Space[] }>('GET', `${base}/spaces`);
    const wanted = options.space.toLowerCase();
    const matches = spaces.filter((space) => space.id === options.space || space.name.toLowerCase() === wanted);
    if (matches.length === 0) throw new ChatUsageError(`--space: no space '${options.space}' (give its id or name)`);
    if (matches.length > 1) throw new ChatUsageError(`--space: ${matches.length} spaces are named '${options.space}'; give its id (${matches.map((space) => space.id).join(', ')})`);
    return api.request<Conversation>('POST', `${base}/spaces/${matches[0]!.id}/conversations`, {}).catch(refused);
  }
  const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const space = await api.request<Space>('POST', `${base}/spaces`, { name: `Chat ${stamp}`, ...pickerToSpaceMode(options.mode ?? 'Agent', DEFAULT_AUTONOMY) }).catch(refused);
  return api.request<Conversation>('POST', `${base}/spaces/${space.id}/conversations`, {}).catch(refused);
}
