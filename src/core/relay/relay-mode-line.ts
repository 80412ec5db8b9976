import { RELAY_MODE_LABELS, type RelayMode } from './relay-mode.js';

/**
 * What each non-agent mode asks of a provider that has no settable mode (RLY-7: Grok for all three,
 * Cursor for ask and autopilot). The words are a request to the agent, never an enforcement.
 */
const INSTRUCTIONS: Readonly<Record<Exclude<RelayMode, 'agent'>, string>> = {
  ask: 'Before any action that changes files, runs commands with side effects or contacts other systems, ask the user and wait for the answer. Use a question card when you need the user.',
  plan: 'Plan first: read and investigate, but do not change code. Outline the steps of the change and end with the plan for the user to review.',
  autopilot: 'Work without stopping to ask for confirmation; finish the task on your own. Ask the user (with a question card) only when you really need them.',
};

/**
 * RLY-8: the line to prepend to a message for a provider without a settable mode, or `null` when
 * none is due. A line is sent only when the mode changes (it then stays in force until the next
 * change); switching to `agent` from another mode says the earlier instructions no longer apply.
 * `modes` lists the relay modes the provider handles through this line (Grok: ask, plan, autopilot;
 * Cursor: ask, autopilot — its plan is native); a change into a mode outside the list still revokes
 * an earlier line-borne mode. `previous` is the mode of the last message the provider received in
 * this conversation, `null` for the first one (a first message in `agent` carries no line).
 */
export function relayModeLine(previous: RelayMode | null, next: RelayMode, modes: readonly RelayMode[]): string | null {
  if (previous === next) return null;
  const nextByLine = next !== 'agent' && modes.includes(next);
  if (nextByLine) return `[Relay mode: ${RELAY_MODE_LABELS[next]}] ${INSTRUCTIONS[next as Exclude<RelayMode, 'agent'>]}`;
  const previousByLine = previous !== null && previous !== 'agent' && modes.includes(previous);
  if (previousByLine) return `[Relay mode: ${RELAY_MODE_LABELS[next]}] The earlier ${RELAY_MODE_LABELS[previous]} mode instructions no longer apply.`;
  return null;
}
