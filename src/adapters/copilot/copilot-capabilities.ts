import { declareRunnerCapabilities } from '../runner-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';
import type { TransportCapabilities } from '../transport-capabilities.js';

/** The `adapterId` of agents that run on GitHub Copilot through `@github/copilot-sdk` (RLY-7). */
export const COPILOT_ADAPTER_ID = 'copilot';

/**
 * What the Copilot transport supports (ADP-1, RLY-7). The Copilot runtime asks the host
 * (`onPermissionRequest`) before every shell command, file write, URL fetch and MCP call it does not
 * consider read-only; the host approves reads itself and puts the rest to the policy gate (agent,
 * autopilot), refuses it (plan) or shows a question card after the policy allowed it (ask). A command
 * the runtime classifies as read-only is approved without the gate, so shell commands and file writes
 * are not declared gated on every call: the OS sandbox around the runtime (the worktree mounted
 * read-only in read-only modes) bounds what it runs. Product tools reach Copilot over MCP.
 * The completion contract is observed: a successful call of the output verb on the Control Center's
 * MCP server; a turn without it is followed by a reminder message (twice at most), then the run is
 * flagged. No steer/pause; cancel aborts the turn and ends the runtime process.
 */
export const COPILOT_CAPABILITIES = declareRunnerCapabilities({
  adapterId: COPILOT_ADAPTER_ID,
  label: 'GitHub Copilot (SDK)',
  productToolsOverMcp: true,
  structuralModes: ['chat'],
  sandbox: true,
  // SKL-5: the scanned set is materialized into the run's folder, the session's only skill directory;
  // every other skill the runtime loads (built-ins, COPILOT_HOME's) is disabled before each message.
  skills: 'scannedOnly',
  honours: {
    agentFields: { modelId: "the session's model", effort: "the session's reasoningEffort (the reasoning effort of every Responses request)", ...PROMPT_FIELDS },
    effortDefaultModelId: 'gpt-5.4',
    spaceSettings: { autonomy: "every permission request of Copilot's tools is answered by the policy engine" },
  },
});

/** The `adapterId` of agents that run on Copilot's extension engine (RLY-7, the second Copilot row). */
export const COPILOT_EXTENSION_ADAPTER_ID = 'copilot-extension';

/**
 * The extension engine: the same runtime, sandbox, offline BYOK provider and MCP server as the SDK
 * engine, but no permission checks (every request is approved) and no Copilot modes — the relay mode
 * is the RLY-8 line at the start of a message when it changes. Only the OS sandbox bounds what it does
 * (the worktree mounted read-only in read-only modes with bubblewrap); product tools are still decided
 * by the MCP server, and the completion contract is observed the same way.
 */
export const COPILOT_EXTENSION_CAPABILITIES: TransportCapabilities = {
  ...COPILOT_CAPABILITIES,
  adapterId: COPILOT_EXTENSION_ADAPTER_ID,
  label: 'GitHub Copilot (extension engine)',
  structuralModes: [],
  // No permission checks in this engine: the dial could not hold back a single native tool call.
  honours: { ...COPILOT_CAPABILITIES.honours, spaceSettings: {} },
};
