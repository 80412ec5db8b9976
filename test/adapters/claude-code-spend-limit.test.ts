/**
 * BUD-1 with the real `claude` binary: an external runner's model calls go through the model proxy,
 * which records their spend and, once the agent is over its limit, refuses the next call in
 * Anthropic's own error shape — whatever Claude Code does next, no request reaches the model — with
 * the budget decision waiting in the Inbox.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';

let fixture: ClaudeCodeFixture | null = null;
afterAll(async () => {
  await fixture?.dispose();
});

describe('Claude Code over its spend limit (BUD-1)', () => {
  it('is refused at the model proxy, and the decision waits in the Inbox', async () => {
    fixture = await startClaudeCodeFixture({ operatorConnected: false, transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const ws = (path: string) => `/api/workspaces/${f.workspaceId}${path}`;
    // A model the price table lists (Claude Code's own default may be one it does not know, which costs 0).
    expect((await f.api('PATCH', ws(`/agents/${f.agentId}`), { modelId: 'claude-sonnet-5-5' })).status).toBe(200);
    f.model.script(reply().text('Spent a little.').usage({ input: 20_000, output: 1_000 }));
    const first = await f.waitForRun(await f.send('Say something.'), 120_000);
    expect(first.run.state, JSON.stringify(first.run)).toBe('completed');
    // The proxy metered the call into the ledger (by kind), under the Claude Code agent.
    const spent = await f.api('GET', ws('/budgets/spend?by=agent'));
    const row = spent.body.rows.find((entry: { key: string }) => entry.key === f.agentId);
    expect(row).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect(row.costUsd).toBeGreaterThan(0);
    expect(row.inputTokens).toBeGreaterThanOrEqual(20_000);

    expect((await f.api('PUT', ws('/budgets/limits'), { agentId: f.agentId, period: 'day', limitUsd: 0.0001 })).status).toBe(200);
    const requestsBefore = f.model.requests.length;
    f.model.script(reply().text('This must never be sent.'));
    const second = await f.waitForRun(await f.send('Say more.'), 120_000);
    expect(second.run.state, JSON.stringify(second.run)).not.toBe('completed');
    // Refused at the proxy: nothing reached the model.
    expect(f.model.requests.length).toBe(requestsBefore);
    const alerts = (await f.api('GET', ws('/budgets/alerts'))).body.alerts;
    // The refused run is not held (its runtime ended the turn), so none waits on the decision.
    expect(alerts).toContainEqual(expect.objectContaining({ kind: 'limit', agentId: f.agentId, state: 'open', runId: second.run.id, waitingRunIds: [] }));
    // What Claude Code showed is the proxy's refusal, in its own words.
    expect(JSON.stringify(second)).toMatch(/Spend limit reached/);
  }, 300_000);
});
