import { declareRunnerCapabilities } from '../runner-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';

/** The checkout folders ACP agents discover skills in, where the prepare stage writes the scanned set (SKL-5). */
export const ACP_SKILLS_FOLDERS: readonly string[] = ['.agents/skills', '.claude/skills'];

/** The `adapterId` of agents that run on any Agent Client Protocol agent (RLY-7). */
export const ACP_ADAPTER_ID = 'acp';

/**
 * What the ACP transport supports (ADP-1, RLY-7). The host answers every request the agent sends:
 * `session/request_permission` goes to the policy gate (fail closed), `fs/write_text_file` goes
 * through the worktree's confined file access and the gate and is refused in read-only modes,
 * `fs/read_text_file` is confined to the worktree but not gated, `terminal/*` is refused. What the
 * agent does with its own tools without asking (an agent may edit files itself) is not seen by the
 * host, so shell commands and file writes are not declared as gated on every call: only the OS
 * sandbox around the agent bounds those. Product tools reach the agent over MCP.
 * The completion contract is observed as far as the agent reports its tool calls: a completed call
 * of the output verb; a turn without it gets a reminder prompt (twice at most), then the run is flagged.
 * No steer/pause; cancel sends `session/cancel` and ends the process.
 */
export const ACP_CAPABILITIES = declareRunnerCapabilities({
  adapterId: ACP_ADAPTER_ID,
  label: 'ACP agent',
  productToolsOverMcp: true,
  structuralModes: ['chat'],
  sandbox: true,
  // SKL-5: the scanned set is written into the checkout's skills folders, but the agent's own
  // discovery also reads what else is there (the repository's own skills, its HOME).
  skills: 'fedUnbounded',
  // The ACP agent's command chooses its own model; the protocol gives the host no model or effort setting.
  honours: {
    agentFields: { ...PROMPT_FIELDS },
    spaceSettings: { autonomy: "the agent's permission requests and file writes are answered by the policy engine" },
  },
});
