/**
 * BUD-1 at the model proxy, on an OpenAI-protocol provider (xAI): the runner here is the test
 * itself, calling the proxy with its run's token as a hostile runner would. Over the limit, every
 * call is refused in OpenAI's own error shape (402, not retryable) and nothing is forwarded; once an
 * operator raises the limit, calls go through again and each is metered into the ledger by kind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { modelProxyBaseUrl } from '../../src/llm/model-proxy-url.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';
import { reply } from '../support/scripted-model-server.js';

let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

describe('model proxy: spend limits (BUD-1)', { timeout: 120_000 }, () => {
  it('refuses over the limit in the provider shape, forwards nothing, and goes on after a raise', async () => {
    const held = heldTransport();
    fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => held.transport } });
    const f = fixture;
    const ws = (path: string) => `/api/workspaces/${f.workspaceId}${path}`;
    expect((await f.api('PUT', ws('/budgets/limits'), { agentId: f.agentId, period: 'day', limitUsd: 0.01 })).status).toBe(200);
    await f.app.budgets.record(f.workspaceId, { runId: 'run_before', agentId: f.agentId, provider: 'xai', model: 'grok-code-fast-1', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.02, priced: true });
    const { runId, ctx } = await held.start(f);
    const call = () =>
      fetch(`${modelProxyBaseUrl(f.url, 'xai')}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.mcp.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'grok-code-fast-1', stream: false, messages: [{ role: 'user', content: 'hi' }] }),
      });

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const refused = await call();
      expect(refused.status).toBe(402);
      expect(refused.headers.get('x-should-retry')).toBe('false');
      const body = (await refused.json()) as { error: { type: string; code: string; message: string } };
      expect(body.error).toMatchObject({ type: 'insufficient_quota', code: 'spend_limit_reached' });
      expect(body.error.message).toContain("this agent's daily limit of 0.01 USD");
    }
    expect(f.model.requests).toHaveLength(0);
    // One decision for the limit, however many calls were refused.
    const alerts = (await f.api('GET', ws('/budgets/alerts'))).body.alerts as Array<{ id: string; kind: string; runId: string }>;
    const decisions = alerts.filter((alert) => alert.kind === 'limit');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]!.runId).toBe(runId);

    expect((await f.api('POST', ws(`/budgets/alerts/${decisions[0]!.id}/decision`), { decision: 'raise', limitUsd: 5 })).status).toBe(200);
    f.model.script(reply().text('allowed').usage({ input: 100, output: 7, cacheRead: 30 }));
    expect((await call()).status).toBe(200);
    expect(f.model.requests).toHaveLength(1);
    const byModel = (await f.api('GET', ws('/budgets/spend?by=model'))).body.rows as Array<{ key: string; calls: number; outputTokens: number }>;
    expect(byModel.find((row) => row.key === 'grok-code-fast-1')).toMatchObject({ calls: 2, outputTokens: 8 });
    held.finish();
    expect((await f.waitForRun(runId)).run.state).toBe('completed');
  });
});
