import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAgainstSchema, evaluateCondition, resolvePlaceholders } from '../../../src/core/pipelines/index.js';

describe('placeholders (PIPE-1)', () => {
  const sources = new Map<string, unknown>([
    ['research', { summary: 'done', items: ['x', 'y'], count: 3 }],
    ['trigger', { body: { ref: 'main' } }],
  ]);

  it('substitutes upstream outputs; objects render as JSON', () => {
    expect(resolvePlaceholders('{{research.summary}} / {{ research.items.1 }} / {{trigger.body}}', sources)).toEqual({ ok: true, text: 'done / y / {"ref":"main"}' });
  });

  it('an unresolved placeholder fails the whole resolution, listing each one', () => {
    expect(resolvePlaceholders('{{research.missing}} {{other}} {{research.summary}}', sources)).toEqual({ ok: false, unresolved: ['{{research.missing}}', '{{other}}'] });
    expect(resolvePlaceholders('{{research.__proto__}} {{research.constructor}}', sources)).toEqual({ ok: false, unresolved: ['{{research.__proto__}}', '{{research.constructor}}'] });
  });

  it('substituted values are never re-expanded (hostile upstream output stays text)', () => {
    fc.assert(
      fc.property(fc.string(), (hostile) => {
        const result = resolvePlaceholders('[{{a}}]', new Map([['a', `${hostile}{{b}}`]]));
        expect(result).toEqual({ ok: true, text: `[${hostile}{{b}}]` });
      }),
    );
  });
});

describe('condition expressions', () => {
  const sources = new Map<string, unknown>([['check', { status: 'green', count: 3, ok: true, empty: [] }]]);
  it.each([
    ['{{check.status}} == green', true],
    ['{{check.status}} == "green"', true],
    ['{{check.status}} != green', false],
    ['{{check.count}} >= 3', true],
    ['{{check.count}} < 2', false],
    ['{{check.ok}}', true],
    ['{{check.empty}}', false],
    ['true', true],
    ['false', false],
  ])('%s → %s', (expression, expected) => {
    expect(evaluateCondition(expression, sources)).toEqual({ ok: true, value: expected });
  });

  it('an unresolved operand is an error, not false', () => {
    expect(evaluateCondition('{{check.nothing}} == 1', sources)).toMatchObject({ ok: false });
    expect(evaluateCondition('{{check.status}} == == 1', sources)).toMatchObject({ ok: false });
  });
});

describe('output schema check', () => {
  const schema = { type: 'object', required: ['summary', 'gaps'], properties: { summary: { type: 'string', minLength: 1 }, gaps: { type: 'array', items: { type: 'string' } } }, additionalProperties: false };
  it('accepts a conforming value and lists every problem of one that is not', () => {
    expect(checkAgainstSchema({ summary: 'ok', gaps: [] }, schema)).toEqual([]);
    expect(checkAgainstSchema({ summary: '', gaps: [1], extra: true }, schema)).toEqual(['$.summary: shorter than 1', '$.gaps[0]: expected string, got integer', '$.extra: not allowed']);
    expect(checkAgainstSchema('text', schema)).toEqual(['$: expected object, got string']);
  });
});
