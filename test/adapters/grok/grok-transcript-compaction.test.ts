import { describe, expect, it } from 'vitest';
import { compactGrokTranscript, DEFAULT_GROK_TRANSCRIPT_BOUNDS, type GrokTranscriptBounds } from '../../../src/adapters/grok/grok-transcript-compaction.js';
import type { GrokMessage } from '../../../src/adapters/grok/grok-transcript.js';

/** One exchange: the user's message, a tool call, its output and the answer (the shape the CLI leaves). */
function exchange(n: number, output: string, user = `question ${n}`): GrokMessage[] {
  return [
    { role: 'user', content: user },
    { role: 'assistant', content: '', tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'bash', arguments: `{"command":"cat f${n}"}` } }] },
    { role: 'tool', content: output, tool_call_id: `call_${n}` },
    { role: 'assistant', content: `answer ${n}` },
  ];
}

const bounds = (overrides: Partial<GrokTranscriptBounds>): GrokTranscriptBounds => ({ ...DEFAULT_GROK_TRANSCRIPT_BOUNDS, ...overrides });
const toolPairsIntact = (messages: GrokMessage[]) =>
  messages.every((message, index) => message.role !== 'tool' || messages.slice(0, index).some((earlier) => earlier.tool_calls?.some((call) => call.id === message.tool_call_id)));

describe('Grok transcript compaction: what is carried into the next turn (RLY-7)', () => {
  it('a short conversation is carried unchanged', () => {
    const messages = [...exchange(1, 'small'), ...exchange(2, 'small too')];
    expect(compactGrokTranscript(messages)).toEqual(messages);
  });

  it('older tool outputs are cut to a head and a marker; the recent exchanges stay whole', () => {
    const big = 'x'.repeat(5_000);
    const messages = [1, 2, 3, 4, 5, 6].flatMap((n) => exchange(n, `${n}:${big}`));
    const carried = compactGrokTranscript(messages, bounds({ recentExchanges: 2 }));
    expect(carried).toHaveLength(messages.length);
    const outputs = carried.filter((message) => message.role === 'tool').map((message) => message.content);
    for (const old of outputs.slice(0, 4)) {
      expect(old.length).toBeLessThan(400);
      expect(old).toMatch(/^\d:x{198}\n\[… 4\d{3} more characters of this earlier tool output are left out of the carried conversation; run the tool again if you need them\.\]$/);
    }
    expect(outputs.slice(4)).toEqual([`5:${big}`, `6:${big}`]);
    // User messages, answers and tool calls are untouched.
    expect(carried.filter((message) => message.role !== 'tool')).toEqual(messages.filter((message) => message.role !== 'tool'));
  });

  it('over the size bound, old exchanges are left out oldest first — never the first user message or the one carrying the mode line in force — with one note', () => {
    const modeLine = '[Relay mode: Ask] Before any action that changes files, ask.\n\nquestion 3';
    const messages = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((n) => exchange(n, 'y'.repeat(300), n === 3 ? modeLine : `question ${n}`));
    // Each exchange is about 340 characters; the bound fits about four.
    const carried = compactGrokTranscript(messages, bounds({ recentExchanges: 3, maxChars: 1_400 }));
    const users = carried.filter((message) => message.role === 'user').map((message) => message.content);
    expect(users[0]).toBe('question 1');
    expect(users).toContain(modeLine);
    expect(users.slice(-3)).toEqual(['question 6', 'question 7', 'question 8']);
    expect(users.filter((text) => /earlier messages of this conversation are left out here/.test(text))).toHaveLength(1);
    // The note sits where the first messages were left out: right after the first question.
    expect(carried[1]!.content).toMatch(/^\[\d+ earlier messages of this conversation are left out here to bound its length\.\]$/);
    expect(carried.map((message) => message.content)).not.toContain('question 2');
    expect(toolPairsIntact(carried)).toBe(true);
    expect(carried.reduce((sum, message) => sum + message.content.length, 0)).toBeLessThan(messages.reduce((sum, message) => sum + message.content.length, 0));
  });

  it('the recent exchanges are never left out, even when they alone exceed the bound', () => {
    const messages = [1, 2, 3].flatMap((n) => exchange(n, 'z'.repeat(1_000)));
    const carried = compactGrokTranscript(messages, bounds({ recentExchanges: 2, maxChars: 100 }));
    expect(carried.slice(-8)).toEqual(messages.slice(-8));
    expect(carried[0]).toEqual(messages[0]);
  });

  it('is deterministic: the same transcript gives the same carried copy', () => {
    const messages = [1, 2, 3, 4, 5, 6, 7].flatMap((n) => exchange(n, `${n}`.repeat(900)));
    const options = bounds({ recentExchanges: 2, maxChars: 2_000 });
    expect(JSON.stringify(compactGrokTranscript(messages, options))).toBe(JSON.stringify(compactGrokTranscript(structuredClone(messages), options)));
  });
});
