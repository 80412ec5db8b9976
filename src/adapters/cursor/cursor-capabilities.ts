import { declareRunnerCapabilities } from '../runner-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';

/** The `adapterId` of agents that run on Cursor through `@cursor/sdk` (RLY-7). */
export const CURSOR_ADAPTER_ID = 'cursor';

/**
 * What the Cursor transport supports (ADP-1, RLY-7). The SDK runs the agent inside the server's
 * process and offers the host no permission callback, so the host shapes the agent's surface
 * instead: Cursor's own shell, edit, write, delete and subagent tools are taken away (`tools`
 * allowlist) and replaced by host tools (`run_command`, `write_file`) that go through the policy gate
 * before they run; any tool call outside the allowlist that still arrives cancels the turn — after
 * the fact, which is why shell commands and file writes are not declared gated. Reads are Cursor's
 * own and ungated. Product tools reach Cursor over MCP. No OS sandbox can wrap an in-process SDK:
 * the transport refuses to run unless the operator allowed unsandboxed runners (SEC-6).
 * The completion contract is observed: a completed call of the output verb on the Control Center's
 * MCP server; a turn without it gets a reminder message (twice at most), then the run is flagged.
 * No steer, no pause; cancel cancels the SDK run.
 */
export const CURSOR_CAPABILITIES = declareRunnerCapabilities({
  adapterId: CURSOR_ADAPTER_ID,
  label: 'Cursor (SDK)',
  productToolsOverMcp: true,
  structuralModes: [],
  sandbox: false,
  // SKL-5: the SDK takes no skills folder of the host's choosing (its skills come from its settings
  // layers and the workspace folders, i.e. the checkout), so its settings sources are switched off and
  // skills reach it only through the first message and the `skill` tool over MCP.
  skills: 'hostSkillTool',
  honours: {
    agentFields: { modelId: "the SDK's model option", ...PROMPT_FIELDS },
    spaceSettings: { autonomy: 'the host run_command and write_file tools that replace Cursor\'s own go through the policy engine' },
  },
});
