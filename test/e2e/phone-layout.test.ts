/**
 * UI: the three-column layout collapses on phones and tablets — the navigation becomes a
 * drawer behind "Menu", the conversation takes the full width, the side panel is a sheet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let ui: TestBrowser;
let ws: string;
let suite: LiveAppSuite | undefined;
let conversationId: string;

beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, ui, workspaceId: ws } = suite);
  const space = (await server.api('POST', `/api/workspaces/${ws}/spaces`, { name: 'Mobile' })).body;
  conversationId = (await server.api('POST', `/api/workspaces/${ws}/spaces/${space.id}/conversations`, { title: 'On the train' })).body.id;
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const visible = (page: Page, selector: string) => page.locator(selector).first().isVisible();
const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;
const noSidewaysScroll = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');

describe('phone and tablet layout (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('phone 390×844: navigation is a drawer, the conversation is full width, the side panel a sheet', async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    await page.getByTestId('composer-input').waitFor();
    expect(await visible(page, '.sidebar')).toBe(false);
    expect(await visible(page, '.mainnav')).toBe(false);
    expect(await visible(page, '.side-panel')).toBe(false);
    const main = await box(page, '.conversation-main');
    expect(main.width).toBeGreaterThan(380);
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-conversation');

    // The side panel opens as a sheet over the conversation, and closes.
    await page.getByRole('button', { name: 'Tasks', exact: true }).click();
    await expect.poll(() => visible(page, '.side-panel'), { timeout: 60_000 }).toBe(true);
    const sheet = await box(page, '.side-panel');
    expect(sheet.width).toBeGreaterThan(380);
    expect(sheet.y).toBeGreaterThan(100);
    await ui.screenshot('phone-side-panel-sheet');
    await page.getByRole('complementary', { name: 'Tasks and runs' }).getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => visible(page, '.side-panel')).toBe(false);

    // Menu opens the navigation and the spaces; choosing a conversation closes it.
    await page.getByRole('button', { name: 'Open menu' }).click();
    await expect.poll(() => visible(page, '.mainnav'), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => visible(page, '.sidebar'), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => visible(page, '.conversation-main'), { timeout: 60_000 }).toBe(false);
    expect((await box(page, '.sidebar')).width).toBeGreaterThan(380);
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-menu-open');
    await page.locator('.sidebar').getByRole('link', { name: 'On the train' }).click();
    await expect.poll(() => visible(page, '.sidebar')).toBe(false);
    await expect.poll(() => visible(page, '.conversation-main')).toBe(true);

    // The main navigation from the drawer.
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('link', { name: /^Settings/ }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${ws}/settings/agents`);
    await expect.poll(() => visible(page, '.mainnav')).toBe(false);
    await page.locator('[data-agent-name="qa"] a').click();
    await page.getByLabel('Persona').waitFor();
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-agent-editor');
  });

  it('tablet 820×1180: spaces stay on the left, the side panel is a sheet', async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 820, height: 1180 });
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    await page.getByTestId('composer-input').waitFor();
    expect(await visible(page, '.sidebar')).toBe(true);
    expect(await visible(page, '.mainnav')).toBe(true);
    expect(await visible(page, '.side-panel')).toBe(false);
    expect(await visible(page, '.nav-toggle')).toBe(false);
    await page.getByRole('button', { name: 'Tasks', exact: true }).click();
    await expect.poll(() => visible(page, '.side-panel')).toBe(true);
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('tablet-conversation-sheet');
  });

  it('desktop 1280×800: three columns, no Menu or Tasks buttons', async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    await page.getByTestId('composer-input').waitFor();
    for (const selector of ['.sidebar', '.mainnav', '.side-panel']) expect(await visible(page, selector)).toBe(true);
    expect(await visible(page, '.nav-toggle')).toBe(false);
    expect(await visible(page, '.panel-toggle')).toBe(false);
    await ui.screenshot('desktop-three-columns');
  });
});
