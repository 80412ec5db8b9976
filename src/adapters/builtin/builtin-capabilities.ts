import type { TransportCapabilities } from '../transport-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';

/** The adapter id of the built-in harness (agents with `adapterId: null` run on it). */
export const BUILTIN_ADAPTER_ID = 'builtin';

/**
 * The built-in harness (ADP-2) declared like any transport: every tool is its own, runs on the host
 * and passes the one chokepoint, subagents are child runs, steering and pause act before the next model call.
 * The completion contract is observed in plan mode (`submit_plan`) and orchestrate mode
 * (`propose_orchestration`, ORC-1).
 */
export const BUILTIN_CAPABILITIES: TransportCapabilities = {
  adapterId: BUILTIN_ADAPTER_ID,
  label: 'Built-in harness',
  steer: true,
  pauseResume: true,
  cancel: true,
  subagents: 'childRuns',
  nativeTools: false,
  // The loop runs in the server's process; every tool is called through the run's toolbox.
  toolExecution: 'host',
  // Pushes from a script depend on the host (sandbox, network): decided, but not on every host.
  gates: { toolSurface: true, shellCommands: true, fileWrites: true, reads: true, productTools: true, pushes: false },
  completionContract: ['plan', 'orchestrate'],
  structuralModes: ['chat', 'review', 'plan', 'orchestrate'],
  sandbox: true,
  skills: 'scannedOnly',
  // TOOL-3: the harness builds the provider request itself, image blocks included.
  imageAttachments: true,
  honours: {
    agentFields: {
      modelId: 'the model the harness calls',
      effort: "the model's own effort parameter in every request (adaptive effort or a thinking budget for Claude, reasoning_effort for OpenAI-compatible reasoning models)",
      // CTX-1: the request budget; old tool results are elided and older turns compacted to stay within it.
      contextSize: "every model request's token budget (instead of the model's window): old tool results are elided and older turns compacted to stay within it",
      ...PROMPT_FIELDS,
      skills: 'the scanned skills are listed in the prompt and loaded by the skill tool',
    },
    spaceSettings: { autonomy: 'every tool call is decided by the policy engine under the dial' },
  },
};
