/**
 * The scripted model server's prompt-cache simulation (opt-in): a request that repeats a recent
 * request's prefix reports that prefix as cache reads and only the rest as input; without the option
 * nothing is reported as cached, as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { countPromptTokens, reply, startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const history = [
  { role: 'user', content: 'Read the notes. '.repeat(200) },
  { role: 'assistant', content: 'I read them. '.repeat(200) },
];

async function send(messages: unknown[]): Promise<{ input_tokens: number; cache_read_input_tokens: number }> {
  const response = await fetch(`${server!.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 100, system: 'Be brief.', messages }),
  });
  return ((await response.json()) as { usage: { input_tokens: number; cache_read_input_tokens: number } }).usage;
}

describe('scripted model server: prompt cache simulation', () => {
  it('a request repeating a recent prefix reports it as cache reads, the rest as input; a changed history reads only up to the change', async () => {
    server = await startScriptedModelServer({ promptCache: true });
    server.script(reply().text('one'), reply().text('two'), reply().text('three'));
    expect(await send(history.slice(0, 1))).toMatchObject({ cache_read_input_tokens: 0 });
    const longer = [...history, { role: 'user', content: 'And now?' }];
    const second = await send(longer);
    expect(second.cache_read_input_tokens).toBeGreaterThan(0.9 * countPromptTokens({ system: 'Be brief.', messages: history.slice(0, 1) }));
    expect(second.input_tokens + second.cache_read_input_tokens).toBe(countPromptTokens({ system: 'Be brief.', messages: longer }));
    expect(server.requests[1]!.cacheReadTokens).toBe(second.cache_read_input_tokens);
    // The first message changed: only the system prompt and the array's opening are shared.
    const changed = await send([{ role: 'user', content: 'Something else entirely.' }, ...longer.slice(1)]);
    expect(changed.cache_read_input_tokens).toBeLessThan(20);
  });

  it('without the option no request reports cache reads', async () => {
    server = await startScriptedModelServer();
    server.script(reply().text('one'), reply().text('two'));
    await send(history.slice(0, 1));
    expect((await send(history)).cache_read_input_tokens).toBe(0);
  });
});
