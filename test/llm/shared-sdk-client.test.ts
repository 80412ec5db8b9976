import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicStreamFn } from '../../src/llm/anthropic-provider.js';
import { findModel } from '../../src/llm/model-catalog.js';
import type { StreamFn } from '../../src/llm/model-types.js';
import { createOpenAIStreamFn } from '../../src/llm/openai-provider.js';
import { cachedSdkClient } from '../../src/llm/sdk-client-cache.js';
import { reply, type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { modelRequest, runStream } from '../support/stream-helpers.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

/** A real fetch that records every init it is handed, to check what reaches the wire. */
function recordingFetch(): { fetch: typeof fetch; inits: RequestInit[] } {
  const inits: RequestInit[] = [];
  return { inits, fetch: (input, init) => (inits.push(init ?? {}), globalThis.fetch(input, init)) };
}

const providers: Record<string, (fetchFn: typeof globalThis.fetch) => StreamFn> = {
  anthropic: (fetchFn) => createAnthropicStreamFn({ apiKey: 'k', baseUrl: server.anthropicBaseUrl, maxRetries: 0, idleTimeoutMs: 250, fetch: fetchFn, traitsFor: (id) => findModel('anthropic', id) }),
  openai: (fetchFn) => createOpenAIStreamFn({ apiKey: 'k', baseUrl: server.openaiBaseUrl, maxRetries: 0, idleTimeoutMs: 250, fetch: fetchFn }),
};

describe('one SDK client per provider configuration', () => {
  it('returns the same client for the same configuration and fetch, a new one otherwise', () => {
    let built = 0;
    const build = () => ({ n: ++built });
    const fetchA: typeof fetch = (input, init) => globalThis.fetch(input, init);
    const first = cachedSdkClient('x', { baseURL: 'http://a', apiKey: 'k' }, fetchA, build);
    expect(cachedSdkClient('x', { baseURL: 'http://a', apiKey: 'k' }, fetchA, build)).toBe(first);
    expect(cachedSdkClient('x', { baseURL: 'http://a', apiKey: 'other' }, fetchA, build)).not.toBe(first);
    expect(cachedSdkClient('x', { baseURL: 'http://a', apiKey: 'k' }, undefined, build)).not.toBe(first);
    expect(cachedSdkClient('y', { baseURL: 'http://a', apiKey: 'k' }, fetchA, build)).not.toBe(first);
    expect(built).toBe(4);
  });

  for (const [name, make] of Object.entries(providers)) {
    it(`${name}: calls sharing a client keep their own watchdogs — one hangs and times out while a concurrent one streams to the end`, async () => {
      const { fetch, inits } = recordingFetch();
      const request = () => modelRequest({ model: name === 'anthropic' ? 'claude-sonnet-5-5' : 'gpt-test' });
      const streamFn = make(fetch);
      server.script(reply().hang(), reply().text('still fine').chunkSize(3));
      const hung = runStream(streamFn, request());
      while (server.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const healthy = await runStream(make(fetch), request());
      expect(healthy.response.text).toBe('still fine');
      expect(healthy.response.stopReason).toBe('end_turn');
      const timedOut = await hung;
      expect(timedOut.response.errorMessage).toMatch(/idle timeout/);
      // A later call on the same shared client is not affected by the earlier timeout.
      server.script(reply().text('again'));
      expect((await runStream(streamFn, request())).response.text).toBe('again');
      // The watchdog marker never reaches fetch's caller-visible init.
      expect(inits).toHaveLength(3);
      for (const init of inits) expect(Object.getOwnPropertySymbols(init)).toEqual([]);
    });
  }
});
