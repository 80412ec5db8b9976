import type { RelayMode } from '../../core/relay/relay-mode.js';

/** Copilot's per-message `agentMode` values the relay uses (RLY-7). */
export type CopilotAgentMode = 'interactive' | 'plan' | 'autopilot';

/**
 * RLY-7 for Copilot: plan → Copilot's `plan` mode, autopilot → `autopilot`, agent and ask →
 * `interactive`. Ask differs from agent only at the host: each permission request becomes a
 * question card instead of going straight to the policy gate.
 */
export function copilotAgentMode(mode: RelayMode): CopilotAgentMode {
  if (mode === 'plan') return 'plan';
  if (mode === 'autopilot') return 'autopilot';
  return 'interactive';
}
