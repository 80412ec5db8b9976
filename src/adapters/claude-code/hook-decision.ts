import { isAbsolute, resolve } from 'node:path';
import type { Mode } from '../../core/modes.js';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import type { TransportAction, TransportGateResult } from '../agent-transport.js';

/** Claude Code's native tools whose calls the PreToolUse hook reports (ADP-3). */
export const HOOKED_TOOLS = ['Bash', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;

/** The hook's matcher: an anchored regex, so `BashOutput` and friends are not caught by `Bash`. */
export const HOOK_MATCHER = `^(${HOOKED_TOOLS.join('|')})$`;

/** The part of Claude Code's PreToolUse hook input this adapter reads. */
export interface PreToolUseInput {
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_use_id?: string;
  session_id?: string;
  cwd?: string;
  permission_mode?: string;
}

/** Claude Code's PreToolUse hook output (JSON on stdout, exit 0). `{}` means "no decision". */
export interface PreToolUseOutput {
  hookSpecificOutput?: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'allow' | 'deny';
    permissionDecisionReason: string;
  };
}

/**
 * What the hook reports, as the gate's action: the Bash command line, or the file a native write
 * tool is about to change (relative paths resolve against the worktree). `null` when the input is not
 * something this adapter hooks or lacks the field it needs (the route denies those: fail closed).
 */
export function transportActionOf(input: PreToolUseInput, worktreePath: string): TransportAction | { error: string } {
  const toolName = input.tool_name;
  const toolInput = input.tool_input ?? {};
  if (toolName === 'Bash') {
    const command = toolInput.command;
    if (typeof command !== 'string' || command.trim() === '') return { error: 'Bash call without a command line' };
    return { kind: 'command', command, toolName };
  }
  if (toolName === 'Write' || toolName === 'Edit' || toolName === 'MultiEdit' || toolName === 'NotebookEdit') {
    const raw = toolName === 'NotebookEdit' ? toolInput.notebook_path : toolInput.file_path;
    if (typeof raw !== 'string' || raw === '') return { error: `${toolName} call without a file path` };
    return { kind: 'fileWrite', path: isAbsolute(raw) ? resolve(raw) : resolve(worktreePath, raw), toolName };
  }
  return { error: `${String(toolName)} is not a tool this hook gates` };
}

function decidedByText(result: TransportGateResult): string {
  return `${result.decidedBy.scope}${result.decidedBy.ruleId ? ` rule ${result.decidedBy.ruleId}` : ''}`;
}

/**
 * The hook's answer for a gate result. A deny names the deciding scope and rule (the architecture
 * guide's "denials that do not say which rule decided"). An allow overrides Claude Code's own
 * permission check only in chat mode, where the CLI runs with `--dangerously-skip-permissions` anyway;
 * in the read-only modes the hook gives no decision on allow, so the CLI's own plan-mode checks stay
 * in force as a second layer (a hook `allow` was verified to override plan mode's write refusal).
 */
export function hookOutput(result: TransportGateResult, mode: Mode): PreToolUseOutput {
  if (!result.allow) {
    const reason = result.reason.includes('decided by') ? result.reason : `${result.reason} (decided by ${decidedByText(result)})`;
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: `Control Center: ${reason}` } };
  }
  if (getCapabilityProfile(mode).worktree === 'readOnly') return {};
  return {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: `Control Center: allowed (decided by ${decidedByText(result)})` },
  };
}

/** A deny the hook route gives without asking the gate (malformed input, internal failure). */
export function hookDeny(reason: string): PreToolUseOutput {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: `Control Center: ${reason} (fail closed)` } };
}
