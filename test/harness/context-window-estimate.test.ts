/**
 * CTX-1: a run's context window keeps a running estimate of the loop's message list instead of
 * summing the whole conversation on every model call. The property: after any mix of appended
 * messages, elision rounds (fit over a tight budget) and compactions (the list replaced in place, as
 * the loop does), the running estimate is the estimate of the view summed from scratch, and fit()
 * reports that same figure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextWindow } from '../../src/harness/context-window.js';
import type { ModelMessage } from '../../src/llm/model-types.js';

type Step = { kind: 'call'; size: number } | { kind: 'user'; size: number } | { kind: 'fit' } | { kind: 'compact'; kept: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('call' as const), size: fc.nat({ max: 4_000 }) }),
  fc.record({ kind: fc.constant('user' as const), size: fc.nat({ max: 500 }) }),
  fc.record({ kind: fc.constant('fit' as const) }),
  fc.record({ kind: fc.constant('compact' as const), kept: fc.nat({ max: 6 }) }),
);

describe('the context window’s running estimate (CTX-1)', () => {
  it('equals the estimate of the view summed from scratch after appends, elision rounds and compactions', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 60 }), fc.integer({ min: 200, max: 20_000 }), (steps, budget) => {
        const window = new ContextWindow(budget, 'system prompt', [{ name: 'bash', description: 'Run a command.', inputSchema: { type: 'object' } }]);
        const messages: ModelMessage[] = [{ role: 'user', content: 'start' }];
        steps.forEach((step, index) => {
          if (step.kind === 'call') {
            messages.push({ role: 'assistant', content: [{ type: 'tool_call', id: `c${index}`, name: 'bash', input: { command: `step ${index}` } }] });
            messages.push({ role: 'tool', toolCallId: `c${index}`, content: 'x'.repeat(step.size), isError: false });
          } else if (step.kind === 'user') {
            messages.push({ role: 'user', content: 'y'.repeat(step.size) });
          } else if (step.kind === 'fit') {
            const fitted = window.fit(messages);
            expect(fitted.tokens).toBe(window.tokensOf(fitted.view));
          } else {
            // As the loop compacts: the same array, its contents replaced by a summary and a kept tail.
            const tail = messages.slice(messages.length - Math.min(step.kept, messages.length - 1));
            messages.splice(0, messages.length, { role: 'user', content: `summary ${index}` }, ...tail);
          }
          expect(window.viewTokens(messages)).toBe(window.tokensOf(window.view(messages)));
        });
      }),
      { numRuns: 300 },
    );
  });
});
