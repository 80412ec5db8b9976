import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicStreamFn } from '../../src/llm/anthropic-provider.js';
import { findModel } from '../../src/llm/model-catalog.js';
import type { ModelMessage, ModelRequest } from '../../src/llm/model-types.js';
import { reply, type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { modelRequest, runStream } from '../support/stream-helpers.js';

/**
 * The SDK-free path builds the request body from each message's cached JSON; the SDK path
 * (taken when a fetch is injected) builds it from objects. Both must put the same request on the wire
 * (HAR-2), whatever the history holds.
 */

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const history: ModelMessage[] = [
  { role: 'user', content: 'Quote "this", a\u2028line separator, a tab\t and 🚀' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'signed thought', signature: 'sig-1' },
      { type: 'thinking', text: 'unsigned thought from another provider' },
      { type: 'thinking', text: '', redactedData: 'opaque==' },
      { type: 'text', text: '' },
      { type: 'text', text: 'Reading both' },
      { type: 'tool_call', id: 'toolu_a', name: 'read', input: { path: 'a.txt', nested: { list: [1, null, 'x'] } } },
      { type: 'tool_call', id: 'toolu_b', name: 'read', input: {} },
    ],
  },
  { role: 'user', content: 'steering text before the results' },
  { role: 'tool', toolCallId: 'toolu_a', content: 'alpha', isError: false },
  { role: 'tool', toolCallId: 'toolu_b', content: 'ENOENT', isError: true },
  { role: 'user', content: '' },
  { role: 'assistant', content: [{ type: 'text', text: '' }] },
];

const requests: Array<[string, Partial<ModelRequest>]> = [
  ['a history ending in a user turn', { messages: [...history, { role: 'user', content: 'and now?' }] }],
  ['a history ending in tool results', { messages: history.slice(0, 5) }],
  ['a history ending in an assistant tool call', { messages: history.slice(0, 2) }],
  ['an assistant turn ending in thinking', { messages: [history[0]!, { role: 'assistant', content: [{ type: 'thinking', text: 't', signature: 's' }] }] }],
  ['no system prompt (the last tool is the breakpoint), effort and temperature', { system: '', effort: 'high', temperature: 0.3, model: 'claude-haiku-4-5' }],
];

describe('Anthropic request body: cached-JSON path and SDK path agree (HAR-2)', () => {
  for (const promptCaching of [true, false]) {
    for (const [name, overrides] of requests) {
      it(`${name}, prompt caching ${promptCaching ? 'on' : 'off'}`, async () => {
        const options = { apiKey: 'k', baseUrl: server.anthropicBaseUrl, maxRetries: 0, promptCaching, traitsFor: (id: string) => findModel('anthropic', id) };
        const request = modelRequest(overrides);
        server.script(reply().text('one'), reply().text('two'), reply().text('three'));
        const wire = createAnthropicStreamFn(options);
        await runStream(wire, request);
        // The second call on the same message objects is served from the JSON cache.
        await runStream(wire, request);
        await runStream(createAnthropicStreamFn({ ...options, fetch: (input, init) => globalThis.fetch(input, init) }), request);
        const [first, cached, sdk] = server.requests.map((sent) => sent.body);
        expect(first).toEqual(sdk);
        expect(cached).toEqual(sdk);
      });
    }
  }

  it('puts tool results before text in a merged user turn and skips what the API refuses', async () => {
    server.script(reply().text('ok'));
    await runStream(createAnthropicStreamFn({ apiKey: 'k', baseUrl: server.anthropicBaseUrl, maxRetries: 0 }), modelRequest({ messages: history }));
    const body = server.requests[0]!.body as { messages: Array<{ role: string; content: Array<{ type: string }> }> };
    expect(body.messages.map((turn) => [turn.role, turn.content.map((block) => block.type)])).toEqual([
      ['user', ['text']],
      ['assistant', ['thinking', 'redacted_thinking', 'text', 'tool_use', 'tool_use']],
      ['user', ['tool_result', 'tool_result', 'text']],
    ]);
  });
});
