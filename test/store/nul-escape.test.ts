import { describe, expect, it } from 'vitest';
import { escapeNul, escapeNulDeep, unescapeNul, unescapeNulDeep } from '../../src/store/nul-escape.js';

const MARKER = '\uFDD0';

/** SEC, WS-3: the PostgreSQL store's reversible escape of NUL — no NUL out, every string back. */
describe('NUL escape of the PostgreSQL store (SEC)', () => {
  it('leaves no NUL, and every string round-trips, marker and look-alikes included', () => {
    const alphabet = ['\u0000', MARKER, '0', 'a', 'é', '\uD83D\uDE00'];
    const samples: string[] = ['', 'plain text', `${MARKER}0`, `${MARKER}${MARKER}0`, `${MARKER}`, `a${MARKER}`];
    // Every string of up to four symbols over an alphabet holding both escaped characters and the code digit.
    const grow = (prefix: string, left: number): void => {
      samples.push(prefix);
      if (left > 0) for (const symbol of alphabet) grow(prefix + symbol, left - 1);
    };
    grow('', 4);
    for (const text of samples) {
      const stored = escapeNul(text);
      expect(stored.includes('\u0000'), JSON.stringify(text)).toBe(false);
      expect(unescapeNul(stored), JSON.stringify(text)).toBe(text);
    }
    expect(escapeNul('no escape needed')).toBe('no escape needed');
  });

  it('escapes strings anywhere in a job payload, keys included, and leaves other values alone', () => {
    const payload = { text: 'a\u0000b', list: ['\u0000', 1, null, true], nested: { 'k\u0000': `${MARKER}0` }, count: 3 };
    const stored = escapeNulDeep(payload);
    expect(JSON.stringify(stored)).not.toContain('\\u0000');
    expect(unescapeNulDeep(stored)).toEqual(payload);
  });
});
