/**
 * The small things (UI): a real "not found" page, the selected space highlighted, plain
 * words instead of internal names, and Plan Studio's graph nodes reachable by keyboard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
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
