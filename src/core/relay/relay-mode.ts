import type { AutonomyLevel, Mode } from '../modes.js';

/** The four relay modes of seed 003 (RLY-1), as a provider sees them. */
export const RELAY_MODES = ['agent', 'ask', 'plan', 'autopilot'] as const;

/** A relay mode (RLY-1). */
export type RelayMode = (typeof RELAY_MODES)[number];

/** User-facing names, as the picker shows them. */
export const RELAY_MODE_LABELS: Readonly<Record<RelayMode, string>> = { agent: 'Agent', ask: 'Ask', plan: 'Plan', autopilot: 'Autopilot' };

/**
 * The relay mode a turn runs in, from the space's (mode, autonomy) pair (§0): every read-only mode
 * (plan, review, orchestrate) is `plan` to a provider, chat is `ask` with `askFirst`, `autopilot` with
 * `actFreely`, `agent` otherwise (`proposeOnly` included: the policy engine denies for it, the
 * provider is told nothing more).
 */
export function relayModeOf(mode: Mode, autonomy: AutonomyLevel): RelayMode {
  if (mode !== 'chat') return 'plan';
  if (autonomy === 'askFirst') return 'ask';
  if (autonomy === 'actFreely') return 'autopilot';
  return 'agent';
}
