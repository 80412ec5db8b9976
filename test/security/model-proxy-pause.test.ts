import { afterEach, describe, expect, it } from 'vitest';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * HAR-5 pause of a runner transport is held at the model proxy (model-proxy-routes.ts): the runner is
 * hostile, so the hold must not depend on which provider path or which of its two key headers it
 * uses, and a cancel while paused must end the held request without forwarding it. The runner here is
 * the test itself, calling the proxy with the run's token as a runner would.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

/** A held run on a fresh server, paused. */
async function pausedRun() {
  const held = heldTransport();
  fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => held.transport } });
  const f = fixture;
  const { runId, ctx } = await held.start(f);
  const controls = `/api/workspaces/${f.workspaceId}/runs/${runId}`;
  expect((await f.api('POST', `${controls}/pause`)).status).toBe(200);
  return { f, held, runId, ctx, controls };
}

/** Settles with the status, or 'held' if nothing came back within `ms`. */
async function within(request: Promise<Response>, ms: number): Promise<number | 'held'> {
  return Promise.race([request.then((response) => response.status), new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), ms))]);
}

describe('model proxy: a paused run reaches no model (HAR-5, SEC-6)', { timeout: 120_000 }, () => {
  it('held on every model path of its provider and with either key header until resume; then forwarded', async () => {
    const { f, held, runId, ctx, controls } = await pausedRun();
    f.model.script(reply().text('one'), reply().text('two'));
    const body = (model: string) => JSON.stringify({ model, max_tokens: 16, stream: false, messages: [{ role: 'user', content: 'hi' }] });
    const xai = fetch(`${modelProxyBaseUrl(f.url, 'xai')}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ctx.mcp.token}`, 'content-type': 'application/json' }, body: body('grok-code-fast-1') });
    // The same provider (a run token spends only its run's, SEC-8) with the `/v1` a client may add and the other key header.
    const prefixed = fetch(`${modelProxyBaseUrl(f.url, 'xai')}/v1/chat/completions`, { method: 'POST', headers: { 'x-api-key': ctx.mcp.token, 'content-type': 'application/json' }, body: body('grok-code-fast-1') });
    expect(await within(xai, 1_500)).toBe('held');
    expect(await within(prefixed, 100)).toBe('held');
    expect(f.model.requests).toHaveLength(0);
    expect((await f.api('POST', `${controls}/resume`)).status).toBe(200);
    expect(await within(xai, 30_000)).toBe(200);
    expect(await within(prefixed, 30_000)).toBe(200);
    expect(f.model.requests).toHaveLength(2);
    held.finish();
    expect((await f.waitForRun(runId)).run.state).toBe('completed');
  });

  it('a refused request is answered at once while paused, never held (SEC-8: admission comes before the wait)', async () => {
    const { f, held, runId, ctx } = await pausedRun();
    const post = (url: string) => fetch(url, { method: 'POST', headers: { authorization: `Bearer ${ctx.mcp.token}`, 'content-type': 'application/json' }, body: '{}' });
    // A traversal (400), another provider than the run's (403), a path off the allowlist (404).
    expect(await within(post(`${modelProxyBaseUrl(f.url, 'xai')}/models/..%2ffiles`), 5_000)).toBe(400);
    expect(await within(post(`${modelProxyBaseUrl(f.url, 'anthropic')}/v1/messages`), 5_000)).toBe(403);
    expect(await within(post(`${modelProxyBaseUrl(f.url, 'xai')}/files`), 5_000)).toBe(404);
    expect(f.model.received).toEqual([]);
    held.finish();
    expect((await f.waitForRun(runId)).run.state).toBe('completed');
  });

  it('cancel while paused ends the held request with 409 and nothing reaches the model', async () => {
    const { f, runId, ctx, controls } = await pausedRun();
    f.model.script(reply().text('never'));
    const request = fetch(`${modelProxyBaseUrl(f.url, 'xai')}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.mcp.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'grok-code-fast-1', stream: false, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(await within(request, 1_000)).toBe('held');
    expect((await f.api('POST', `${controls}/cancel`)).status).toBe(200);
    const answer = await request;
    // 409 while the run is still ending, 401 once its token is revoked: either way, not forwarded.
    expect([409, 401]).toContain(answer.status);
    expect(f.model.requests).toHaveLength(0);
    expect((await f.waitForRun(runId)).run.state).toBe('cancelled');
  });
});
