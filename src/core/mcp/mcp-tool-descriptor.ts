import { EFFECT_CLASSES, WORLD_CHANGING_EFFECT_CLASSES, type EffectClass } from '../effect-classes.js';
import type { ToolDescriptor } from '../tool-descriptor.js';

/** The prefix every operator MCP tool's agent-facing name starts with; no built-in or product tool uses it. */
export const MCP_TOOL_PREFIX = 'mcp__';

/**
 * The name an agent calls a server's tool by (TOOL-2): `mcp__<server>__<tool>`, the tool's own name
 * reduced to the characters every provider accepts in a tool name. Null when the result would not be
 * a usable name (too long, or nothing left of it): such a tool is listed for the operator but never
 * offered to an agent.
 */
export function mcpAgentToolName(serverName: string, toolName: string): string | null {
  const safe = toolName.replace(/[^A-Za-z0-9_-]/g, '_');
  if (!/[A-Za-z0-9]/.test(safe)) return null;
  const name = `${MCP_TOOL_PREFIX}${serverName}__${safe}`;
  // 64 is the shortest limit among the providers (OpenAI's function names).
  return name.length <= 64 ? name : null;
}

/** Until the operator assigns classes, a tool declares every class (TOOL-2): the policy then asks for every call. */
export const UNREVIEWED_MCP_TOOL_EFFECTS: readonly EffectClass[] = EFFECT_CLASSES;

const WORLD_CHANGING: ReadonlySet<EffectClass> = new Set(WORLD_CHANGING_EFFECT_CLASSES);

/**
 * The descriptor of an operator MCP tool, from the classes the operator assigned. The tier follows the
 * classes, so the tool appears exactly in the modes whose profile allows them (CAP-1a): a tool with a
 * world-changing class is execute level (chat only); one with none — or only network egress and
 * secret access, which read-only modes keep for research (CAP-4) — is read level and reaches plan and
 * review too. It never writes the worktree: a stdio server's sandbox does not mount it.
 */
export function mcpToolDescriptor(agentToolName: string, description: string, effects: readonly EffectClass[]): ToolDescriptor {
  const worldChanging = effects.some((effect) => WORLD_CHANGING.has(effect));
  return { name: agentToolName, description, tier: worldChanging ? 'execute' : 'read', effects: [...effects], writesWorktree: false, group: 'mcp' };
}
