/**
 * Agent text on its way to a terminal (`control-center chat` and the operator commands):
 * whatever a model, a tool name or a goal holds, what the CLI prints carries no control character
 * that could drive the terminal (ESC, CSI, OSC, BEL, CR) and no invisible formatting (bidi
 * overrides, zero-width) that makes a line read differently from what it is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortInput } from '../../src/cli/chat-turn-watcher.js';
import { cell, excerpt, printable } from '../../src/cli/terminal-text.js';

// eslint-disable-next-line no-control-regex -- the characters that must never reach the terminal
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;
const hostile = fc.array(
  fc.oneof(fc.string(), fc.constantFrom('\u001b[2J', '\u001b]52;c;aGk=\u0007', '\r', '\u009b31m', '\u202e', '\u2066', '\u200b', '\ufeff', '\n', '\t', '\u0008')),
  { maxLength: 12 },
).map((parts) => parts.join(''));

describe('terminal text', () => {
  it('printable keeps only newlines, and only when asked; cell and excerpt stay on one line', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(printable(text, { keepNewlines: true })).not.toMatch(UNSAFE);
        for (const line of [printable(text), cell(text, 40), excerpt(text, 40), shortInput({ command: text }), shortInput({ [text]: text })]) {
          expect(line).not.toMatch(UNSAFE);
          expect(line).not.toContain('\n');
        }
        expect(cell(text, 40)).toHaveLength(40);
        expect(excerpt(text, 40).length).toBeLessThanOrEqual(40);
      }),
    );
  });

  it('readable text passes through unchanged', () => {
    expect(printable('Done: 3 files\nnext step', { keepNewlines: true })).toBe('Done: 3 files\nnext step');
    expect(printable('a\r\nb', { keepNewlines: true })).toBe('a\nb');
    expect(shortInput({ command: 'git status', other: 1 })).toBe('git status');
    expect(shortInput({ n: 1 })).toBe('{"n":1}');
  });
});
