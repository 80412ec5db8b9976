/**
 * BUD-1 in a real browser (real server, scripted model): a built-in run reaches the workspace's
 * daily spend limit and pauses; its budget decision waits in the Inbox; "Raise for this day" there
 * resumes the run, which completes, and the decision leaves the Inbox. Settings → Budgets shows the
 * limit with the raised amount in force and the price table with the day it was checked; the Costs
 * page charts the spend with the limit drawn and exports it as CSV.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ANTHROPIC_MODEL_ID, findModel } from '../../src/llm/model-catalog.js';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

let suite: LiveAppSuite | undefined;
let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;

beforeAll(async () => {
  suite = await startLiveAppSuite('Budget Co');
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
/** One call with a million input tokens costs exactly this on the agents' model. */
const PER_MILLION = findModel('anthropic', DEFAULT_ANTHROPIC_MODEL_ID).pricing!.inputPerMillion;

describe('a budget decision in the Inbox (BUD-1)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('the paused run waits for the decision; "Raise for this day" resumes it to the end', async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 800 });
    expect((await api('PUT', '/budgets/limits', { period: 'day', limitUsd: PER_MILLION / 2 })).status).toBe(200);
    const space = (await api('POST', '/spaces', { name: 'Spend' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Costly' })).body;
    model.script(reply().tool('list', { path: '.' }).usage({ input: 1_000_000, output: 0 }), reply().text('Finished after the raise.').usage({ input: 10, output: 5 }));
    const posted = await api('POST', `/conversations/${conversation.id}/messages`, { text: 'Spend a lot.' });
    expect(posted.status).toBe(202);
    const runId: string = posted.body.run.id;

    await page.goto(`${server.url}/w/${ws}/inbox`);
    const card = page.locator('[data-testid="budget-alert"][data-kind="limit"]');
    await card.waitFor({ timeout: 60_000 });
    await expect.poll(() => card.textContent(), { timeout: 30_000 }).toContain('paused until you decide');
    expect(await card.textContent()).toContain("The workspace's daily limit is reached");
    expect(model.requests).toHaveLength(1);
    await ui.screenshot('budget-decision-inbox');

    await card.getByTestId('budget-new-limit').fill(String(PER_MILLION * 3));
    await card.getByRole('button', { name: 'Raise for this day' }).click();
    // The final state the operator sees: the decision gone from the Inbox, and the run completed.
    await card.waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(async () => (await api('GET', `/runs/${runId}`)).body.run.state, { timeout: 60_000 }).toBe('completed');
    expect(model.requests).toHaveLength(2);

    await page.goto(`${server.url}/w/${ws}/settings/budgets`);
    const row = page.getByTestId('spend-limits').locator('tbody tr');
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toContain('this period');
    expect(await row.textContent()).toContain('Whole workspace');
    await expect.poll(() => page.getByTestId('prices-checked').textContent(), { timeout: 30_000 }).toMatch(/checked \d{4}-\d{2}/);
    await page.getByTestId('price-table').getByText(DEFAULT_ANTHROPIC_MODEL_ID).first().waitFor();
    await ui.screenshot('budget-settings');
  });

  it('the Costs page charts the spend with the limit drawn, lists it by model and exports CSV', async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/w/${ws}/costs`);
    const chart = page.getByTestId('spend-chart');
    await chart.locator('canvas').first().waitFor({ timeout: 60_000 });
    // The workspace's daily limit is drawn as its own series, named in the legend.
    await expect.poll(() => chart.textContent(), { timeout: 30_000 }).toContain('Workspace daily limit');
    await expect.poll(() => page.getByTestId('spend-total').textContent(), { timeout: 30_000 }).toMatch(/^\$[1-9]/);
    await ui.screenshot('costs-by-day');

    await page.getByRole('button', { name: 'Model' }).click();
    await expect.poll(() => page.getByTestId('spend-table').textContent(), { timeout: 30_000 }).toContain(DEFAULT_ANTHROPIC_MODEL_ID);
    const download = page.waitForEvent('download', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Export CSV' }).click();
    expect((await download).suggestedFilename()).toMatch(/^spend-by-model-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  });
});
