import { declareRunnerCapabilities } from '../runner-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';

/** The `adapterId` of agents that run on OpenAI Codex (`codex app-server`, RLY-7). */
export const CODEX_ADAPTER_ID = 'codex';

/**
 * What the Codex transport supports (ADP-1, RLY-7). Codex runs its commands in its own read-only
 * sandbox; a command that must escape it (any write) and every patch come to the host as approval
 * requests, which the policy engine answers. Commands that stay inside Codex's read-only sandbox
 * (reads) run without asking, so shell commands are not gated on every call; the OS sandbox around
 * the app-server (the worktree read-only in read-only modes) bounds everything it runs.
 * The completion contract is observed: a completed MCP call of the output verb; a turn without it is
 * followed by a reminder turn (twice at most), then the run is flagged.
 * No steer/pause (a turn's input is fixed at start); cancel interrupts the turn and ends the process.
 */
export const CODEX_CAPABILITIES = declareRunnerCapabilities({
  adapterId: CODEX_ADAPTER_ID,
  label: 'OpenAI Codex',
  productToolsOverMcp: true,
  structuralModes: ['chat'],
  sandbox: true,
  // SKL-5: the scanned set is materialized into the run's folder, Codex's only extra skills root;
  // every other skill its discovery finds (checkout, CODEX_HOME, bundled) is switched off per turn.
  skills: 'scannedOnly',
  honours: {
    agentFields: { modelId: "Codex's model setting", effort: "Codex's model_reasoning_effort (the reasoning effort of every Responses request)", ...PROMPT_FIELDS },
    effortDefaultModelId: 'gpt-5.4',
    spaceSettings: { autonomy: "every write and patch Codex wants is an approval request the policy engine answers" },
  },
});
