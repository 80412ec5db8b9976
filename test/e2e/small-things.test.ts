/**
 * The small things (UI): a real "not found" page, the selected space highlighted, plain
 * words instead of internal names, Plan Studio's graph nodes reachable by keyboard, the tickets
 * board side by side with done dependencies not blocking, a review linking to its conversation,
 * and the workspace's Runs page.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { planStepRequest } from '../support/plan-server-fixtures.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { makeReviewRepo } from '../support/review-repo.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;
let suite: LiveAppSuite | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);

describe('small things (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('a path no screen matches shows "Page not found" with a way back', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/no-such-screen`);
    const notFound = page.getByTestId('not-found');
    await notFound.waitFor();
    expect(await notFound.textContent()).toContain(`/w/${ws}/no-such-screen`);
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/no-such-screen`);
    await ui.screenshot('not-found');
    await notFound.getByRole('link', { name: 'Go to conversations' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${ws}`);
  });

  it('the selected space is highlighted; an approval says what the action does in words', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Words' })).body;
    await api('PATCH', `/spaces/${space.id}`, { picker: 'Agent' });
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Words' })).body;
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    await page.getByTestId('composer-input').waitFor();
    const activeSpace = page.locator('.space-item.active > .space-row .space-link');
    expect(await activeSpace.textContent()).toContain('Words');
    const background = await activeSpace.evaluate((element) => (globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor);
    expect(background).not.toBe('rgba(0, 0, 0, 0)');

    model.script(reply().tool('bash', { command: 'rm -f scratch.txt' }), reply().text('Removed.'));
    await expect.poll(() => page.getByTestId('live-status').textContent()).toBe('Live');
    await page.getByTestId('composer-input').fill('Delete scratch.txt');
    await page.getByTestId('composer-input').press('Enter');
    const approval = page.getByTestId('approval');
    await approval.waitFor({ timeout: 60_000 });
    const text = (await approval.textContent()) ?? '';
    expect(text).toContain('deletes files');
    expect(text).not.toContain('fileDelete');
    await ui.screenshot('approval-in-words');
    await approval.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'Removed.' }).waitFor({ timeout: 60_000 });
  });

  it('Plan Studio graph nodes are reachable with Tab and selected with Enter', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Graph' })).body;
    await api('PATCH', `/spaces/${space.id}`, { picker: 'Plan' });
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Graph' })).body;
    model.script(
      reply().tool('submit_plan', {
        goal: 'Keyboard graph',
        nodes: [
          { key: 'first', title: 'First step', description: 'The first step, in detail.', dependsOn: [] },
          { key: 'second', title: 'Second step', description: 'The second step, in detail.', dependsOn: ['first'] },
        ],
      }),
      reply().text('Submitted.'),
    );
    await api('POST', `/conversations/${conversation.id}/messages`, { text: 'Plan it' });
    const plan = await (async () => {
      for (let attempt = 0; attempt < 300; attempt += 1) {
        const plans = (await api('GET', `/plans?conversationId=${conversation.id}`)).body.plans;
        if (plans[0]) return plans[0];
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('no plan');
    })();
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}?plan=${plan.id}`);
    const studio = page.getByTestId('plan-studio');
    await expect.poll(() => studio.getByTestId('plan-node').count(), { timeout: 60_000 }).toBe(2);
    const node = studio.locator('.react-flow__node').filter({ hasText: 'Second step' });
    expect(await node.getAttribute('tabindex')).toBe('0');
    expect(await node.getAttribute('aria-label')).toContain('Second step');
    await node.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => studio.getByTestId('node-inspector').textContent()).toContain('The second step, in detail.');
    // Plain words for the step state, not the internal name.
    expect(await studio.locator('[data-node-key="second"]').textContent()).toContain('not started');
    await ui.screenshot('plan-studio-keyboard');
  });
});

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

describe('smaller things, second pass (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it("the tickets board has its columns side by side at 1440, and a finished plan's step tickets wait on nothing", async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Board' })).body;
    await api('PATCH', `/spaces/${space.id}`, { picker: 'Plan' });
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Board' })).body;
    model.script(
      reply().tool('submit_plan', {
        goal: 'Import the data',
        nodes: [
          { key: 'schema', title: 'Design the schema', description: 'Tables first.', dependsOn: [] },
          { key: 'importer', title: 'Build the importer', description: 'Then the importer.', dependsOn: ['schema'] },
        ],
      }),
      reply().text('Submitted.'),
    );
    await api('POST', `/conversations/${conversation.id}/messages`, { text: 'Plan the import' });
    let planId = '';
    await expect.poll(async () => (planId = (await api('GET', `/plans?conversationId=${conversation.id}`)).body.plans[0]?.id ?? ''), { timeout: 60_000 }).not.toBe('');
    model.scriptFor(planStepRequest('schema'), reply().text('Schema designed.'));
    model.scriptFor(planStepRequest('importer'), reply().text('Importer built.'));
    expect((await api('POST', `/plans/${planId}/approve`)).status).toBe(200);
    await expect.poll(async () => (await api('GET', `/plans/${planId}`)).body.status, { timeout: 90_000 }).toBe('completed');

    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.url}/w/${ws}/tickets`);
    const card = page.getByTestId('ticket-card').filter({ hasText: 'Build the importer' });
    await expect.poll(() => card.getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    // Its dependency is named by its title, done, and nothing waits.
    await expect.poll(() => card.getByTestId('ticket-deps').textContent(), { timeout: 60_000 }).toContain('Design the schema (done)');
    expect(await card.textContent()).not.toContain('waiting on');
    const columns = await page.getByTestId('ticket-column').evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect()).map((rect) => ({ x: rect.x, y: rect.y, right: rect.right })));
    expect(columns).toHaveLength(6);
    expect(new Set(columns.map((column) => column.y)).size).toBe(1);
    for (let index = 1; index < columns.length; index += 1) expect(columns[index]!.x).toBeGreaterThan(columns[index - 1]!.x);
    expect(Math.max(...columns.map((column) => column.right))).toBeLessThanOrEqual(DESKTOP.width);
    await ui.screenshot('desktop-1440-tickets-board');
  });

  it('a review page links to its conversation', async () => {
    const { page } = ui;
    const { repo } = await makeReviewRepo();
    try {
      const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature', title: 'Add triple()' });
      expect(opened.status).toBe(201);
      const review = { body: opened.body.review as { id: string; conversationId: string } };
      await page.setViewportSize(DESKTOP);
      await page.goto(`${server.url}/w/${ws}/reviews/${review.body.id}`);
      const link = page.getByRole('link', { name: 'Open its conversation' });
      await link.waitFor({ timeout: 60_000 });
      await ui.screenshot('desktop-1440-review');
      await link.click();
      await expect.poll(() => new URL(page.url()).pathname, { timeout: 60_000 }).toBe(`/w/${ws}/c/${review.body.conversationId}`);
      await page.getByTestId('conversation-title').waitFor({ timeout: 60_000 });
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });

  it("the Runs page lists the workspace's runs, filters them by state, agent and space, and links to each", async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Runs here' })).body;
    await api('PATCH', `/spaces/${space.id}`, { picker: 'Agent' });
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Runs here' })).body;
    model.script(reply().text('Done here.'));
    await api('POST', `/conversations/${conversation.id}/messages`, { text: 'Say done' });
    let run: { id: string; agentId: string; state: string } | undefined;
    await expect
      .poll(async () => {
        run = (await api('GET', `/runs?conversationId=${conversation.id}&topLevel=true`)).body.runs[0];
        return run?.state;
      }, { timeout: 60_000 })
      .toBe('completed');
    const agentName = (await api('GET', `/agents/${run!.agentId}`)).body.name as string;

    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.url}/w/${ws}`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${ws}/runs`);
    const row = page.locator(`[data-testid="run-row"][data-run-id="${run!.id}"]`);
    await row.waitFor({ timeout: 60_000 });
    expect(await row.textContent()).toContain(agentName);
    expect(await row.textContent()).toContain('Runs here');

    // Filters narrow the list on the server and live in the URL.
    await page.getByLabel('Space', { exact: true }).selectOption(space.id);
    await expect.poll(() => new URL(page.url()).search, { timeout: 30_000 }).toContain(`space=${space.id}`);
    await expect.poll(() => page.getByTestId('run-row').evaluateAll((rows) => rows.map((element) => element.getAttribute('data-run-id'))), { timeout: 60_000 }).toEqual([run!.id]);
    await page.getByLabel('State', { exact: true }).selectOption('failed');
    await page.getByText('No runs match these filters').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Show all' }).click();
    await row.waitFor({ timeout: 60_000 });
    await page.getByLabel('Agent', { exact: true }).selectOption(run!.agentId);
    await page.getByLabel('State', { exact: true }).selectOption('completed');
    await row.waitFor({ timeout: 60_000 });
    await ui.screenshot('desktop-1440-runs');

    await page.setViewportSize(PHONE);
    await expect.poll(() => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), { timeout: 30_000 }).toBe(true);
    await ui.screenshot('phone-runs');
    await page.setViewportSize(DESKTOP);

    await row.getByRole('link').first().click();
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 60_000 }).toBe(`/w/${ws}/runs/${run!.id}`);
  });
});
