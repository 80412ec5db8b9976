/**
 * Plan Studio against the plan JSON (src/schemas/plan.ts), with the plan routes answered inside the browser
 * (page.route). It covers what a live backend can hardly produce on demand — a plan with validation
 * errors (Approve disabled, errors listed) — and the exact requests the UI sends: approve, stop,
 * cancel a node. The live flow against the real backend is in plan-flow.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { signIn, startAppServer } from '../support/e2e/app-server.js';
import { createSeededWorkspace, type TestServer } from '../support/test-server.js';


let server: TestServer;
let ui: TestBrowser;
let ws: string;
let conversationId: string;

const node = (key: string, title: string, dependsOn: string[], state = 'pending') => ({
  key,
  title,
  description: `${title}: the details.`,
  dependsOn,
  state,
  ticketId: null,
  runId: null,
  assigneeAgentId: null,
  error: null,
  level: null,
});

const cost = (entries: Array<[string, number]>, frozenAt: string | null = null) => ({
  perNode: entries.map(([key, usd]) => ({ key, inputTokens: 12_000, outputTokens: 3_000, usd })),
  total: { inputTokens: 12_000 * entries.length, outputTokens: 3_000 * entries.length, usd: entries.reduce((sum, [, usd]) => sum + usd, 0) },
  basis: 'history',
  historyRuns: 5,
  unknownReason: null,
  frozenAt,
  currency: 'USD',
});

/** What the server sends for an agent without run history (TRUTH-3): no figures, and why. */
const unknownCost = (keys: string[]) => ({
  perNode: keys.map((key) => ({ key, inputTokens: null, outputTokens: null, usd: null })),
  total: { inputTokens: null, outputTokens: null, usd: null },
  basis: 'noHistory',
  historyRuns: 0,
  unknownReason: 'no run history',
  frozenAt: null,
  currency: 'USD',
});

const base = () => ({ spaceId: null, agentId: 'ag_x', runId: null, decidedBy: null, reason: null, decidedAt: null, updatedAt: '2026-01-01T00:02:00.000Z' });

function invalidPlan() {
  const nodes = [node('one', 'First step', []), node('two', 'Second step', ['ghost'])];
  return {
    ...base(),
    id: 'plan_invalid',
    conversationId,
    goal: 'A plan with a dangling dependency',
    status: 'proposed',
    version: 1,
    stepCount: nodes.length,
    nodes,
    edges: [{ from: 'one', to: 'two' }],
    errors: [{ code: 'dangling_dependency', message: 'depends on "ghost", which does not exist', field: 'nodes.1.dependsOn', nodeKey: 'two' }],
    progress: { settled: 0, total: 2 },
    costEstimate: unknownCost(['one', 'two']),
    actualCost: { usd: 0, inputTokens: 0, outputTokens: 0, runs: 0 },
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

let validState: 'proposed' | 'executing' = 'proposed';
function validPlan() {
  const running = validState === 'executing';
  const nodes = [
    node('research', 'Read the exporter', [], running ? 'done' : 'pending'),
    node('build', 'Add the button', ['research'], running ? 'running' : 'pending'),
    node('verify', 'Verify the file', ['build']),
  ];
  return {
    ...base(),
    id: 'plan_valid',
    conversationId,
    goal: 'Ship the export button',
    status: validState,
    version: 2,
    stepCount: nodes.length,
    nodes,
    edges: [{ from: 'research', to: 'build' }, { from: 'build', to: 'verify' }],
    errors: [],
    progress: { settled: running ? 1 : 0, total: 3 },
    // Frozen with the approval (TRUTH-3): the running plan keeps the figure it was approved at.
    costEstimate: cost([['research', 0.012], ['build', 0.03], ['verify', 0.008]], running ? '2026-01-01T00:01:30.000Z' : null),
    actualCost: { usd: running ? 0.0213 : 0, inputTokens: running ? 9_000 : 0, outputTokens: running ? 900 : 0, runs: running ? 1 : 0 },
    createdAt: '2026-01-01T00:01:00.000Z',
  };
}

/** The plan where the last step needs both earlier ones: its edge from the first crosses the second's column. */
function skippingPlan() {
  const nodes = [node('api', 'Add the export endpoint', []), node('ui', 'Add the button', ['api']), node('tests', 'Test both', ['api', 'ui'])];
  return {
    ...base(),
    id: 'plan_skip',
    conversationId,
    goal: 'Add a CSV export button',
    status: 'proposed',
    version: 1,
    stepCount: nodes.length,
    nodes,
    edges: [{ from: 'api', to: 'ui' }, { from: 'api', to: 'tests' }, { from: 'ui', to: 'tests' }],
    errors: [],
    progress: { settled: 0, total: 3 },
    costEstimate: unknownCost(['api', 'ui', 'tests']),
    actualCost: { usd: 0, inputTokens: 0, outputTokens: 0, runs: 0 },
    createdAt: '2026-01-01T00:00:30.000Z',
  };
}

/**
 * Run in the page: each drawn edge, sampled along its path in screen coordinates, and the steps other
 * than its two ends that a sample falls inside (a line drawn behind a step). Edges are SVG under the
 * steps' boxes, so such a line is hidden and the graph reads like a chain.
 */
const EDGES_BEHIND_STEPS = `(() => {
  const boxes = [...document.querySelectorAll('[data-testid="plan-studio"] [data-node-key]')].map((element) => ({ key: element.getAttribute('data-node-key'), rect: element.getBoundingClientRect() }));
  return [...document.querySelectorAll('[data-testid="plan-studio"] .react-flow__edge')].map((edge) => {
    const [from, to] = edge.getAttribute('data-id').split('->');
    const path = edge.querySelector('path.react-flow__edge-path');
    const matrix = path.getScreenCTM();
    const length = path.getTotalLength();
    const behind = new Set();
    for (let at = 0; at <= 200; at += 1) {
      const point = path.getPointAtLength((length * at) / 200).matrixTransform(matrix);
      for (const { key, rect } of boxes) {
        if (key === from || key === to) continue;
        if (point.x > rect.left + 2 && point.x < rect.right - 2 && point.y > rect.top + 2 && point.y < rect.bottom - 2) behind.add(key);
      }
    }
    return edge.getAttribute('data-id') + (behind.size ? ' behind ' + [...behind].join(', ') : ' clear');
  }).sort();
})()`;

const posted: string[] = [];

async function answerPlans(route: Route) {
  const request = route.request();
  const url = new URL(request.url());
  const json = (body: unknown) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  if (request.method() === 'POST') {
    posted.push(`${url.pathname.replace(/^.*\/plans\//, '')}`);
    if (url.pathname.endsWith('/plan_valid/approve')) validState = 'executing';
    return json(validPlan());
  }
  if (url.pathname.endsWith('/plans')) return json({ plans: [invalidPlan(), validPlan()] });
  // Opened by its id only (`?plan=plan_skip`): the plan rows above stay the two the first test counts.
  if (url.pathname.endsWith('/plan_skip')) return json(skippingPlan());
  if (url.pathname.endsWith('/plan_invalid')) return json(invalidPlan());
  if (url.pathname.endsWith('/plan_valid')) return json(validPlan());
  return route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: { code: 'not_found', message: 'no such plan' } }) });
}

