import { declareRunnerCapabilities } from '../runner-capabilities.js';
import { PROMPT_FIELDS } from '../agent-field-support.js';
import type { TransportCapabilities } from '../transport-capabilities.js';

/** The `adapterId` of agents that run on the Claude Agent SDK (RLY-7). */
export const CLAUDE_AGENT_SDK_ADAPTER_ID = 'claude-agent-sdk';

/**
 * What the Claude Agent SDK transport supports (ADP-1, RLY-7). The SDK runs Claude Code's engine in a
 * child process; the host sees every tool call before it runs (an in-process PreToolUse hook and
 * `canUseTool`), so shell commands and native writes are decided by the policy engine, and in the
 * read-only modes every write tool is refused by the host whatever the SDK's plan mode would allow.
 * Reads (Read, Grep, Glob, WebFetch, WebSearch) are let through without asking the policy engine.
 * No steer/pause: a turn's input is fixed at start (reminders aside); cancel ends the process.
 */
export const CLAUDE_AGENT_SDK_CAPABILITIES = declareRunnerCapabilities({
  adapterId: CLAUDE_AGENT_SDK_ADAPTER_ID,
  label: 'Claude Agent SDK',
  productToolsOverMcp: true,
  gatesShellAndWrites: true,
  structuralModes: ['chat'],
  sandbox: true,
  skills: 'scannedOnly',
  // TOOL-3: its streaming input takes a user message of content blocks, images included.
  imageAttachments: true,
  honours: {
    agentFields: { modelId: "the SDK's model option", effort: "the SDK's effort option (Claude's adaptive thinking effort in every request)", ...PROMPT_FIELDS },
    spaceSettings: { autonomy: "every shell command and file write reaches the policy engine through the SDK's permission callback" },
  },
});

/** The `adapterId` of DeepSeek relay agents: the same SDK path with DeepSeek's Anthropic-compatible endpoint (RLY-7). */
export const DEEPSEEK_ADAPTER_ID = 'deepseek';

/** DeepSeek runs on this transport's code unchanged, so it declares exactly the same (ADP-1). */
export const DEEPSEEK_CAPABILITIES: TransportCapabilities = { ...CLAUDE_AGENT_SDK_CAPABILITIES, adapterId: DEEPSEEK_ADAPTER_ID, label: 'DeepSeek (Claude Agent SDK)',
  // DeepSeek's models take no images, and no test shows its endpoint given one: images are refused for its agents.
  imageAttachments: false,
  // DeepSeek's Anthropic-compatible endpoint documents no effort or thinking-budget parameter.
  honours: { ...CLAUDE_AGENT_SDK_CAPABILITIES.honours, agentFields: { modelId: "the SDK's model option", ...PROMPT_FIELDS } },
};
