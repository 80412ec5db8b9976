/**
 * BUD-1 on the built-in harness, over the real server and the scripted model: a run whose spend
 * reaches a limit pauses before its next model call with a budget decision in the Inbox; "raise
 * once" resumes it, "stop" cancels it; a call crossing the soft threshold raises an alert; every
 * call's tokens are recorded by kind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ANTHROPIC_MODEL_ID, findModel } from '../../../src/llm/model-catalog.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { pollFor } from '../../support/relay-fixture.js';
import { reply } from '../../support/scripted-reply.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

/** What a million input tokens cost on the agents' model: a call with that usage spends exactly this. */
const PER_MILLION = findModel('anthropic', DEFAULT_ANTHROPIC_MODEL_ID).pricing!.inputPerMillion;
const MILLION = { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 };

function api(f: HarnessFixture) {
  return (method: string, path: string, body?: unknown) => f.server.api(method, `/api/workspaces/${f.workspaceId}${path}`, body);
}

async function openAlerts(f: HarnessFixture): Promise<any[]> {
  return (await api(f)('GET', '/budgets/alerts')).body.alerts;
}

/** Waits until the run is paused at its spend-limit check (held, positively: it waits to be resumed). */
async function pausedAtLimit(f: HarnessFixture, runId: string): Promise<any> {
  await pollFor(async () => (f.server.running.app.activeRuns.get(runId)?.resumeWaiters.length ?? 0) > 0, 'the run to wait at its spend-limit check', 20_000);
  return pollFor(async () => (await openAlerts(f)).find((alert) => alert.kind === 'limit' && alert.waitingRunIds.includes(runId)), 'the budget decision', 20_000);
}

