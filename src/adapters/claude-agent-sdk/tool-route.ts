import { isAbsolute, resolve } from 'node:path';
import type { TransportAction } from '../agent-transport.js';
import { mcpToolName } from '../claude-code/claude-code-args.js';

/** The SDK's question tool: its answers go back as `updatedInput.answers` (RLY-4). */
export const ASK_USER_QUESTION_TOOL = 'AskUserQuestion';
/** The SDK's plan-exit tool: a Plan ready board, then a deny (RLY-5). */
export const EXIT_PLAN_MODE_TOOL = 'ExitPlanMode';

const WRITE_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/**
 * Native tools that only read or organise the agent's own work: allowed without asking the policy
 * engine (the honesty matrix says reads are not intercepted). Agent/Task start in-runner subagents,
 * whose own tool calls pass the same hook and `canUseTool`.
 */
const UNGATED_TOOLS: ReadonlySet<string> = new Set([
  'Read',
  'Glob',
  'Grep',
  'LS',
  'NotebookRead',
  'TodoWrite',
  'WebFetch',
  'WebSearch',
  'Agent',
  'Task',
  'TaskOutput',
  'BashOutput',
  'KillShell',
  'KillBash',
  'ToolSearch',
  'EnterPlanMode',
]);

/** How the host treats one tool call of an SDK run. */
export type SdkToolRoute =
  | { kind: 'gate'; action: TransportAction }
  | { kind: 'question' }
  | { kind: 'planReady' }
  | { kind: 'allow' }
  | { kind: 'deny'; message: string };

/**
 * Where one tool call goes (POL-1, RLY-7): shell commands and native writes to the policy gate; in a
 * read-only mode every write tool is refused by the host before any gate (the SDK's plan mode lets a
 * write through when the host allows it: measured on 0.3.332); the question and plan-exit tools to
 * the relay; the Control Center's own MCP tools only when surfaced (its MCP server gates them); reads
 * through; anything else is refused (fail closed: a tool the host does not know is not run).
 */
export function routeSdkTool(toolName: string, input: Record<string, unknown>, context: { worktreePath: string; readOnly: boolean; surfacedTools: readonly string[] }): SdkToolRoute {
  if (toolName === 'Bash') {
    const command = input.command;
    if (typeof command !== 'string' || command.trim() === '') return { kind: 'deny', message: 'Control Center: a Bash call without a command line is refused (fail closed).' };
    return { kind: 'gate', action: { kind: 'command', command, toolName } };
  }
  if (WRITE_TOOLS.has(toolName)) {
    if (context.readOnly) {
      return {
        kind: 'deny',
        message: `Control Center: this conversation is in a read-only mode (plan): ${toolName} is refused. Reading is allowed; describe the change instead, or ask the user to switch to Agent mode.`,
      };
    }
    const raw = toolName === 'NotebookEdit' ? input.notebook_path : input.file_path;
    if (typeof raw !== 'string' || raw === '') return { kind: 'deny', message: `Control Center: a ${toolName} call without a file path is refused (fail closed).` };
    return { kind: 'gate', action: { kind: 'fileWrite', path: isAbsolute(raw) ? resolve(raw) : resolve(context.worktreePath, raw), toolName } };
  }
  if (toolName === ASK_USER_QUESTION_TOOL) return { kind: 'question' };
  if (toolName === EXIT_PLAN_MODE_TOOL) return { kind: 'planReady' };
  if (toolName.startsWith('mcp__')) {
    const surfaced = context.surfacedTools.some((name) => mcpToolName(name) === toolName);
    return surfaced ? { kind: 'allow' } : { kind: 'deny', message: `Control Center: ${toolName} is not on this run's tool surface.` };
  }
  if (UNGATED_TOOLS.has(toolName)) return { kind: 'allow' };
  return { kind: 'deny', message: `Control Center: ${toolName} is not a tool the Control Center knows how to check, so it is refused (fail closed).` };
}
