import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf, startCursorFixture, type CursorFixture } from './cursor-fixture.js';

/**
 * The Cursor transport's plan board (RLY-5), completion contract (HAR-4) and failure paths, through
 * the real server over HTTP with the fake SDK at the transport's seam.
 */
let fixture: CursorFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const SUBMIT = { mcpTool: 'submit_plan', args: { goal: 'Ship the parser', nodes: [{ key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] }] } };

describe('Cursor transport: plan ready board and completion contract (RLY-5, HAR-4)', { timeout: 60_000 }, () => {
  it('plan: Cursor’s createPlan becomes a native Plan ready board; submit_plan over the real MCP endpoint meets the contract', async () => {
    const f = (fixture = await startCursorFixture({ mode: 'plan' }));
    f.sdk.script([{ createPlan: '1. Read the grammar\n2. Write the parser' }, SUBMIT, { text: 'Plan submitted.' }]);
    const detail = await f.waitForRun(await f.send('plan the parser'));
    expect(detail.run.state).toBe('completed');
    expect(detail.run.deliverableFailed).toBe(false);
    expect(eventsOf(detail, 'plan_ready')).toEqual([{ type: 'plan_ready', plan: '1. Read the grammar\n2. Write the parser', source: 'native' }]);
    expect(eventsOf(detail, 'output_verb_delivered')).toHaveLength(1);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
  });

  it('plan: without createPlan, an answer that reads like a plan gets the board; a turn without submit_plan is reminded twice, then flagged', async () => {
    const f = (fixture = await startCursorFixture({ mode: 'plan' }));
    f.sdk.script([{ text: '## Plan\n1. Read\n2. Write' }], [{ text: 'Still thinking.' }], [{ text: 'Done thinking.' }]);
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.run.state).toBe('completed');
    expect(eventsOf(detail, 'plan_ready')).toEqual([expect.objectContaining({ source: 'answer', plan: '## Plan\n1. Read\n2. Write' })]);
    expect(eventsOf(detail, 'reminder_injected')).toHaveLength(2);
    expect(f.sdk.sends.map((send) => send.options?.mode)).toEqual(['plan', 'plan', 'plan']);
    expect(f.sdk.sends[1]!.message).toMatch(/submit_plan/);
    expect(detail.run.deliverableFailed).toBe(true);
  });

  it('agent: a plan-like answer outside plan gets no board', async () => {
    const f = (fixture = await startCursorFixture());
    f.sdk.script([{ text: '1. Did this\n2. Did that' }]);
    const detail = await f.waitForRun(await f.send('do'));
    expect(detail.run.state).toBe('completed');
    expect(eventsOf(detail, 'plan_ready')).toEqual([]);
  });
});

describe('Cursor transport: failures are reported, never left running', { timeout: 60_000 }, () => {
  it('the SDK ending a run in error fails the run with Cursor’s message', async () => {
    const f = (fixture = await startCursorFixture());
    f.sdk.script([{ text: 'Starting.' }, { fail: 'rate limited by Cursor' }]);
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe('The Cursor run ended error: rate limited by Cursor');
  });

  it('the SDK crashing mid-stream fails the run; an open tool call is closed as not executed', async () => {
    const f = (fixture = await startCursorFixture());
    f.sdk.script([{ cursorTool: 'read', args: { path: 'a' } }, { crash: 'connection to the agent process lost' }]);
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe('The Cursor SDK failed during the turn: connection to the agent process lost');
  });

  it('an SDK that cannot start an agent fails the run with the reason', async () => {
    const f = (fixture = await startCursorFixture());
    f.sdk.createError = new Error('Invalid API key');
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toBe('The Cursor runner could not start: Invalid API key');
  });

  it('no API key: the run fails naming CURSOR_API_KEY and the SDK is never called', async () => {
    const f = (fixture = await startCursorFixture({ env: { CURSOR_API_KEY: '' } }));
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/CURSOR_API_KEY/);
    expect(f.sdk.created).toHaveLength(0);
  });

  it('SEC-6: the Cursor runner key set in Settings (runnerKeys.cursor) is the one the SDK gets, ahead of the environment', async () => {
    const f = (fixture = await startCursorFixture({ env: { CURSOR_API_KEY: 'env-cursor-key' } }));
    const patched = await f.api('PATCH', `/api/workspaces/${f.workspaceId}/settings`, { runnerKeys: { cursor: 'settings-cursor-key' } });
    expect(patched.status).toBe(200);
    expect(patched.body.runnerKeys).toEqual({ cursor: 'set' });
    f.sdk.script([{ text: 'Done.' }]);
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('completed');
    expect(f.sdk.created.map((options) => options.apiKey)).toEqual(['settings-cursor-key']);
  });

  it('SEC-6: without --allow-unsandboxed-runners every Cursor run is refused before the SDK is called', async () => {
    const f = (fixture = await startCursorFixture({ transport: { allowUnsandboxed: false } }));
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/the Cursor SDK runs inside the server process, which no OS sandbox can wrap.*--allow-unsandboxed-runners/);
    expect(f.sdk.created).toHaveLength(0);
  });

  it('cancel: a hanging Cursor run is cancelled through the run route and ends cancelled', async () => {
    const f = (fixture = await startCursorFixture());
    f.sdk.script([{ text: 'Working…' }, { hang: true }]);
    const runId = await f.send('go');
    // Cancel once the SDK has the message: bounded by time, as a loaded machine can take seconds to get there.
    const sentBy = Date.now() + 30_000;
    while (f.sdk.sends.length === 0 && Date.now() < sentBy) await new Promise((resolve) => setTimeout(resolve, 25));
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/cancel`)).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('cancelled');
    expect(f.sdk.sends[0]!.cancelled).toBe(true);
  });
});
