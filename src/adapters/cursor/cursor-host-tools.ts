import type { SDKCustomTool, SDKCustomToolResult, SDKJsonValue } from '@cursor/sdk';
import type { HookSession } from '../../core/hook-sessions.js';
import { gateFailingClosed, type TransportAction, type TransportGateResult } from '../../core/transport-gate.js';
import type { WorktreeOperations } from '../../worktree/worktree-operations.js';
import type { TransportRunContext } from '../agent-transport.js';
import type { AskUser } from '../claude-agent-sdk/claude-agent-sdk-transport.js';

/** A command's output the agent gets back, at most (the rest is cut and said so). */
const MAX_OUTPUT_BYTES = 30_000;
/** A host command is stopped after this long. */
const COMMAND_TIMEOUT_MS = 120_000;

export interface CursorHostToolsInput {
  context: TransportRunContext;
  session: HookSession;
  /** Where `run_command` and `write_file` act: the conversation's worktree, paths confined (SEC-4), commands in the run's sandbox. */
  worktree: WorktreeOperations;
  /** Whether the mode lets the agent change anything (false in every read-only mode: no mutating host tool exists then). */
  writable: boolean;
  askUser: AskUser;
  signal: AbortSignal;
}

const result = (text: string, isError = false): SDKCustomToolResult => ({ content: [{ type: 'text', text }], isError });
const field = (args: Record<string, SDKJsonValue>, name: string): string | null => (typeof args[name] === 'string' ? (args[name] as string) : null);

/**
 * The tools the host runs in its own process for a Cursor agent (the SDK's `customTools`), in place
 * of Cursor's own shell and file tools: every `run_command` and `write_file` goes through the run's
 * policy gate before anything happens (POL-1, fail closed POL-4), and `ask_user` is a question card
 * (RLY-4). Only `ask_user` exists in a read-only mode.
 */
export function cursorHostTools(input: CursorHostToolsInput): Record<string, SDKCustomTool> {
  const { context, session } = input;
  const gate = async (action: TransportAction, toolCallId: string | undefined): Promise<TransportGateResult> => {
    const decided = await gateFailingClosed(() => context.gate(action, input.signal), []);
    // Kept on the run's session like a hook decision: this call is the SDK's only pre-execution seam.
    session.decisions.push({ source: 'hook', toolUseId: toolCallId ?? null, toolName: action.toolName, action, allow: decided.allow, result: decided, at: new Date().toISOString() });
    return decided;
  };
  const tools: Record<string, SDKCustomTool> = {
    ask_user: {
      description: 'Ask the user a question and wait for the answer (a question card). Give options when the answer is a choice.',
      inputSchema: { type: 'object', properties: { question: { type: 'string' }, options: { type: 'array', items: { type: 'string' } } }, required: ['question'] },
      execute: async (args) => {
        const question = field(args, 'question');
        if (!question?.trim()) return result('ask_user needs a non-empty `question` string.', true);
        if (!context.conversationId) return result('There is no conversation to ask in; continue on your own.', true);
        const options = Array.isArray(args.options) ? args.options.filter((option): option is string => typeof option === 'string') : [];
        const answers = await input.askUser(
          { workspaceId: context.workspaceId, runId: context.runId, agentId: context.agent.id, conversationId: context.conversationId, questions: [{ question, ...(options.length > 0 ? { options } : {}) }] },
          input.signal,
        );
        return result(answers[0] ?? '');
      },
    },
  };
  if (!input.writable) return tools;
  tools.run_command = {
    description: 'Run a shell command (bash) in the repository. The Control Center’s policy decides each command before it runs.',
    inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    execute: async (args, toolContext) => {
      const command = field(args, 'command');
      if (!command?.trim()) return result('run_command needs a non-empty `command` string.', true);
      const decided = await gate({ kind: 'command', command, toolName: 'run_command' }, toolContext.toolCallId);
      if (!decided.allow) return result(`Denied by the Control Center policy: ${decided.reason}`, true);
      const ran = await input.worktree.exec(command, { timeoutMs: COMMAND_TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT_BYTES, signal: input.signal });
      const how = ran.timedOut ? 'timed out' : ran.aborted ? 'stopped (the run was cancelled)' : `exit ${ran.exitCode ?? ran.signal}`;
      const output = [ran.stdout, ran.stderr].filter((part) => part.length > 0).join('\n');
      return result(`${how}${ran.truncated ? ' (output truncated)' : ''}\n${output}`, ran.exitCode !== 0);
    },
  };
  tools.write_file = {
    description: 'Write a file in the repository (the whole content). The Control Center’s policy decides each write before it happens.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    execute: async (args, toolContext) => {
      const path = field(args, 'path');
      const content = field(args, 'content');
      if (!path?.trim() || content === null) return result('write_file needs `path` and `content` strings.', true);
      // SEC-4: where the path lands, refused before the gate when it leaves the worktree.
      const target = await input.worktree.resolve(path).catch(() => null);
      if (target === null) return result(`Refused: ${JSON.stringify(path.slice(0, 200))} is outside the repository.`, true);
      const decided = await gate({ kind: 'fileWrite', path: target, toolName: 'write_file' }, toolContext.toolCallId);
      if (!decided.allow) return result(`Denied by the Control Center policy: ${decided.reason}`, true);
      try {
        await input.worktree.writeFile(path, content);
      } catch (error) {
        return result(`The write failed: ${error instanceof Error ? error.message : String(error)}`, true);
      }
      return result(`Wrote ${path}.`);
    },
  };
  return tools;
}
