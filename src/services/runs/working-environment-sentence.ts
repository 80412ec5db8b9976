import { runsToolsOnHost, type TransportCapabilities } from '../../adapters/transport-capabilities.js';

/**
 * The system prompt's sentence about where the run works and what checks its tools (CAP-7: the
 * prompt promises nothing the transport does not do). A runner is told its own file and shell tools
 * are checked only when its transport declares both gated on every call (Claude Code, the Claude
 * Agent SDK); one that asks only for some actions (Codex, ACP, Copilot) or never (the Grok CLI) is
 * told the sandbox bounds the rest. The MCP server is named only to a runner that gets it.
 */
export function workingEnvironmentSentence(capabilities: TransportCapabilities): string {
  if (runsToolsOnHost(capabilities)) return `Your working directory is the conversation's worktree. Paths are relative to it; paths that leave it are refused.`;
  const checks =
    capabilities.gates.shellCommands && capabilities.gates.fileWrites
      ? 'Your own file and shell tools are checked by the Control Center before they run.'
      : 'The Control Center does not check every action of your own file and shell tools before it runs; the sandbox bounds what they do.';
  const productTools = capabilities.gates.productTools ? "The Control Center's tools come from its MCP server." : 'The Control Center offers no tools of its own in this session.';
  return `Your working directory is the conversation's worktree. ${checks} ${productTools}`;
}
