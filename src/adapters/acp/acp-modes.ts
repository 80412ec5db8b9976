import { RELAY_MODES, type RelayMode } from '../../core/relay/relay-mode.js';

/** A session mode an ACP agent advertises (`session/new` → `modes.availableModes`). */
export interface AcpSessionMode {
  id: string;
  name?: string | null;
}

/**
 * Which advertised ACP session mode stands for each relay mode (RLY-7), by id first, then by name,
 * case-insensitively. The ids are the ones ACP agents use (Claude's adapters: `default`,
 * `acceptEdits`, `plan`, `bypassPermissions`; others `ask`, `code`, `architect`…). A mode that would
 * stop the agent asking the host (`bypassPermissions`, `yolo`, `dontAsk`) is never chosen: the
 * permission request is where the policy gate answers (POL-1).
 */
const CANDIDATES: Readonly<Record<RelayMode, readonly string[]>> = {
  agent: ['default', 'agent', 'code'],
  ask: ['ask'],
  plan: ['plan', 'architect'],
  autopilot: ['acceptedits', 'autopilot'],
};

/**
 * Mode ids that would silence permission requests: never selected, whatever they are called. xAI's
 * Grok CLI (`grok agent stdio`) has `always-approve` (approves every call) and `auto` (a classifier
 * approves the calls it deems safe without asking the client), so neither may stand for autopilot:
 * the permission request is where the policy gate answers, and autopilot goes as the RLY-8 line.
 */
const NEVER = new Set(['bypasspermissions', 'yolo', 'dontask', 'dont-ask', 'full-access', 'always-approve', 'alwaysapprove', 'auto']);

const key = (value: string | null | undefined) => (value ?? '').trim().toLowerCase().replace(/[\s_]/g, '');

/** The advertised mode id for a relay mode, or null when the agent has none that fits. */
export function acpModeFor(relayMode: RelayMode, available: readonly AcpSessionMode[]): string | null {
  const usable = available.filter((mode) => !NEVER.has(key(mode.id)));
  for (const candidate of CANDIDATES[relayMode]) {
    const match = usable.find((mode) => key(mode.id) === candidate) ?? usable.find((mode) => key(mode.name) === candidate);
    if (match) return match.id;
  }
  return null;
}

/**
 * The relay modes this agent cannot be put in natively: they travel as the RLY-8 `[Relay mode: …]`
 * line instead (an agent without modes gets every mode that way).
 */
export function relayModesByLine(available: readonly AcpSessionMode[]): RelayMode[] {
  return RELAY_MODES.filter((mode) => mode !== 'agent' && acpModeFor(mode, available) === null);
}
