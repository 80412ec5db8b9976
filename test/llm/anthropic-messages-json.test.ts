/**
 * The Anthropic request's messages are written from each message's cached JSON, and the turns an
 * agent loop's previous request already wrote are reused by its next one (all but the last turn,
 * while the messages are the same objects). The property: over a loop's calls — results and steering
 * appended, old results elided to new objects, the list compacted, the caller's own array changed
 * after a call, prompt caching on or off — the JSON is always the messages' Messages API turns as the
 * SDK shape serializes them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicMessagesJson, toAnthropicMessages } from '../../src/llm/anthropic-message-turns.js';
import type { ModelMessage } from '../../src/llm/model-types.js';

type Step = { kind: 'call' } | { kind: 'text' } | { kind: 'steer' } | { kind: 'elide'; at: number } | { kind: 'compact'; kept: number } | { kind: 'send'; caching: boolean; own: boolean };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'call' as const }),
  fc.constant({ kind: 'text' as const }),
  fc.constant({ kind: 'steer' as const }),
  fc.record({ kind: fc.constant('elide' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('compact' as const), kept: fc.nat({ max: 5 }) }),
  fc.record({ kind: fc.constant('send' as const), caching: fc.boolean(), own: fc.boolean() }),
);

describe('the Anthropic messages JSON of a loop’s successive requests', () => {
  it('is always the turns of the messages sent, with the previous request’s turns reused', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 50 }), (steps) => {
        const loop: ModelMessage[] = [{ role: 'user', content: 'start' }];
        const elided = new Map<number, ModelMessage>();
        steps.forEach((step, index) => {
          if (step.kind === 'call') {
            loop.push({ role: 'assistant', content: [{ type: 'text', text: `step ${index}` }, { type: 'tool_call', id: `c${index}`, name: 'bash', input: { command: `echo ${index}` } }] });
            loop.push({ role: 'tool', toolCallId: `c${index}`, content: `output ${index}`, isError: index % 3 === 0 });
          } else if (step.kind === 'text') {
            loop.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${index}` }] });
          } else if (step.kind === 'steer') {
            loop.push({ role: 'user', content: `steer ${index}` });
          } else if (step.kind === 'elide') {
            const at = step.at % loop.length;
            const message = loop[at]!;
            if (message.role === 'tool') elided.set(at, { ...message, content: `[elided ${index}]` });
          } else if (step.kind === 'compact') {
            const tail = loop.slice(loop.length - Math.min(step.kept, loop.length - 1));
            loop.splice(0, loop.length, { role: 'user', content: `summary ${index}` }, ...tail);
            elided.clear();
          } else {
            // A budgeted loop sends a fresh view with stubs; one without a budget sends its own list.
            const sent = step.own && elided.size === 0 ? loop : loop.map((message, at) => elided.get(at) ?? message);
            expect(JSON.parse(anthropicMessagesJson(sent, step.caching))).toEqual(JSON.parse(JSON.stringify(toAnthropicMessages(sent, step.caching))));
          }
        });
      }),
      { numRuns: 400 },
    );
  });
});
