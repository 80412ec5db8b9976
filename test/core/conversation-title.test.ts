import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUTO_TITLE_MAX, titleFromMessage } from '../../src/core/conversation-title.js';

/** The characters a display name refuses (schemas/common.ts), which an auto-title must never carry. */
// eslint-disable-next-line no-control-regex -- the test looks for exactly these
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

describe('auto-titles from the first message (UI)', () => {
  it('takes the first readable line without slash commands or markdown marks', () => {
    expect(titleFromMessage('Fix the login bug on Safari\nIt fails after the redirect.')).toBe('Fix the login bug on Safari');
    expect(titleFromMessage('\n\n  # Plan the **billing** export  \nsteps…')).toBe('Plan the billing export');
    expect(titleFromMessage('/plan add a `--json` flag to the CLI')).toBe('add a --json flag to the CLI');
    expect(titleFromMessage('- first item')).toBe('first item');
  });

  it('leaves out directive lines meant for a model and a slash command with an argument', () => {
    expect(titleFromMessage('TOOL bash {"command":"ls -la"}\nList the files in the repo')).toBe('List the files in the repo');
    expect(titleFromMessage('TOOL write_file\nREPLY\n/skill:review check the diff')).toBe('check the diff');
    // Prose that starts in capitals is a title, not a directive.
    expect(titleFromMessage('FIX the login bug on Safari')).toBe('FIX the login bug on Safari');
    expect(titleFromMessage('TOOL bash {"command":"ls"}')).toBeNull();
  });

  it('cuts a long line at a word boundary with an ellipsis', () => {
    const title = titleFromMessage('Please refactor the payment reconciliation service so that retries are idempotent and observable')!;
    expect(title.length).toBeLessThanOrEqual(AUTO_TITLE_MAX);
    expect(title.endsWith('…')).toBe(true);
    expect(title).toBe('Please refactor the payment reconciliation service so that…');
  });

  it('gives nothing for a message with nothing readable (the conversation stays untitled)', () => {
    expect(titleFromMessage('')).toBeNull();
    expect(titleFromMessage('   \n\t\n')).toBeNull();
    expect(titleFromMessage('/plan')).toBeNull();
    expect(titleFromMessage('\u202e\u200b')).toBeNull();
  });

  it('strips bidi overrides and zero-width characters an agent or a paste could hide in a title', () => {
    expect(titleFromMessage('Deploy \u202etxt.exe\u202c now')).toBe('Deploy txt.exe now');
  });

  it('for any text: deterministic, at most the limit, single line, no unsafe characters, trimmed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const title = titleFromMessage(text);
        expect(titleFromMessage(text)).toBe(title);
        if (title === null) return;
        expect(title.length).toBeGreaterThan(0);
        expect(title.length).toBeLessThanOrEqual(AUTO_TITLE_MAX);
        expect(title).not.toMatch(UNSAFE);
        expect(title).toBe(title.trim());
      }),
    );
  });
});
