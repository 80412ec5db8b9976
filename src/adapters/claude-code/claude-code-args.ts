import { getCapabilityProfile } from '../../core/capability-profiles.js';
import type { Mode } from '../../core/modes.js';
import { anthropicUserContent } from '../../llm/anthropic-message-turns.js';
import type { PromptImage } from '../../llm/model-types.js';

/** The name the Control Center's MCP server has in Claude Code's config: tools are `mcp__control-center__<name>`. */
export const MCP_SERVER_NAME = 'control-center';

/** Claude Code's native tools that change files; removed from the read-only modes' surface (CAP-5). */
export const MUTATING_NATIVE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;

/**
 * Native tools removed in every mode: the Control Center owns the conversation's worktree (HAR-7), so
 * the CLI must not create or switch git worktrees of its own (EnterWorktree is not hooked).
 */
export const WORKTREE_NATIVE_TOOLS = ['EnterWorktree', 'ExitWorktree'] as const;

/** `submit_plan` → `mcp__control-center__submit_plan`. */
export function mcpToolName(name: string): string {
  return `mcp__${MCP_SERVER_NAME}__${name}`;
}

/** The system-prompt sentence that tells Claude Code how the surfaced product tools are called; empty when none are. */
export function mcpToolsSentence(surfaced: readonly string[]): string {
  if (surfaced.length === 0) return '';
  return `The Control Center's tools named above are served to you over MCP: call each as \`${mcpToolName('<name>')}\` (for example \`${mcpToolName(surfaced[0]!)}\`).`;
}

/** HAR-4: the completion contract's reminder, naming the output verb as Claude Code calls it. */
export function mcpReminder(reminder: string, verb: string): string {
  return `${reminder}\n\n(In this runner the tool is called \`${mcpToolName(verb)}\`.)`;
}

export interface ClaudeCodeArgsInput {
  mode: Mode;
  /** `--settings` JSON (the PreToolUse hook). */
  settings: Record<string, unknown>;
  mcp: { url: string; token: string };
  /** Product tools the MCP server offers this run (the mode's surface, already filtered). */
  surfacedTools: readonly string[];
  /** Appended to Claude Code's own system prompt. */
  appendSystemPrompt: string;
  model?: string | null;
  effort?: string | null;
  resumeSessionId?: string | null;
  /** Partial-message stream events (text deltas); on by default. */
  partialMessages?: boolean;
}

/** `--mcp-config` JSON: only the Control Center's server, with the run's bearer token. */
export function mcpConfig(mcp: { url: string; token: string }): Record<string, unknown> {
  return { mcpServers: { [MCP_SERVER_NAME]: { type: 'http', url: mcp.url, headers: { Authorization: `Bearer ${mcp.token}` } } } };
}

const EFFORTS = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/**
 * The command line for one turn of `claude -p` (ADP-3), from the mode's capability profile (CAP-2).
 *
 * - Chat: `--dangerously-skip-permissions`. Non-chat: `--permission-mode plan` and NOT the skip flag:
 *   in 2.1.197 the skip flag wins over `--permission-mode plan` (the init message then reports
 *   `bypassPermissions` and a Write goes through), so passing both would silently drop plan mode.
 * - Read-only modes: the mutating native tools go in `--disallowedTools` (Claude Code then answers
 *   "No such tool available"), and `--allowedTools` names the surfaced MCP tools: in plan permission
 *   mode a tool missing from the allowlist is refused, whether or not the server has it (CAP-8).
 * - `--setting-sources ''`: no user, project or local settings. A worktree `.claude/settings.json`
 *   with `disableAllHooks: true` switches the hook off otherwise, and so does a user settings file
 *   written mid-session (Claude Code reloads it live) — both verified with 2.1.197. `--settings` (flag
 *   settings, a JSON string nobody can edit) still applies.
 * - `--strict-mcp-config`: a `.mcp.json` in the worktree cannot add servers.
 */
export function claudeCodeArgs(input: ClaudeCodeArgsInput): string[] {
  const profile = getCapabilityProfile(input.mode);
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];
  if (input.partialMessages !== false) args.push('--include-partial-messages');
  args.push('--setting-sources', '', '--settings', JSON.stringify(input.settings));
  args.push('--strict-mcp-config', '--mcp-config', JSON.stringify(mcpConfig(input.mcp)));
  const disallowed: string[] = [...WORKTREE_NATIVE_TOOLS];
  if (profile.worktree === 'readOnly') disallowed.push(...MUTATING_NATIVE_TOOLS);
  if (input.mode === 'chat') {
    args.push('--dangerously-skip-permissions');
  } else {
    args.push('--permission-mode', 'plan');
    if (input.surfacedTools.length > 0) args.push('--allowedTools', input.surfacedTools.map(mcpToolName).join(','));
  }
  args.push('--disallowedTools', disallowed.join(','));
  // Values that come from agent definitions, conversation text or a stored session id are glued to
  // their flag (`--flag=value`), so none can be read as an option whatever the CLI's parser does
  // with a separate argument starting with `-` (SEC-2).
  if (input.appendSystemPrompt.trim()) args.push(`--append-system-prompt=${input.appendSystemPrompt}`);
  if (input.model) args.push(`--model=${input.model.replace(/^anthropic\//, '')}`);
  if (input.effort && EFFORTS.has(input.effort)) args.push('--effort', input.effort);
  if (input.resumeSessionId) args.push(`--resume=${input.resumeSessionId}`);
  return args;
}

/** The stream-json input line for one user message; its images (TOOL-3) as content blocks Claude Code passes to the model as they are. */
export function userMessageLine(text: string, images: readonly PromptImage[] = []): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: anthropicUserContent(text, images) } })}\n`;
}