beforeAll(async () => {
  server = await startAppServer();
  ws = (await createSeededWorkspace(server, 'Acme')).id;
  const space = (await server.api('POST', `/api/workspaces/${ws}/spaces`, { name: 'Feature' })).body;
  conversationId = (await server.api('POST', `/api/workspaces/${ws}/spaces/${space.id}/conversations`, { title: 'Export' })).body.id;
  ui = await launchBrowser();
  await ui.page.route(/\/api\/workspaces\/[^/]+\/plans(\/|\?|$)/, answerPlans);
  await signIn(ui.page, server);
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
});

describe('Plan Studio (PLAN-3, PLAN-7, PLAN-8) against the documented plan JSON', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('plan rows show goal, status and step count; an invalid plan cannot be approved and lists its errors', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    const rows = page.getByTestId('plan-row');
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(2);
    const invalidRow = rows.filter({ hasText: 'dangling dependency' });
    expect(await invalidRow.textContent()).toContain('2 steps');
    // No run history: the row says the estimate is unknown and why, never "$0.00".
    expect(await invalidRow.getByTestId('plan-row-cost').textContent()).toBe('estimated unknown (no run history)');
    expect(await invalidRow.getByRole('button', { name: 'Approve and run' }).isDisabled()).toBe(true);
    await invalidRow.getByRole('button', { name: 'Open' }).click();
    const studio = page.getByTestId('plan-studio');
    await studio.waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('plan')).toBe('plan_invalid');
    expect(await studio.getByRole('button', { name: 'Approve plan' }).isDisabled()).toBe(true);
    expect(await studio.getByTestId('plan-errors').textContent()).toContain('two: depends on "ghost"');
    expect(await studio.getByTestId('cost-estimate').locator('.cost-total').textContent()).toBe('unknown (no run history)');
    expect(await studio.getByTestId('cost-summary').textContent()).toMatch(/^estimated unknown \(no run history\) · spent/);
    await expect.poll(() => studio.getByTestId('plan-node').count()).toBe(2);
    await ui.screenshot('plan-studio-invalid');
  });

  it('lays the graph out left to right, inspects a node, shows the cost, approves, follows progress, stops and cancels', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}?plan=plan_valid`);
    const studio = page.getByTestId('plan-studio');
    // The Plan Studio chunk loads lazily; on a busy 2-core machine that alone can
    // take longer than expect.poll's default second.
    await expect.poll(() => studio.getByTestId('plan-node').count(), { timeout: 60_000 }).toBe(3);
    const x = async (key: string) => (await studio.locator(`[data-node-key="${key}"]`).boundingBox())!.x;
    expect(await x('research')).toBeLessThan(await x('build'));
    expect(await x('build')).toBeLessThan(await x('verify'));
    expect(await studio.getByTestId('cost-estimate').textContent()).toContain('$0.05');
    await studio.locator('[data-node-key="build"]').click();
    const inspector = studio.getByTestId('node-inspector');
    await expect.poll(() => inspector.textContent(), { timeout: 60_000 }).toContain('Add the button: the details.');
    expect(await inspector.textContent()).toContain('research');
    expect(await inspector.textContent()).toContain('$0.03');
    await ui.screenshot('plan-studio-valid');

    await studio.getByRole('button', { name: 'Approve plan' }).click();
    await expect.poll(() => posted).toContain('plan_valid/approve');
    await expect.poll(() => studio.getByTestId('plan-progress').textContent()).toBe('Running — 1 of 3 steps done, 1 in progress');
    await expect.poll(() => studio.locator('[data-node-key="research"]').getAttribute('data-state')).toBe('done');
    expect(await studio.locator('[data-node-key="build"]').getAttribute('data-state')).toBe('running');
    expect(await studio.getByRole('button', { name: 'Approve plan' }).count()).toBe(0);
    // The estimate it was approved at, with actual beside it, in the cost panel and on the plan row.
    await expect.poll(() => studio.getByTestId('cost-summary').textContent()).toMatch(/^estimated \$0\.05 · spent \$[\d.]+$/);
    expect(await studio.getByTestId('cost-estimate').textContent()).toContain('frozen at approval');

    await studio.locator('[data-node-key="build"]').click();
    await studio.getByRole('button', { name: 'Cancel this step' }).click();
    await expect.poll(() => posted).toContain('plan_valid/nodes/build/cancel');
    // Stop asks first: one click used to cancel everything.
    await studio.getByRole('button', { name: 'Stop…' }).click();
    expect(posted).not.toContain('plan_valid/cancel');
    await studio.getByRole('alertdialog', { name: 'Stop the plan?' }).getByRole('button', { name: 'Stop plan' }).click();
    await expect.poll(() => posted).toContain('plan_valid/cancel');
    await ui.screenshot('plan-studio-running');

    // The side panel's Tasks row: the goal with settled/total (PLAN-8).
    await page.getByRole('tab', { name: 'Conversation' }).click();
    await expect.poll(() => page.getByTestId('goal-progress').textContent()).toBe('Running — 1 of 3 steps done, 1 in progress');
    expect(await page.getByTestId('goal-row').textContent()).toContain('Ship the export button');
    // The plan rows are the plans list, refetched on its own after the approval: wait for its figures.
    const validRowCost = page.getByTestId('plan-row').filter({ hasText: 'Ship the export button' }).getByTestId('plan-row-cost');
    await expect.poll(() => validRowCost.textContent(), { timeout: 60_000 }).toBe('estimated $0.05 · spent $0.0213');

  });

  it('keyboard: the steps list selects nodes without a mouse', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}?plan=plan_valid`);
    const studio = page.getByTestId('plan-studio');
    await studio.getByRole('button', { name: /Verify the file/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => studio.getByTestId('node-inspector').textContent(), { timeout: 60_000 }).toContain('Verify the file: the details.');
  });

  it('an edge that skips a column goes round the step between, never behind it, at 1440 and on a phone', async () => {
    const { page } = ui;
    const clear = ['api->tests clear', 'api->ui clear', 'ui->tests clear'];
    try {
      for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
        await page.setViewportSize(viewport);
        await page.goto(`${server.url}/w/${ws}/c/${conversationId}?plan=plan_skip`);
        const studio = page.getByTestId('plan-studio');
        // A phone opens on the step list: the graph is one tap away.
        await studio.getByRole('button', { name: 'Graph' }).click({ timeout: 60_000 });
        await expect.poll(() => studio.getByTestId('plan-node').count(), { timeout: 60_000 }).toBe(3);
        await expect.poll(() => page.evaluate(EDGES_BEHIND_STEPS), { timeout: 60_000 }).toEqual(clear);
        await ui.screenshot(`plan-studio-skipping-edge-${viewport.width}`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
