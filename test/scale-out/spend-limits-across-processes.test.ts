import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceEvent } from '../../src/services/event-bus.js';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-model-server.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';

/**
 * BUD-1 across processes (PostgreSQL): an API-role and a worker-role control center on one
 * database; every run executes on the worker, limits are set and decided through the API process.
 * The worker's check before a model call sees a limit set elsewhere after it had read none, counts
 * spend another process recorded, and a budget decision taken through the API process resumes or
 * stops the run paused on the worker.
 * Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;
/** Every event of the workspace the worker's bus delivered (it follows the workspace through this subscription). */
const heardByWorker: WorkspaceEvent[] = [];

beforeAll(async () => {
  if (!postgresEnabled) return;
  pair = await startDispatchPair({ workspaceName: 'Spend limits', worker: { jobLeaseMs: 3_000, queuePollMs: 200 } });
  pair.worker.events.subscribe(pair.workspaceId, (event) => heardByWorker.push(event));
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

const MILLION = { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 };

async function post(conversationId: string, text: string): Promise<string> {
  return (await pair.api.turns.post(pair.workspaceId, conversationId, { text }, 'op_test')).run!.id;
}

async function ended(runId: string, state: 'completed' | 'cancelled') {
  return pollUntil(async () => findRun(await pair.db(), runId), (found) => found?.state === state, 30_000);
}

/** Waits until the run, on the worker, is paused at its spend-limit check. */
async function pausedOnWorker(runId: string): Promise<void> {
  await pollUntil(async () => pair.worker.activeRuns.get(runId)?.resumeWaiters.length ?? 0, (waiters) => waiters > 0, 20_000);
}

async function openLimitAlert() {
  const alerts = await pair.api.budgets.alerts(pair.workspaceId, 'open');
  return alerts.find((alert) => alert.kind === 'limit')!;
}

/** Gives the worker the time to hear the limit's change (its event); the behaviour asserted after it is what counts. */
async function workerHeard(count: number): Promise<void> {
  await pollUntil(async () => heardByWorker.filter((event) => event.type === 'budget.limitChanged').length, (heard) => heard >= count, 5_000).catch(() => undefined);
}

/** The reads of the spend ledger among statements sent (the check's sums; the cost rows are written with the run log). */
function ledgerReads(sent: string[]): string[] {
  return sent.filter((text) => text.startsWith('select') && text.includes('from "model_call_costs"'));
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

async function spentToday(): Promise<number> {
  const rows = await pair.api.budgets.spend(pair.workspaceId, 'agent', today(), today());
  return rows.reduce((sum, row) => sum + row.costUsd, 0);
}

describe.skipIf(!postgresEnabled)('spend limits across processes (BUD-1)', () => {
  it("counts spend another process recorded at the worker's next check; a stop decided through the API process cancels the run paused on the worker", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    const limit = await api.budgets.set(workspaceId, { agentId: null, period: 'day', limitUsd: 1_000, softThreshold: 0.99 });
    await workerHeard(1);
    const conversation = model.scriptFor('recorded elsewhere', reply().text('first').usage(MILLION), reply().text('second').usage(MILLION));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Recorded elsewhere' })).id;
    // The worker checks the limit (nothing spent yet) and records its call: it now keeps limit and total.
    let first = '';
    const sent = await statementsDuring(async () => {
      first = await post(conversationId, 'recorded elsewhere, turn one');
      await ended(first, 'completed');
    });
    const run = await findRun(await pair.db(), first);
    // One model call under a limit: one sum of the ledger, at its check (its record reads nothing).
    expect(ledgerReads(sent)).toHaveLength(1);
    expect(ledgerReads(sent)[0]).toContain('sum(case when');
    expect(await spentToday()).toBeGreaterThan(0);

    // Another process records a call that takes the workspace to its limit.
    await api.budgets.record(workspaceId, { runId: first, agentId: run!.agentId, provider: 'anthropic', model: 'elsewhere', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 1_000, priced: true });

    const second = await post(conversationId, 'recorded elsewhere, turn two');
    await pausedOnWorker(second);
    expect(conversation.requests).toHaveLength(1);

    const decision = await openLimitAlert();
    expect(decision).toMatchObject({ runId: second, limitId: limit.id });
    expect(decision.spentUsd).toBeGreaterThanOrEqual(1_000);
    await api.budgets.decide(workspaceId, decision.id, { decision: 'stop' }, 'op_test');
    await ended(second, 'cancelled');
    expect(conversation.requests).toHaveLength(1);
    await api.budgets.remove(workspaceId, limit.id);
  }, 120_000);

  it('a limit set through the API process reaches a worker that had read none; raising it through the API process resumes the run paused on the worker', async () => {
    const { api, model, workspaceId, spaceId } = pair;
    const changes = heardByWorker.filter((event) => event.type === 'budget.limitChanged').length;
    const conversation = model.scriptFor('set elsewhere', reply().text('first').usage(MILLION), reply().text('second').usage(MILLION));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Set elsewhere' })).id;
    // The worker's check before this call finds no limit, and reads nothing of the ledger.
    const sent = await statementsDuring(async () => ended(await post(conversationId, 'set elsewhere, turn one'), 'completed'));
    expect(ledgerReads(sent)).toEqual([]);

    const spent = await spentToday();
    const limit = await api.budgets.set(workspaceId, { agentId: null, period: 'day', limitUsd: Number((spent / 2).toFixed(4)), softThreshold: 0.8 });
    await workerHeard(changes + 1);

    const second = await post(conversationId, 'set elsewhere, turn two');
    await pausedOnWorker(second);
    expect(conversation.requests).toHaveLength(1);

    const decision = await openLimitAlert();
    expect(decision).toMatchObject({ runId: second, limitId: limit.id });
    await api.budgets.decide(workspaceId, decision.id, { decision: 'raise_once', limitUsd: Number((spent * 10).toFixed(4)) }, 'op_test');
    await ended(second, 'completed');
    expect(conversation.requests).toHaveLength(2);
    await api.budgets.remove(workspaceId, limit.id);
  }, 120_000);

  it("raises the soft threshold's alert when two processes' calls cross it together, neither one's own total crossing it", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    const changes = heardByWorker.filter((event) => event.type === 'budget.limitChanged').length;
    const before = await spentToday();
    // The threshold 500 USD above today's spend.
    const limit = await api.budgets.set(workspaceId, { agentId: null, period: 'day', limitUsd: Number((2 * (before + 500)).toFixed(4)), softThreshold: 0.5 });
    const threshold = limit.limitUsd * 0.5;
    await workerHeard(changes + 1);
    const conversation = model.scriptFor('crossed together', reply().text('first').usage(MILLION), reply().text('second').usage(MILLION));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Crossed together' })).id;
    const first = await post(conversationId, 'crossed together, turn one');
    const run = await ended(first, 'completed');
    const call = (await spentToday()) - before;
    expect(call).toBeGreaterThan(0);
    // Another process records a call that, with the worker's, crosses the threshold; its own total
    // (summed when the limit was set) does not include the worker's call, so it stays below.
    const elsewhere = Number((threshold - before - call / 2).toFixed(4));
    await api.budgets.record(workspaceId, { runId: first, agentId: run!.agentId, provider: 'anthropic', model: 'elsewhere', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: elsewhere, priced: true });
    expect(await spentToday()).toBeGreaterThanOrEqual(threshold);
    const thresholdAlerts = async () => (await api.budgets.alerts(workspaceId, 'all')).filter((alert) => alert.limitId === limit.id && alert.kind === 'threshold');

    // The worker's next call is recorded past the threshold: its alert is raised now, once.
    await ended(await post(conversationId, 'crossed together, turn two'), 'completed');
    expect(conversation.requests).toHaveLength(2);
    await pollUntil(thresholdAlerts, (alerts) => alerts.length > 0, 5_000);
    expect(await thresholdAlerts()).toHaveLength(1);
    await api.budgets.remove(workspaceId, limit.id);
  }, 120_000);
});
