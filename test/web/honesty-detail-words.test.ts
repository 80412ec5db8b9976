import { describe, expect, it } from 'vitest';
import { honestyMatrix } from '../../src/adapters/honesty-matrix.js';
import { AUTONOMY_LEVELS } from '../../src/core/modes.js';
import { statedValuesAsWords, EFFECT_KINDS } from '../../web/src/ui/words.js';

/** The honesty page's details as a person reads them: the parts outside backticks (those are set as code). */
const prose = (detail: string) => detail.split('`').filter((_, index) => index % 2 === 0).join(' ');

describe('the honesty matrix says our own values in words (UI)', () => {
  it('effect classes, dial levels and run flags in a detail become words; other programs’ names stay', () => {
    expect(statedValuesAsWords('A `git push` typed in a command line is classified gitPush')).toBe('A `git push` typed in a command line is classified “pushes to a remote”');
    expect(statedValuesAsWords('Ask = autonomy askFirst; Autopilot = actFreely')).toBe('Ask = autonomy Ask first; Autopilot = Act freely');
    expect(statedValuesAsWords('then the run is flagged deliverableFailed')).toBe('then the run is flagged as not delivered');
    expect(statedValuesAsWords('Copilot’s agentMode is sent, in `networkEgress`')).toBe('Copilot’s agentMode is sent, in `networkEgress`');
  });

  it('no detail of any transport leaves an effect class, a dial level or deliverableFailed outside code', () => {
    const own = new Set<string>([...EFFECT_KINDS, ...AUTONOMY_LEVELS, 'deliverableFailed']);
    const left: string[] = [];
    for (const adapter of honestyMatrix().adapters) {
      for (const row of adapter.rows) {
        for (const [word] of prose(statedValuesAsWords(row.detail)).matchAll(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g)) if (own.has(word)) left.push(`${adapter.id} ${row.key}: ${word}`);
      }
    }
    expect(left).toEqual([]);
  });
});
