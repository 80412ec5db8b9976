/**
 * A live view must end at the API's state: Plan Studio stayed at "Running — 0 of 2 steps done" after the
 * plan finished when its read of the plan was still in flight as the last plan event arrived — the read
 * landed after the event with the older state. The plan routes are answered in the browser (page.route)
 * so the read can be held exactly across the event; the event itself comes over the real stream.
 */
import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { signIn, startAppServer } from '../support/e2e/app-server.js';
import { createSeededWorkspace, type TestServer } from '../support/test-server.js';

let server: TestServer;
let ui: TestBrowser;
let ws: string;
let conversationId: string;

const POLL = { timeout: 60_000 };

function plan(finished: boolean) {
  const step = (key: string, title: string, dependsOn: string[]) => ({
    key,
    title,
    description: `${title}: the details.`,
    dependsOn,
    state: finished ? 'done' : 'pending',
    ticketId: null,
    runId: null,
    assigneeAgentId: null,
    error: null,
    level: null,
  });
  const nodes = [step('write', 'Write the note', []), step('check', 'Check the note', ['write'])];
  return {
    id: 'plan_race',
    conversationId,
    spaceId: null,
    agentId: 'ag_x',
    runId: null,
    goal: 'Write and check a note',
    status: finished ? 'completed' : 'executing',
    version: 1,
    stepCount: nodes.length,
    nodes,
    edges: [{ from: 'write', to: 'check' }],
    errors: [],
    progress: { settled: finished ? 2 : 0, total: 2 },
    costEstimate: { perNode: [], total: { inputTokens: null, outputTokens: null, usd: null }, basis: 'noHistory', historyRuns: 0, unknownReason: 'no run history', frozenAt: null, currency: 'USD' },
    actualCost: { usd: 0, inputTokens: 0, outputTokens: 0, runs: 0 },
    decidedBy: null,
    reason: null,
    decidedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:01:00.000Z',
  };
}

/** What the "API" says now; the first read of the plan is held and then answered with what it said when asked. */
let finished = false;
let releaseHeldRead!: () => void;
let heldReadAsked!: () => void;
const heldReadInFlight = new Promise<void>((resolve) => (heldReadAsked = resolve));
let staleAnswerDelivered = false;
let planReads = 0;

async function answerPlans(route: Route) {
  const url = new URL(route.request().url());
  const json = (body: unknown) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  if (url.pathname.endsWith('/plan_race')) {
    planReads += 1;
    if (planReads > 1) return json(plan(finished));
    const snapshot = plan(finished);
    await new Promise<void>((resolve) => {
      releaseHeldRead = resolve;
      heldReadAsked();
    });
    await json(snapshot);
    staleAnswerDelivered = true;
    return;
  }
  return json({ plans: [plan(finished)] });
}

beforeAll(async () => {
  server = await startAppServer();
  ws = (await createSeededWorkspace(server, 'Plans')).id;
  const space = (await server.api('POST', `/api/workspaces/${ws}/spaces`, { name: 'Notes' })).body;
  conversationId = (await server.api('POST', `/api/workspaces/${ws}/spaces/${space.id}/conversations`, { title: 'Note' })).body.id;
  ui = await launchBrowser();
  await ui.page.route(/\/api\/workspaces\/[^/]+\/plans(\/|\?|$)/, answerPlans);
  await signIn(ui.page, server);
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
});

describe('Plan Studio ends at the API state', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('a read of the plan that lands after the plan finished does not put the view back to "Running"', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}?plan=plan_race`);
    await expect.poll(() => page.getByTestId('live-status').textContent(), POLL).toContain('Live');
    await heldReadInFlight;

    // The plan finishes while Plan Studio's read is on its way: the event arrives first.
    finished = true;
    // A plan-shaped payload the page's routes also serve (the bus checks payloads at compile time only).
    server.running.app.events.publish(ws, 'plan.updated', plan(true) as never);
    const progress = page.getByTestId('plan-studio').getByTestId('plan-progress');
    await expect.poll(() => progress.textContent(), POLL).toBe('Finished — 2 of 2 steps done');

    releaseHeldRead();
    await expect.poll(() => staleAnswerDelivered, POLL).toBe(true);
    // Give the page the time to apply whatever it does with the late answer, then read the final state.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
    await expect.poll(() => progress.textContent(), POLL).toBe('Finished — 2 of 2 steps done');
    expect(planReads).toBeGreaterThan(1);
  });
});
