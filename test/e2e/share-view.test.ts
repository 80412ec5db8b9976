/**
 * Browser test (real chromium, real server, scripted model) for RLY-3: an operator makes a read-only
 * share link from the conversation header; a browser that never signed in opens it and sees the
 * messages, with no composer and no mode picker; after revoking, the same link opens nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser } from '../support/e2e/browser.js';
import { reply } from '../support/scripted-model-server.js';

let suite: LiveAppSuite | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite('Share Co');
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

describe('share view (RLY-3)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('a read-only link shows the conversation without signing in, hides the picker, and stops working when revoked', async () => {
    const { server, model, ui, workspaceId: ws } = suite!;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
    const space = (await api('POST', '/spaces', { name: 'Shared space' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Launch notes' })).body;
    model.script(reply().text('The launch is on Thursday.'));
    const posted = await api('POST', `/conversations/${conversation.id}/messages`, { text: 'When is the launch?' });
    await expect.poll(async () => (await api('GET', `/runs/${posted.body.run.id}`)).body.run.state, { timeout: 30_000 }).toBe('completed');

    const page = ui.page;
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    await page.getByRole('button', { name: 'Share…' }).click();
    await page.getByRole('button', { name: 'Create read-only link' }).click();
    const link = await page.getByTestId('share-link').inputValue();
    expect(link).toMatch(new RegExp(`^${server.url}/share/${ws}-[A-Za-z0-9_-]{43}$`));
    await ui.screenshot('share-panel');

    // A second browser with a fresh profile: no token, no cookie.
    const stranger = await launchBrowser();
    const strangerPage = stranger.page;
    await strangerPage.goto(link);
    await strangerPage.getByTestId('shared-conversation').waitFor();
    expect(await strangerPage.getByTestId('conversation-title').textContent()).toBe('Launch notes');
    const texts = await strangerPage.getByTestId('message').allTextContents();
    expect(texts.join('\n')).toContain('When is the launch?');
    expect(texts.join('\n')).toContain('The launch is on Thursday.');
    expect(await strangerPage.getByTestId('composer-input').count()).toBe(0);
    expect(await strangerPage.getByTestId('mode-picker').count()).toBe(0);
    expect(await strangerPage.getByRole('combobox').count()).toBe(0);
    expect(await strangerPage.getByLabel('Operator token').count()).toBe(0);
    await stranger.screenshot('share-view-stranger');

    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(async () => (await api('GET', `/conversations/${conversation.id}/shares`)).body.shares[0].revokedAt).not.toBeNull();
    await strangerPage.reload();
    await strangerPage.getByTestId('share-unavailable').waitFor();
    await stranger.close();
  }, 120_000);

  it("the agent editor's adapter list is every transport the server registered, not a list kept in the web app (ADP-1)", async () => {
    const { server, ui, workspaceId: ws } = suite!;
    const declared = (await server.api('GET', '/api/honesty-matrix')).body.transports as Array<{ adapterId: string; label: string }>;
    const agent = (await server.api('GET', `/api/workspaces/${ws}/agents`)).body.agents[0];
    await ui.page.goto(`${server.url}/w/${ws}/settings/agents/${agent.id}`);
    const adapter = ui.page.getByLabel('Adapter');
    await expect.poll(() => adapter.locator('option').count(), { timeout: 60_000 }).toBe(declared.length);
    const options = await adapter.locator('option').evaluateAll((elements) => elements.map((element) => ({ value: element.getAttribute('value') ?? '', label: element.textContent })));
    expect(options).toEqual(declared.map((transport) => ({ value: transport.adapterId === 'builtin' ? '' : transport.adapterId, label: transport.adapterId === 'builtin' ? 'Built-in harness' : transport.label })));
    expect(options.map((option) => option.value)).toEqual(expect.arrayContaining(['', 'claude-code', 'acp']));
  }, 60_000);
});
