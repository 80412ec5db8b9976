/**
 * BUD-1, NF-SCALE: a model call's spend row. On PostgreSQL it rides the run log's batch (the
 * call's end queues run-log lines around it) instead of a statement of its own, over the real
 * server and the scripted model. On both stores the check before the next call counts the call
 * recorded just before it even while that row waits for its batch, the call's threshold alert
 * comes first, and a row that cannot be written fails its recording and is not counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ANTHROPIC_MODEL_ID } from '../../../src/llm/model-catalog.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { statementsDuring } from '../../support/postgres-statements-sent.js';
import { reply } from '../../support/scripted-reply.js';
import { testDialect } from '../../support/test-database.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

function api(f: HarnessFixture) {
  return (method: string, path: string, body?: unknown) => f.server.api(method, `/api/workspaces/${f.workspaceId}${path}`, body);
}

/** One model call's spend as a transport reports it. */
function spend(agentId: string, costUsd: number, model = DEFAULT_ANTHROPIC_MODEL_ID) {
  return { runId: 'run_spend', agentId, provider: 'anthropic', model, usage: { inputTokens: 10, outputTokens: 1 }, costUsd, priced: true };
}

describe("a model call's spend row", () => {
  it.skipIf(testDialect() !== 'postgres')("on PostgreSQL is written in the run log's batch, with no statement of its own", async () => {
    fixture = await startHarnessFixture();
    const f = fixture;
    f.model.script(reply().tool('list', { path: '.' }).usage({ input: 1_000, output: 20 }), reply().text('done').usage({ input: 1_100, output: 5 }));
    const sent = await statementsDuring(async () => {
      const runId = await f.send('look around');
      expect((await f.waitForRun(runId, 30_000)).run.state).toBe('completed');
    });
    expect(sent.filter((text) => text.startsWith('insert into "model_call_costs"'))).toEqual([]);
    const costWrites = sent.filter((text) => text.includes('insert into model_call_costs'));
    expect(costWrites.length).toBeGreaterThan(0);
    // Each rides a batch of the run's lines (its call's `usage` line at least).
    for (const text of costWrites) expect(text).toContain('insert into run_events');
    const byModel = await api(f)('GET', '/budgets/spend?by=model');
    expect(byModel.body.rows).toEqual([expect.objectContaining({ key: DEFAULT_ANTHROPIC_MODEL_ID, calls: 2, inputTokens: 2_100, outputTokens: 25 })]);
  }, 60_000);

  it('is counted by the check before the next call, its threshold alert raised, even while it waits for its batch', async () => {
    fixture = await startHarnessFixture();
    const f = fixture;
    const budgets = f.server.running.app.budgets;
    const agentId = Object.values(f.agents)[0]!.id;
    expect((await api(f)('PUT', '/budgets/limits', { period: 'day', limitUsd: 1 })).status).toBe(200);
    // Not awaited: a transport records a call and goes on; its next call may follow at once.
    const recording = budgets.record(f.workspaceId, spend(agentId, 2));
    const reached = await budgets.reached(f.workspaceId, agentId);
    expect(reached).toMatchObject({ spentUsd: 2, effectiveLimitUsd: 1 });
    // The threshold the call crossed is raised before any decision at the limit could be.
    expect((await budgets.alerts(f.workspaceId, 'open')).map((alert) => [alert.kind, alert.spentUsd])).toEqual([['threshold', 2]]);
    await recording;
  }, 60_000);

  it('that cannot be written fails its recording and is not counted', async () => {
    fixture = await startHarnessFixture();
    const f = fixture;
    const budgets = f.server.running.app.budgets;
    const agentId = Object.values(f.agents)[0]!.id;
    expect((await api(f)('PUT', '/budgets/limits', { period: 'day', limitUsd: 1 })).status).toBe(200);
    // A model the ledger cannot hold (its column is not null): the row's own failure, not the batch's.
    await expect(budgets.record(f.workspaceId, spend(agentId, 2, null as unknown as string))).rejects.toThrow(/null/i);
    expect(await budgets.reached(f.workspaceId, agentId)).toBeNull();
    expect(await budgets.alerts(f.workspaceId, 'open')).toEqual([]);
    expect((await api(f)('GET', '/budgets/spend?by=model')).body.rows).toEqual([]);
  }, 60_000);
});
