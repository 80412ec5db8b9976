import { declareRunnerCapabilities } from '../runner-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';

/** The `adapterId` of agents that run on the Claude Code CLI. */
export const CLAUDE_CODE_ADAPTER_ID = 'claude-code';

/**
 * What the Claude Code transport supports (ADP-3). `claude -p` takes the turn's input at start and
 * only reminders after it, so the Control Center cannot steer or pause it mid-turn (cancel kills
 * the process tree). Its `Agent` tool runs subagents inside the CLI; its native reads are not
 * hooked. The completion contract is observed where the output verb exists (plan: `submit_plan`
 * over MCP, and orchestrate: `propose_orchestration` over MCP).
 */
export const CLAUDE_CODE_CAPABILITIES = declareRunnerCapabilities({
  adapterId: CLAUDE_CODE_ADAPTER_ID,
  label: 'Claude Code CLI',
  productToolsOverMcp: true,
  gatesShellAndWrites: true,
  structuralModes: ['chat'],
  sandbox: true,
  skills: 'scannedOnly',
  // TOOL-3: its stream-json input takes a user message of content blocks, images included.
  imageAttachments: true,
  honours: {
    agentFields: { modelId: 'passed as --model', effort: 'passed as --effort', ...PROMPT_FIELDS },
    spaceSettings: { autonomy: "every shell command and file write reaches the policy engine through Claude Code's PreToolUse hook" },
  },
});
