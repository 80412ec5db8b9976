/**
 * CTX-3 in the web app, in a real browser against a real server and the scripted model: "Rewind to
 * before this" on an operator's message takes it and what followed out of the conversation, the
 * banner offers Restore, and Restore brings them back.
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

describe('rewind in the conversation (CTX-3, UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('the rewind button archives the message and what followed; Restore brings them back', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Rewinding' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Two turns' })).body;
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    const input = page.getByTestId('composer-input');
    await input.waitFor();
    const answered = (text: string) => page.locator('[data-testid="message"].message-assistant', { hasText: text }).waitFor({ timeout: 60_000 });
    model.script(reply().text('First answer.'));
    await input.fill('first question');
    await input.press('Enter');
    await answered('First answer.');
    model.script(reply().text('Second answer.'));
    await input.fill('second question');
    await input.press('Enter');
    await answered('Second answer.');
    // The answer shows as its message lands, a moment before its run has ended; the server refuses a
    // rewind while a turn runs (and the page says so), so wait for the turn to be over, as a person would.
    const turnsOver = async () => ((await api('GET', `/runs?conversationId=${conversation.id}`)).body.runs as Array<{ state: string }>).every((run) => run.state !== 'running' && run.state !== 'queued');
    await expect.poll(turnsOver, { timeout: 60_000 }).toBe(true);
    await expect.poll(() => page.getByTestId('live-turn').count(), { timeout: 60_000 }).toBe(0);

    const second = page.locator('[data-testid="message"].message-user', { hasText: 'second question' });
    await second.getByTestId('rewind-button').click();
    await page.getByTestId('rewind-entry').waitFor();
    await expect.poll(() => page.locator('[data-testid="message"].message-user', { hasText: 'second question' }).count()).toBe(0);
    // The system line says what happened.
    await expect.poll(() => page.locator('[data-testid="message"].message-system', { hasText: 'Rewound to before "second question": 2 messages archived' }).count(), { timeout: 60_000 }).toBe(1);
    expect(await page.locator('[data-testid="message"]', { hasText: 'Second answer.' }).count()).toBe(0);
    expect(await page.locator('[data-testid="message"]', { hasText: 'First answer.' }).count()).toBe(1);
    expect(await page.getByTestId('rewind-entry').textContent()).toContain('2 messages archived');
    await ui.screenshot('rewound-conversation');

    await page.getByTestId('restore-rewind').click();
    await page.locator('[data-testid="message"]', { hasText: 'Second answer.' }).waitFor();
    // The banner is the rewinds list, refetched on its own: it can outlast the restored messages by a moment.
    await expect.poll(() => page.getByTestId('rewind-banner').count(), { timeout: 60_000 }).toBe(0);
    const rewinds = (await api('GET', `/conversations/${conversation.id}/rewinds`)).body.rewinds;
    expect(rewinds).toHaveLength(1);
    expect(rewinds[0].restoredAt).not.toBeNull();
  });
});