describe('spend limits on the built-in harness (BUD-1)', () => {
  it('at the limit the run pauses with a decision; "raise once" resumes it for this period only', async () => {
    fixture = await startHarnessFixture();
    const f = fixture;
    expect((await api(f)('PUT', '/budgets/limits', { period: 'day', limitUsd: PER_MILLION / 2 })).status).toBe(200);
    f.model.script(reply().tool('list', { path: '.' }).usage(MILLION), reply().text('done').usage({ input: 10, output: 5 }));
    const runId = await f.send('look around');

    const decision = await pausedAtLimit(f, runId);
    expect(decision).toMatchObject({ kind: 'limit', agentId: null, period: 'day', state: 'open', runId, limitUsd: PER_MILLION / 2, spentUsd: PER_MILLION });
    // Paused before its second call: the model saw one request only.
    expect(f.model.requests).toHaveLength(1);
    expect(f.server.running.app.activeRuns.get(runId)?.paused).toBe(true);
    // A plain resume without a decision finds the limit still reached and waits again.
    expect((await api(f)('POST', `/runs/${runId}/resume`)).status).toBe(200);
    await pollFor(async () => f.server.running.app.activeRuns.get(runId)?.paused, 'the run to pause again', 20_000);
    expect(f.model.requests).toHaveLength(1);

    const decided = await api(f)('POST', `/budgets/alerts/${decision.id}/decision`, { decision: 'raise_once', limitUsd: PER_MILLION * 3 });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body).toMatchObject({ state: 'raised_once', decidedLimitUsd: PER_MILLION * 3 });
    // TEAM-3: the decision is in the audit log, as the person who took it (here the owner).
    const audit = (await api(f)('GET', '/audit?kind=budget')).body.entries as Array<{ kind: string; actor: { kind: string }; subject: { id: string } }>;
    expect(audit.map((entry) => [entry.kind, entry.actor.kind, entry.subject.id])).toEqual([['budget.raised_once', 'person', decision.id]]);
    const detail = await f.waitForRun(runId, 30_000);
    expect(detail.run.state).toBe('completed');
    expect(f.model.requests).toHaveLength(2);

    // Raised for this day only: the stored limit is unchanged, the one in force is the raised one.
    const [limit] = (await api(f)('GET', '/budgets/limits')).body.limits;
    expect(limit).toMatchObject({ limitUsd: PER_MILLION / 2, effectiveLimitUsd: PER_MILLION * 3 });
    expect(limit.spentUsd).toBeGreaterThanOrEqual(PER_MILLION);
    // The decision is closed; the soft-threshold alert the first call also crossed stays until dismissed.
    expect((await openAlerts(f)).map((alert) => alert.kind)).toEqual(['threshold']);

    // Tokens are recorded by kind, per call, so a changed price can be applied again.
    const byModel = await api(f)('GET', '/budgets/spend?by=model');
    expect(byModel.body.rows).toEqual([expect.objectContaining({ key: DEFAULT_ANTHROPIC_MODEL_ID, calls: 2, inputTokens: 1_000_010, outputTokens: 5 })]);
    const csv = await fetch(`${f.server.url}/api/workspaces/${f.workspaceId}/budgets/spend.csv?by=model`, { headers: { authorization: `Bearer ${f.server.token}` } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect((await csv.text()).split('\r\n')[1]).toMatch(new RegExp(`^${DEFAULT_ANTHROPIC_MODEL_ID},${DEFAULT_ANTHROPIC_MODEL_ID},[0-9.]+,2,1000010,5,0,0$`));
  }, 60_000);

  it('"stop" ends the waiting run cancelled, before it calls the model; an agent limit applies to its agent only', async () => {
    fixture = await startHarnessFixture();
    const f = fixture;
    f.model.script(reply().text('first').usage(MILLION));
    expect((await f.waitForRun(await f.send('spend'))).run.state).toBe('completed');
    const agentId: string = (await api(f)('GET', '/budgets/spend?by=agent')).body.rows[0].key;
    expect((await api(f)('PUT', '/budgets/limits', { agentId, period: 'month', limitUsd: PER_MILLION / 4 })).status).toBe(200);

    const runId = await f.send('more');
    const decision = await pausedAtLimit(f, runId);
    expect(decision).toMatchObject({ kind: 'limit', agentId, period: 'month' });
    expect(f.model.requests).toHaveLength(1);
    const stopped = await api(f)('POST', `/budgets/alerts/${decision.id}/decision`, { decision: 'stop' });
    expect(stopped.status).toBe(200);
    expect((await f.waitForRun(runId, 30_000)).run.state).toBe('cancelled');
    expect(f.model.requests).toHaveLength(1);
    // Decided once: deciding again is a conflict, and changes nothing.
    const again = await api(f)('POST', `/budgets/alerts/${decision.id}/decision`, { decision: 'raise', limitUsd: 100 });
    expect(again.status).toBe(409);
    expect(again.body.error.field).toBe('alertId');
  }, 60_000);

  it('a compaction asked for at the limit waits for the decision before its summary call', async () => {
    fixture = await startHarnessFixture();
    const f = fixture;
    f.model.script(reply().text('first answer').usage(MILLION));
    expect((await f.waitForRun(await f.send('spend'))).run.state).toBe('completed');
    expect((await api(f)('PUT', '/budgets/limits', { period: 'day', limitUsd: PER_MILLION / 2 })).status).toBe(200);

    const agentId = Object.values(f.agents)[0]!.id;
    const posted = await api(f)('POST', `/conversations/${f.conversationId}/messages`, { text: '/compact', agentId });
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    const runId: string = posted.body.run.id;
    const decision = await pausedAtLimit(f, runId);
    expect(decision).toMatchObject({ kind: 'limit', period: 'day', runId });
    // The summary request was not sent: the model saw the first turn's call only.
    expect(f.model.requests).toHaveLength(1);
    expect((await api(f)('POST', `/budgets/alerts/${decision.id}/decision`, { decision: 'stop' })).status).toBe(200);
    expect((await f.waitForRun(runId, 30_000)).run.state).toBe('cancelled');
    expect(f.model.requests).toHaveLength(1);
  }, 60_000);

  it('a call crossing the soft threshold raises a threshold alert once, and the run goes on', async () => {
    fixture = await startHarnessFixture();
    const f = fixture;
    // 1.2 × one call: one call crosses 80 % (at 83 %) and stays under the limit.
    expect((await api(f)('PUT', '/budgets/limits', { period: 'month', limitUsd: Number((PER_MILLION * 1.2).toFixed(4)) })).status).toBe(200);
    f.model.script(reply().text('one').usage(MILLION));
    expect((await f.waitForRun(await f.send('go'))).run.state).toBe('completed');
    const alerts = await openAlerts(f);
    expect(alerts).toEqual([expect.objectContaining({ kind: 'threshold', period: 'month', state: 'open', spentUsd: PER_MILLION })]);
    expect((await api(f)('POST', `/budgets/alerts/${alerts[0].id}/decision`, { decision: 'raise', limitUsd: 50 })).status).toBe(400);
    expect((await api(f)('POST', `/budgets/alerts/${alerts[0].id}/decision`, { decision: 'dismiss' })).status).toBe(200);
    expect(await openAlerts(f)).toEqual([]);
  }, 60_000);
});
