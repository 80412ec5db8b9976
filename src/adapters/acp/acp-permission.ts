import type { TransportAction } from '../../core/transport-gate.js';

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** One option of a `session/request_permission` request. */
export interface AcpPermissionOption {
  optionId: string;
  kind: string;
  name?: string;
}

/** What the host makes of one permission request before the gate sees it. */
export type AcpPermissionAsk =
  /** Reading or searching: the agent reads inside its OS sandbox; not gated, as on the other runners. */
  | { kind: 'read' }
  /**
   * A call of one of the run's Control Center MCP tools: allowed here because the MCP server puts the
   * call itself through the gate (HAR-3, POL-1); asking the gate twice would refuse it as a "command".
   */
  | { kind: 'productTool'; tool: string }
  /** Actions to put to the policy gate, every one of which must pass. */
  | { kind: 'gate'; actions: TransportAction[] }
  /** Refused without asking (a write in a read-only mode, a request naming nothing to check). */
  | { kind: 'refuse'; reason: string };

/** The tool-call kinds of ACP that only read. */
const READ_KINDS = new Set(['read', 'search', 'think']);
/** The tool-call kinds of ACP that change files. */
const WRITE_KINDS = new Set(['edit', 'delete', 'move']);

/** The command line a tool call would run, from its raw input (`command` string or argv), else its title. */
function commandOf(toolCall: Json): string {
  const raw = (typeof toolCall.rawInput === 'object' && toolCall.rawInput !== null ? toolCall.rawInput : {}) as Json;
  if (typeof raw.command === 'string' && raw.command.trim()) return raw.command;
  if (Array.isArray(raw.command)) return raw.command.map(String).join(' ');
  if (typeof raw.cmd === 'string' && raw.cmd.trim()) return raw.cmd;
  return text(toolCall.title);
}

/** The paths a tool call touches: its `locations`, else a `path`/`file_path` in its raw input. */
function pathsOf(toolCall: Json): string[] {
  const locations = Array.isArray(toolCall.locations) ? (toolCall.locations as Json[]).map((location) => text(location?.path)).filter((path) => path) : [];
  if (locations.length > 0) return locations;
  const raw = (typeof toolCall.rawInput === 'object' && toolCall.rawInput !== null ? toolCall.rawInput : {}) as Json;
  return [text(raw.path), text(raw.file_path), text(raw.filePath)].filter((path) => path);
}

/**
 * Classifies a permission request (POL-1, MODE-2). Reads pass; file changes are refused in a
 * read-only mode and otherwise each path goes to the gate as a file write; every other kind
 * (execute, fetch, other, a kind this host does not know) goes to the gate as the command it would
 * run, so the policy's command rules (and the mode floor) decide. Fail closed: a change naming no
 * path, or a command naming nothing, is refused.
 */
export function classifyPermission(toolCall: Json, readOnly: boolean, productTools: readonly string[] = []): AcpPermissionAsk {
  const kind = text(toolCall.kind) || 'other';
  const toolName = `acp:${kind}`;
  if (READ_KINDS.has(kind)) return { kind: 'read' };
  const product = productToolOf(toolCall, kind, productTools);
  if (product) return { kind: 'productTool', tool: product };
  if (WRITE_KINDS.has(kind)) {
    if (readOnly) return { kind: 'refuse', reason: 'this relay mode is read-only' };
    const paths = pathsOf(toolCall);
    if (paths.length === 0) return { kind: 'refuse', reason: 'the request names no file' };
    return { kind: 'gate', actions: paths.map((path) => ({ kind: 'fileWrite', path, toolName })) };
  }
  const command = commandOf(toolCall).trim();
  if (!command) return { kind: 'refuse', reason: 'the request names no command' };
  return { kind: 'gate', actions: [{ kind: 'command', command, toolName }] };
}

/** The MCP name an agent gives a Control Center tool (`mcp__<server>__<tool>`, as claude-agent-acp titles it). */
const CONTROL_CENTER_PREFIX = 'mcp__control-center__';

/**
 * The product tool a request asks to call, or null: only a request of kind `other` (the kind an agent
 * gives an MCP call; never execute, fetch or a file change), naming no file and carrying no command,
 * whose title is exactly a surfaced tool's MCP name. An agent could title anything so; what it is
 * allowed is then only that MCP call, which the MCP server gates (anything else with that title still
 * goes to the gate).
 */
function productToolOf(toolCall: Json, kind: string, productTools: readonly string[]): string | null {
  if (kind !== 'other' || pathsOf(toolCall).length > 0) return null;
  const raw = (typeof toolCall.rawInput === 'object' && toolCall.rawInput !== null ? toolCall.rawInput : {}) as Json;
  if (raw.command !== undefined || raw.cmd !== undefined) return null;
  const title = text(toolCall.title);
  if (!title.startsWith(CONTROL_CENTER_PREFIX)) return null;
  const tool = title.slice(CONTROL_CENTER_PREFIX.length);
  return productTools.includes(tool) ? tool : null;
}

/**
 * The answer to a permission request: a one-time allow or reject option (never an "always" one, so
 * the next call is asked again), or `cancelled` when the agent offered no fitting option.
 */
export function permissionOutcome(options: readonly AcpPermissionOption[], allow: boolean): { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' } {
  const wanted = allow ? ['allow_once'] : ['reject_once', 'reject_always'];
  for (const kind of wanted) {
    const option = options.find((entry) => entry.kind === kind);
    if (option) return { outcome: 'selected', optionId: option.optionId };
  }
  return { outcome: 'cancelled' };
}
