import type { RelayMode } from '../../core/relay/relay-mode.js';

/** Cursor's own tools that only read (the SDK's public tool names); they run unasked. */
export const CURSOR_READ_TOOLS = ['read', 'grep', 'glob', 'ls', 'semSearch', 'readLints', 'readTodos', 'updateTodos'] as const;

/** The MCP server name the Control Center's product tools are offered under. */
export const CONTROL_CENTER_MCP_SERVER = 'control-center';
/** The MCP provider the SDK serves the host's in-process tools (`customTools`) as. */
export const HOST_TOOLS_PROVIDER = 'custom-user-tools';

/**
 * What the SDK is told to offer (`tools`): Cursor's read tools and the MCP family (the Control
 * Center's server and the host tools). Cursor's own `shell`, `edit`, `write`, `delete`, `task`
 * (subagents keep their own toolsets) and everything else are left out in every mode; the host tools
 * replace the first two with gated versions in the writable modes.
 */
export function cursorToolAllowlist(): string[] {
  return [...CURSOR_READ_TOOLS, 'mcp'];
}

/**
 * The host's own check of each tool call the SDK reports (RLY-7): null when the call is on the
 * surface the host gave, else why not. `createPlan` is Cursor's plan signal and is only expected in
 * plan. An MCP call must name one of the two servers the host configured. This check sees a call as
 * it is reported, so a call it refuses may already have run: the transport cancels the turn at once.
 */
export function offSurfaceReason(call: { name: string; args: unknown }, relayMode: RelayMode): string | null {
  if ((CURSOR_READ_TOOLS as readonly string[]).includes(call.name)) return null;
  if (call.name === 'createPlan') return relayMode === 'plan' ? null : 'Cursor’s createPlan outside plan mode';
  if (call.name === 'mcp') {
    const args = typeof call.args === 'object' && call.args !== null ? (call.args as Record<string, unknown>) : {};
    const provider = typeof args.providerIdentifier === 'string' ? args.providerIdentifier : '';
    if (provider === CONTROL_CENTER_MCP_SERVER || provider === HOST_TOOLS_PROVIDER) return null;
    return `an MCP call to a server the host did not configure (${JSON.stringify(provider.slice(0, 80))})`;
  }
  return `Cursor’s own \`${call.name.slice(0, 80)}\` tool, which the host did not offer${relayMode === 'plan' ? ' (plan mode allows reads only)' : ''}`;
}
