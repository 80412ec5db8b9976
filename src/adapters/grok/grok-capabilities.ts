import type { TransportCapabilities } from '../transport-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';

/** The `adapterId` of agents that run on the npm Grok CLI (`@vibe-kit/grok-cli`, RLY-7). */
export const GROK_ADAPTER_ID = 'grok';

/**
 * What the Grok transport supports (ADP-1, RLY-7). The npm Grok CLI in headless mode approves every
 * tool call itself and offers no hook, no permission callback and no settable mode: the host sees its
 * tool calls only after the turn, in the transcript it prints. So nothing is gated by the policy
 * engine — only the OS sandbox bounds what it does (the worktree read-only in read-only modes, which
 * is why a plan turn refuses to start without one). Modes reach it as the RLY-8 `[Relay mode: …]`
 * line. The Control Center's product tools reach it over MCP (a stdio bridge to the run's MCP
 * endpoint, the only MCP server it is given), each call decided by the MCP server's gate; the
 * completion contract is observed (a successful call of the output verb, else two reminders as
 * further messages to the same process, then the run is flagged). A plan-like answer in a read-only
 * turn shows the Plan ready board. Steer (HAR-5, RLY-9): operator text sent into the running turn joins
 * the CLI's conversation before its next model call (the turn keeps its opening mode). Pause
 * (HAR-5): the CLI reaches its model only through the host's model proxy with the run token, which
 * holds a paused run's next model request until resume — a tool call already running finishes
 * first. Cancel ends the process, paused or not.
 */
export const GROK_CAPABILITIES: TransportCapabilities = {
  adapterId: GROK_ADAPTER_ID,
  label: 'Grok CLI',
  steer: true,
  pauseResume: true,
  cancel: true,
  subagents: 'inRunner',
  nativeTools: true,
  gates: { toolSurface: false, shellCommands: false, fileWrites: false, reads: false, productTools: true, pushes: false },
  completionContract: ['plan', 'orchestrate'],
  structuralModes: [],
  sandbox: true,
  // SKL-5: grok-cli 0.0.34 has no skill discovery (and its own instruction files are not read: the
  // preload stubs them out); skills reach it only through the prompt and the `skill` tool over MCP.
  skills: 'hostSkillTool',
  // The CLI approves its own tool calls: the dial could not hold back a single native tool call.
  honours: { agentFields: { modelId: "the CLI's --model", ...PROMPT_FIELDS }, spaceSettings: {} },
};
