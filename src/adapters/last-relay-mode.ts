import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { relayModeLine } from '../core/relay/relay-mode-line.js';
import { RELAY_MODES, type RelayMode } from '../core/relay/relay-mode.js';

/** The file, in a runner's per-conversation state directory, that holds the relay mode of its last message. */
const LAST_MODE_FILE = 'relay-mode';

/**
 * The relay mode the provider last received in this conversation (RLY-8), or null for a first
 * message. Anything unreadable or unknown in the file counts as "none": the worst case is one
 * repeated `[Relay mode: …]` line, never a missing one.
 */
export async function readLastRelayMode(stateDir: string): Promise<RelayMode | null> {
  const stored = await readFile(join(stateDir, LAST_MODE_FILE), 'utf8').then(
    (value) => value.trim(),
    () => '',
  );
  return (RELAY_MODES as readonly string[]).includes(stored) ? (stored as RelayMode) : null;
}

/**
 * RLY-8 for a provider without a settable mode (or with only some modes of its own): the
 * `[Relay mode: …]` line this message needs given the last one the provider received — only on a
 * change, revoking an earlier line-borne mode when leaving it — and the mode recorded for the next
 * message. `byLine` lists the relay modes that travel as the line for this provider.
 */
export async function nextRelayModeLine(stateDir: string, mode: RelayMode, byLine: readonly RelayMode[]): Promise<string | null> {
  const previous = await readLastRelayMode(stateDir);
  await writeFile(join(stateDir, LAST_MODE_FILE), mode, { mode: 0o600 });
  return relayModeLine(previous, mode, byLine);
}
