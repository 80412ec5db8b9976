import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { relayModeLine } from '../../../src/core/relay/relay-mode-line.js';
import { RELAY_MODES, relayModeOf, type RelayMode } from '../../../src/core/relay/relay-mode.js';
import { AUTONOMY_LEVELS, MODES } from '../../../src/core/modes.js';

const GROK: readonly RelayMode[] = ['ask', 'plan', 'autopilot'];
const CURSOR: readonly RelayMode[] = ['ask', 'autopilot'];

/** What a provider without a settable mode receives for a sequence of per-message modes. */
function linesFor(sequence: RelayMode[], modes: readonly RelayMode[]): Array<string | null> {
  let previous: RelayMode | null = null;
  return sequence.map((mode) => {
    const line = relayModeLine(previous, mode, modes);
    previous = mode;
    return line;
  });
}

describe('relay mode of a turn (§0, RLY-7)', () => {
  it('maps the space’s (mode, autonomy) onto the four relay modes', () => {
    expect(relayModeOf('chat', 'actWithApproval')).toBe('agent');
    expect(relayModeOf('chat', 'askFirst')).toBe('ask');
    expect(relayModeOf('chat', 'actFreely')).toBe('autopilot');
    expect(relayModeOf('chat', 'proposeOnly')).toBe('agent');
    for (const mode of MODES.filter((entry) => entry !== 'chat')) for (const autonomy of AUTONOMY_LEVELS) expect(relayModeOf(mode, autonomy)).toBe('plan');
  });
});

describe('the [Relay mode: …] line (RLY-8)', () => {
  it('is sent when the mode changes and not repeated while it stays', () => {
    expect(linesFor(['ask', 'ask', 'ask'], GROK)).toEqual([expect.stringMatching(/^\[Relay mode: Ask\] /), null, null]);
    expect(linesFor(['agent', 'plan', 'plan', 'autopilot'], GROK)).toEqual([null, expect.stringMatching(/^\[Relay mode: Plan\] Plan first/), null, expect.stringMatching(/^\[Relay mode: Autopilot\] /)]);
  });

  it('switching back to agent says the earlier instructions no longer apply', () => {
    expect(linesFor(['autopilot', 'agent', 'agent'], GROK)).toEqual([
      expect.stringMatching(/^\[Relay mode: Autopilot\]/),
      '[Relay mode: Agent] The earlier Autopilot mode instructions no longer apply.',
      null,
    ]);
  });

  it('Cursor: plan is native (no line), but leaving ask for plan revokes the ask line', () => {
    expect(linesFor(['plan', 'ask', 'plan', 'agent'], CURSOR)).toEqual([
      null,
      expect.stringMatching(/^\[Relay mode: Ask\]/),
      '[Relay mode: Plan] The earlier Ask mode instructions no longer apply.',
      null,
    ]);
  });

  it('property: a line appears exactly when the mode changes from or to a line-borne mode', () => {
    const mode = fc.constantFrom(...RELAY_MODES);
    fc.assert(
      fc.property(fc.array(mode, { minLength: 1, maxLength: 30 }), fc.constantFrom(GROK, CURSOR), (sequence, modes) => {
        const lines = linesFor(sequence, modes);
        sequence.forEach((current, index) => {
          const previous = index === 0 ? null : sequence[index - 1]!;
          const byLine = (value: RelayMode | null) => value !== null && value !== 'agent' && modes.includes(value);
          const expected = previous !== current && (byLine(current) || byLine(previous));
          expect(lines[index] !== null).toBe(expected);
          if (lines[index]) expect(lines[index]).toMatch(/^\[Relay mode: (Agent|Ask|Plan|Autopilot)\] /);
        });
      }),
    );
  });
});
