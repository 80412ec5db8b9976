/**
 * TRUTH-3: an approved plan keeps the estimate it was approved at, with the recorded actual cost
 * beside it — in the API and in the CLI's `plans show`/`plans`. Real server, real runs on the
 * built-in harness; the scripted model reports the token usage.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import type { ScriptedRequest } from '../../support/scripted-reply.js';
import type { ScriptedConversation } from '../../support/scripted-model-server.js';

const run = promisify(execFile);
let fixture: HarnessFixture;
/** The plan steps' model conversation: each test queues the replies (and token usage) its steps get. */
let steps: ScriptedConversation;

beforeAll(async () => {
  fixture = await startHarnessFixture();
  steps = fixture.model.scriptFor((request: ScriptedRequest) => request.lastUserText?.includes('Now do step') === true);
}, 120_000);
afterAll(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--url', fixture.server.url, '--token', fixture.server.token, ...args, '-w', fixture.workspaceId]);
  return stdout;
}

async function waitForPlan(planId: string, status: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const plan = (await api('GET', `/plans/${planId}`)).body;
    if (plan.status === status) return plan;
    if (Date.now() > deadline) throw new Error(`plan ${planId} is ${plan.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The agent plans two steps (one, then two) and the plan waits for the operator. */
async function proposePlan(goal: string): Promise<any> {
  fixture.model.script(
    reply().tool('submit_plan', {
      goal,
      nodes: [
        { key: 'one', title: 'First', description: 'x'.repeat(500), dependsOn: [] },
        { key: 'two', title: 'Second', description: 'x'.repeat(500), dependsOn: ['one'] },
      ],
    }),
    reply().text('Submitted.'),
  );
  const started = await api('POST', `/conversations/${fixture.conversationId}/messages`, { text: `/plan ${goal}` });
  expect(started.status).toBe(202);
  await fixture.waitForRun(started.body.run.id);
  const plans = (await api('GET', `/plans?conversationId=${fixture.conversationId}`)).body.plans as any[];
  return plans.find((plan) => plan.goal === goal && plan.status === 'proposed');
}

// Each test starts real CLI processes and runs real plan steps: minutes on a loaded machine, not seconds.
describe('plan estimates stay put (TRUTH-3)', { timeout: 180_000 }, () => {
  it('without run history the estimate is unknown, says so, and stays so after approval', async () => {
    const plan = await proposePlan('Plan without history');
    expect(plan.costEstimate).toMatchObject({ basis: 'noHistory', unknownReason: 'no run history', frozenAt: null, total: { usd: null, inputTokens: null } });
    expect(plan.costEstimate.perNode.map((node: any) => node.usd)).toEqual([null, null]);
    expect(plan.actualCost).toEqual({ usd: 0, inputTokens: 0, outputTokens: 0, runs: 0 });
    expect(await cli('plans', 'show', plan.id)).toContain('estimated unknown (no run history) · spent $0.0000');

    // The steps run and the agent now has history; the approved plan still shows what was approved.
    const small = () => reply().text('Step done.').usage({ input: 10_000, output: 1_000 });
    steps.script(small(), small());
    const approved = await api('POST', `/plans/${plan.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.costEstimate).toMatchObject({ basis: 'noHistory', unknownReason: 'no run history', frozenAt: approved.body.decidedAt });
    const done = await waitForPlan(plan.id, 'completed');
    expect(done.costEstimate).toEqual(approved.body.costEstimate);
    expect(done.actualCost.runs).toBe(2);
    expect(done.actualCost.inputTokens).toBe(20_000);
  });

  it('an approved plan keeps the estimate it was approved at while its steps cost something else; actual is shown beside it', async () => {
    const plan = await proposePlan('Plan with history');
    expect(plan.costEstimate.basis).toBe('history');
    expect(plan.costEstimate.total.usd).toEqual(expect.any(Number));
    expect(plan.costEstimate.unknownReason).toBeNull();

    // The steps use far more tokens than any run before: a recomputed estimate would move.
    const big = () => reply().text('Big step done.').usage({ input: 400_000, output: 40_000 });
    steps.script(big(), big());
    const approved = await api('POST', `/plans/${plan.id}/approve`);
    expect(approved.status).toBe(200);
    const frozen = approved.body.costEstimate;
    expect(frozen).toMatchObject({ basis: 'history', frozenAt: approved.body.decidedAt });
    const estimated = frozen.total.usd as number;
    expect(estimated).toBeGreaterThan(0);

    const done = await waitForPlan(plan.id, 'completed');
    expect(done.costEstimate).toEqual(frozen);
    // Actual: what the two step runs recorded, summed.
    const stepRuns = await Promise.all(done.nodes.map(async (node: any) => (await api('GET', `/runs/${node.runId}`)).body.run));
    const recorded = stepRuns.reduce((sum: number, stepRun: any) => sum + stepRun.costUsd, 0);
    expect(recorded).toBeGreaterThan(estimated);
    expect(done.actualCost.usd).toBeCloseTo(recorded, 6);
    expect(done.actualCost).toMatchObject({ inputTokens: 800_000, outputTokens: 80_000, runs: 2 });

    // A proposal now would be estimated from the grown history: a different figure than the frozen one.
    const next = await proposePlan('Plan after the big steps');
    expect(next.costEstimate.total.usd).not.toBe(estimated);
    expect((await api('GET', `/plans/${plan.id}`)).body.costEstimate.total.usd).toBe(estimated);

    const dollars = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
    const shown = await cli('plans', 'show', plan.id);
    expect(shown).toContain(`estimated ${dollars(estimated)} · spent ${dollars(done.actualCost.usd)}`);
    expect(shown).toContain('estimate frozen at approval');
    const listed = (await cli('plans')).split('\n').find((line) => line.startsWith(plan.id));
    expect(listed).toContain(`estimated ${dollars(estimated)} · spent ${dollars(done.actualCost.usd)}`);
  });

  it('a plan approved before estimates were kept says "unknown (not recorded at approval)", not a recomputed figure', async () => {
    const plans = (await api('GET', `/plans?conversationId=${fixture.conversationId}`)).body.plans as any[];
    const approved = plans.find((plan) => plan.goal === 'Plan with history');
    const db = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    await db.updateTable('plans').set({ approved_estimate: null }).where('id', '=', approved.id).execute();
    const shown = (await api('GET', `/plans/${approved.id}`)).body;
    expect(shown.costEstimate).toMatchObject({ basis: 'notRecorded', unknownReason: 'not recorded at approval', total: { usd: null } });
    expect(shown.actualCost.usd).toBe(approved.actualCost.usd);
    expect(await cli('plans', 'show', approved.id)).toContain(`estimated unknown (not recorded at approval) · spent $`);
  });
});
