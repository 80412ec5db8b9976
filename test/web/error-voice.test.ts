import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainSentence, voiceOf as voiceWith } from '../../web/src/ui/error-voice.js';
import { fieldWord } from '../../web/src/ui/words.js';

const voiceOf = (message: string, field?: string) => voiceWith(message, field, fieldWord);

const SPEC_ID = /\b[A-Z]{2,5}-\d+\b/;

describe('one voice for errors (UI)', () => {
  it('names the field by its label and says the rest as a sentence', () => {
    expect(voiceOf('scopeId: a space rule needs the space id', 'scopeId')).toBe('Scope: A space rule needs the space id.');
    expect(voiceOf('title: must not be empty', 'title')).toBe('Title: Must not be empty.');
    expect(voiceOf('skills.2: must be a known skill', 'skills.2')).toBe('Skills, item 3: Must be a known skill.');
  });

  it('drops spec ids, code quotes and internal ids', () => {
    expect(voiceOf(`run run_0192a3b4c5d60000ab12cd34ef is not in progress; only running turns can be steered (HAR-5)`, 'runId')).toBe(
      'Run: Run is not in progress; only running turns can be steered.',
    );
    expect(
      voiceOf('run run_0192a3b4c5d60000ab12cd34ef: Claude Agent SDK (`claude-agent-sdk`) does not support pausing a running turn: its transport does not declare the `pauseResume` capability', 'runId'),
    ).toBe('Run: Claude Agent SDK does not support pausing a running turn.');
    expect(voiceOf("rule 'rule_0192a3b4c5d60000ab12cd34ef' not found", 'ruleId')).toBe('Rule: Rule not found.');
  });

  it('leaves the request-level message without a field label', () => {
    expect(voiceOf('give exactly one of command or action', 'body')).toBe('Give exactly one of command or action.');
    expect(voiceOf('internal server error')).toBe('Internal server error.');
  });

  it('for any message: one sentence, no spec id, no backticks', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom('HAR-5', 'POL-3', 'SEC-1', 'CAP-4'), (text, id) => {
        const sentence = plainSentence(`${text} (${id})`);
        expect(sentence).not.toMatch(SPEC_ID);
        expect(sentence).not.toContain('`');
        expect(sentence).toMatch(/[.!?…]$/);
      }),
    );
  });
});
