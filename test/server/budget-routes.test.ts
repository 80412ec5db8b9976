/**
 * BUD-1 bad input: spend limits must be positive with at most 4 decimals; each refusal is a 400 (or
 * 404 for an agent or alert that does not exist) naming the field, and changes nothing. And the price
 * table applied again to recorded calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ANTHROPIC_MODEL_ID, findModel } from '../../src/llm/model-catalog.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;
beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Budgets')).id;
});
afterAll(async () => {
  await server.dispose();
});

const limits = (body?: unknown) => server.api(body === undefined ? 'GET' : 'PUT', `/api/workspaces/${workspaceId}/budgets/limits`, body);

describe('spend limit input (BUD-1)', () => {
  it.each([
    [{ period: 'day', limitUsd: 0 }, 'limitUsd', 'positive'],
    [{ period: 'day', limitUsd: -5 }, 'limitUsd', 'positive'],
    [{ period: 'day', limitUsd: 1.23456 }, 'limitUsd', '4 decimals'],
    [{ period: 'day', limitUsd: '10' }, 'limitUsd', 'number'],
    [{ period: 'day', limitUsd: 1e9 }, 'limitUsd', 'at most'],
    [{ period: 'week', limitUsd: 10 }, 'period', ''],
    [{ period: 'day', limitUsd: 10, softThreshold: 1 }, 'softThreshold', 'below 1'],
    [{ period: 'day', limitUsd: 10, softThreshold: 0 }, 'softThreshold', 'above 0'],
    [{ period: 'day', limitUsd: 10, currency: 'EUR' }, '', ''],
  ])('refuses %j with 400 naming %s', async (body, field, words) => {
    const response = await limits(body);
    expect(response.status).toBe(400);
    const named = [response.body.error.field, ...(response.body.error.issues ?? []).map((issue: { field: string }) => issue.field)].join(' ');
    expect(named).toContain(field);
    expect(JSON.stringify(response.body.error)).toContain(words);
    expect((await limits()).body.limits).toEqual([]);
  });

  it('accepts 4 decimals; an unknown agent is 404 naming agentId; a decision needs a real alert and a higher limit', async () => {
    const saved = await limits({ period: 'month', limitUsd: 12.3456 });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ agentId: null, period: 'month', limitUsd: 12.3456, softThreshold: 0.8, spentUsd: 0 });
    const unknown = await limits({ agentId: 'ag_nobody', period: 'day', limitUsd: 5 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.field).toBe('agentId');
    expect((await limits()).body.limits).toHaveLength(1);

    const missing = await server.api('POST', `/api/workspaces/${workspaceId}/budgets/alerts/bud_nothing/decision`, { decision: 'stop' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe('alertId');
    const badDecision = await server.api('POST', `/api/workspaces/${workspaceId}/budgets/alerts/bud_nothing/decision`, { decision: 'raise_once', limitUsd: 0.00001 });
    expect(badDecision.status).toBe(400);
    expect(JSON.stringify(badDecision.body.error)).toContain('limitUsd');

    const range = await server.api('GET', `/api/workspaces/${workspaceId}/budgets/spend?from=2026-02-30`);
    expect(range.status).toBe(400);
    expect(JSON.stringify(range.body.error)).toContain('from');
    expect((await server.api('DELETE', `/api/workspaces/${workspaceId}/budgets/limits/lim_nothing`)).status).toBe(404);
  });

  it('the price table lists the catalog with cache prices and the day it was checked', async () => {
    const prices = await server.api('GET', `/api/workspaces/${workspaceId}/budgets/prices`);
    expect(prices.status).toBe(200);
    expect(prices.body.checkedOn).toMatch(/^\d{4}-\d{2}/);
    const sonnet = prices.body.models.find((row: { provider: string }) => row.provider === 'anthropic');
    expect(sonnet).toMatchObject({ inputPerMillion: expect.any(Number), cacheReadPerMillion: expect.any(Number), cacheWritePerMillion: expect.any(Number) });
  });
});

describe('applying the price table again (BUD-1)', () => {
  it('reprices recorded calls from their tokens by kind; the running totals follow; a bad range is 400 naming from', async () => {
    const app = server.running.app;
    const pricing = findModel('anthropic', DEFAULT_ANTHROPIC_MODEL_ID).pricing!;
    expect((await limits({ period: 'day', limitUsd: 1000 })).status).toBe(200);
    // Recorded at a wrong price: 1 M input and 1 M cache-read tokens billed as 999 USD.
    await app.budgets.record(workspaceId, { runId: 'run_x', agentId: 'ag_x', provider: 'anthropic', model: DEFAULT_ANTHROPIC_MODEL_ID, usage: { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 1_000_000, cacheWriteTokens: 0 }, costUsd: 999, priced: true });
    const spentBefore = (await limits()).body.limits.find((limit: { period: string }) => limit.period === 'day').spentUsd;
    expect(spentBefore).toBe(999);

    const repriced = await server.api('POST', `/api/workspaces/${workspaceId}/budgets/reprice`, {});
    expect(repriced.status).toBe(200);
    const expected = pricing.inputPerMillion + pricing.cacheReadPerMillion!;
    expect(repriced.body).toMatchObject({ calls: 1, changed: 1, beforeUsd: 999, afterUsd: expected, unpriced: 0 });
    const spentAfter = (await limits()).body.limits.find((limit: { period: string }) => limit.period === 'day').spentUsd;
    expect(spentAfter).toBe(expected);

    const backwards = await server.api('POST', `/api/workspaces/${workspaceId}/budgets/reprice`, { from: '2026-12-05', to: '2026-12-01' });
    expect(backwards.status).toBe(400);
    expect(JSON.stringify(backwards.body.error)).toContain('from');
  });
});
