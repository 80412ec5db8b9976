/**
 * UI: the three-column layout collapses on phones and tablets — the navigation becomes a
 * drawer behind "Menu", the conversation takes the full width, the side panel is a sheet. On a
 * phone the conversation header is one line (actions in a menu), Plan Studio shows a step list,
 * tables are cards, no keyboard hints, and words about where the list is match the screen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;
let suite: LiveAppSuite | undefined;
let conversationId: string;

beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
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

    // The side panel opens as a sheet over the conversation (from the header's actions menu), and closes.
    await page.getByRole('button', { name: 'Conversation actions' }).click();
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

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };
const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
const displayOf = (page: Page, selector: string) => page.locator(selector).first().evaluate((element) => (globalThis as unknown as { getComputedStyle(node: unknown): { display: string } }).getComputedStyle(element).display);

describe('phone second pass and desktop 1440 (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('the conversation header is one line on a phone, its actions in a menu; no keyboard hints; at 1440 the actions are inline and the sidebar does not scroll sideways', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Header' })).body;
    const long = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Quarterly planning for the payments team and the infrastructure migration' })).body;
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/w/${ws}/c/${long.id}`);
    await page.getByTestId('composer-input').waitFor();
    const header = page.locator('.conversation-header');
    const title = page.getByTestId('conversation-title');
    await expect.poll(async () => (await header.boundingBox())?.height ?? 999, { timeout: 30_000 }).toBeLessThan(64);
    // One line, cut with an ellipsis rather than wrapped word by word.
    expect((await title.boundingBox())!.height).toBeLessThan(30);
    expect(await title.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    expect(await title.evaluate((element) => (globalThis as unknown as { getComputedStyle(node: unknown): { textOverflow: string } }).getComputedStyle(element).textOverflow)).toBe('ellipsis');
    expect(await page.getByRole('button', { name: 'Branch…' }).isVisible()).toBe(false);
    expect(await visible(page, '.keys-hint')).toBe(false);
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-conversation-header');

    // The menu holds the actions; choosing one closes it.
    await page.getByRole('button', { name: 'Conversation actions' }).click();
    await page.getByRole('button', { name: 'Branch…' }).waitFor();
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-conversation-actions-menu');
    await page.getByRole('button', { name: 'Changes', exact: true }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Branch…' }).isVisible()).toBe(false);
    await expect.poll(() => page.getByRole('button', { name: 'Conversation actions' }).getAttribute('aria-expanded')).toBe('false');

    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.url}/w/${ws}/c/${long.id}`);
    await page.getByTestId('composer-input').waitFor();
    await page.getByRole('button', { name: 'Branch…' }).waitFor();
    expect(await visible(page, '.actions-toggle')).toBe(false);
    expect(await visible(page, '.keys-hint')).toBe(true);
    // The sidebar fits its width: nothing to scroll sideways, "New space" whole inside it.
    const sidebar = page.locator('.sidebar');
    expect(await sidebar.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    const sidebarBox = (await sidebar.boundingBox())!;
    const newSpace = (await sidebar.getByRole('button', { name: 'New space' }).boundingBox())!;
    expect(newSpace.x + newSpace.width).toBeLessThanOrEqual(sidebarBox.x + sidebarBox.width);
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('desktop-1440-conversation');
  });

  it('on a phone the mode and autonomy dials are one line, and a message\'s Rewind and Branch from here are whole, never cut', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Dials' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Export button' })).body;
    model.script(reply().text('The export lives in src/export.ts.'));
    expect((await api('POST', `/conversations/${conversation.id}/messages`, { text: 'Where does the export live?' })).status).toBe(202);
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    const mine = page.getByTestId('message').filter({ has: page.getByTestId('rewind-button') });
    await mine.waitFor({ timeout: 60_000 });

    // The dials: side by side on one line inside the screen, still named Mode and Autonomy for a screen reader.
    const bar = page.getByTestId('space-mode-bar');
    const mode = bar.getByRole('combobox', { name: 'Mode' });
    const autonomy = bar.getByRole('combobox', { name: 'Autonomy' });
    await expect.poll(async () => (await bar.boundingBox())?.height ?? 999, { timeout: 30_000 }).toBeLessThan(44);
    const [modeBox, autonomyBox] = [(await mode.boundingBox())!, (await autonomy.boundingBox())!];
    expect(Math.abs(modeBox.y - autonomyBox.y)).toBeLessThan(4);
    expect(autonomyBox.x + autonomyBox.width).toBeLessThanOrEqual(PHONE.width);

    // A message's actions: each inside the message, on one line, its words not clipped; the time not broken in two.
    const message = (await mine.boundingBox())!;
    for (const name of ['Rewind to before this', 'Branch from here']) {
      const button = mine.getByRole('button', { name });
      const shown = (await button.boundingBox())!;
      expect(shown.x + shown.width, name).toBeLessThanOrEqual(message.x + message.width);
      expect(shown.height, name).toBeLessThan(36);
      expect(await button.evaluate((element) => element.scrollWidth <= element.clientWidth), name).toBe(true);
    }
    expect((await mine.locator('header time').boundingBox())!.height).toBeLessThan(24);
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-dials-and-message-actions');
  });

  it('words about where the list is match the screen: under ☰ Menu on a phone, on the left at 1440', async () => {
    const { page } = ui;
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/w/${ws}`);
    await page.getByText('Pick a conversation').waitFor();
    await expect.poll(() => page.getByText('under ☰ Menu').isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await page.getByText('on the left').isVisible()).toBe(false);
    await ui.screenshot('phone-home');
    await page.setViewportSize(DESKTOP);
    await expect.poll(() => page.getByText('on the left').isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await page.getByText('under ☰ Menu').isVisible()).toBe(false);
    await ui.screenshot('desktop-1440-home');
  });

  it('Plan Studio opens on the step list on a phone, the graph one tap away; at 1440 it opens on the graph', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Phone plan' })).body;
    await api('PATCH', `/spaces/${space.id}`, { picker: 'Plan' });
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Phone plan' })).body;
    model.script(
      reply().tool('submit_plan', {
        goal: 'Readable on a phone',
        nodes: [
          { key: 'first', title: 'First step', description: 'The first step, in detail.', dependsOn: [] },
          { key: 'second', title: 'Second step', description: 'The second step, in detail.', dependsOn: ['first'] },
        ],
      }),
      reply().text('Submitted.'),
    );
    await api('POST', `/conversations/${conversation.id}/messages`, { text: 'Plan it' });
    let planId = '';
    await expect.poll(async () => (planId = (await api('GET', `/plans?conversationId=${conversation.id}`)).body.plans[0]?.id ?? ''), { timeout: 60_000 }).not.toBe('');

    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}?plan=${planId}`);
    const studio = page.getByTestId('plan-studio');
    const cards = studio.getByTestId('plan-step-cards');
    await expect.poll(() => cards.locator('li').count(), { timeout: 60_000 }).toBe(2);
    expect(await studio.getByTestId('plan-graph').count()).toBe(0);
    expect(await studio.getByRole('button', { name: 'List' }).getAttribute('aria-pressed')).toBe('true');
    expect(await cards.locator('[data-node-key="second"]').textContent()).toContain('after First step');
    await cards.locator('[data-node-key="second"]').click();
    await expect.poll(() => studio.getByTestId('node-inspector').textContent()).toContain('The second step, in detail.');
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-plan-studio-list');
    await studio.getByRole('button', { name: 'Graph' }).click();
    await expect.poll(() => studio.getByTestId('plan-node').count(), { timeout: 60_000 }).toBe(2);
    await ui.screenshot('phone-plan-studio-graph');

    await page.setViewportSize(DESKTOP);
    await page.reload();
    await expect.poll(() => page.getByTestId('plan-studio').getByTestId('plan-node').count(), { timeout: 60_000 }).toBe(2);
    expect(await page.getByTestId('plan-studio').getByRole('button', { name: 'Graph' }).getAttribute('aria-pressed')).toBe('true');
    await ui.screenshot('desktop-1440-plan-studio');
  });

  it('tables are cards on a phone (no sideways scroll) and tables at 1440', async () => {
    const { page } = ui;
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/w/${ws}/skills`);
    const builtIn = page.getByTestId('built-in-skills');
    await expect.poll(() => builtIn.locator('tbody tr').count(), { timeout: 60_000 }).toBeGreaterThan(0);
    expect(await displayOf(page, '[data-testid="built-in-skills"] tbody tr')).toBe('block');
    expect(await builtIn.locator('thead').isVisible()).toBe(false);
    const row = (await builtIn.locator('tbody tr').first().boundingBox())!;
    expect(row.x).toBeGreaterThanOrEqual(0);
    expect(row.x + row.width).toBeLessThanOrEqual(390);
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('phone-skills-cards');
    await page.setViewportSize(DESKTOP);
    await expect.poll(() => displayOf(page, '[data-testid="built-in-skills"] tbody tr')).toBe('table-row');
    await ui.screenshot('desktop-1440-skills');
  });
});

/**
 * Runs in the page (a string: the tests compile without the DOM's types). What a phone shows of every
 * table: elements that scroll sideways, rows not drawn as cards, and value cells without their column's
 * label before them. A cell holding only buttons or links (the row's actions) needs no label.
 */
const TABLE_CARDS_SCRIPT = `(() => {
  const problems = [];
  if (document.documentElement.scrollWidth > window.innerWidth) problems.push('the page scrolls sideways');
  for (const element of document.querySelectorAll('body *')) {
    const overflow = getComputedStyle(element).overflowX;
    if ((overflow === 'auto' || overflow === 'scroll') && element.scrollWidth > element.clientWidth + 1) problems.push('scrolls sideways: ' + element.tagName.toLowerCase() + '.' + element.className);
  }
  const tables = [...document.querySelectorAll('table.table, table.context-table')].filter((table) => table.checkVisibility());
  for (const table of tables) {
    const head = table.querySelector('thead');
    if (head && head.checkVisibility()) problems.push('a table head is shown');
    for (const row of table.querySelectorAll('tbody tr')) {
      if (getComputedStyle(row).display !== 'block') problems.push('a row is not a card');
      const box = row.getBoundingClientRect();
      if (box.left < 0 || box.right > window.innerWidth) problems.push('a card is wider than the screen');
      for (const cell of row.querySelectorAll('td')) {
        if (!cell.checkVisibility()) continue;
        const actionText = [...cell.querySelectorAll('button, a, input, select')].map((control) => control.textContent || '').join('').replace(/\\s+/g, '');
        const text = (cell.textContent || '').replace(/\\s+/g, '');
        const onlyActions = cell.querySelector('button, a') !== null && text === actionText;
        if (onlyActions) continue;
        const label = cell.getAttribute('data-label');
        const before = getComputedStyle(cell, '::before').content;
        if (!label) problems.push('a cell without its label: "' + (cell.textContent || '').trim().slice(0, 40) + '"');
        else if (!before.includes(label)) problems.push('the label "' + label + '" is not shown');
      }
    }
  }
  return { tables: tables.length, problems };
})()`;

describe('tables are cards on a phone, on every page that has one (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('at 390 px no element scrolls sideways and every card names each value', async () => {
    const { page } = ui;
    // Data for every table: a run with a tool call (Runs, the run page, Costs), a rule (Policy), a channel (Notifications).
    const space = (await api('POST', '/spaces', { name: 'Cards' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Cards' })).body;
    model.script(reply().tool('list', { path: '.' }), reply().text('Listed.'));
    const run = (await api('POST', `/conversations/${conversation.id}/messages`, { text: 'List the files' })).body.run;
    await expect.poll(async () => (await api('GET', `/runs/${run.id}`)).body.run.state, { timeout: 60_000 }).toBe('completed');
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'git push --force' }, decision: 'deny', note: 'never rewrite shared history' })).status).toBe(201);
    expect((await server.api('POST', '/api/people/me/notification-channels', { kind: 'email', name: 'On call', address: 'oncall@example.com', events: ['approval'] })).status).toBeLessThan(300);

    await page.setViewportSize(PHONE);
    const pages = ['/runs', `/runs/${run.id}`, '/costs', '/skills', '/honesty', '/settings/general', '/settings/policy', '/settings/budgets', '/settings/notifications', '/settings/people', '/settings/audit'];
    const found: string[] = [];
    for (const path of pages) {
      await page.goto(`${server.url}/w/${ws}${path}`);
      await expect.poll(() => page.locator('table.table tbody tr').count(), { timeout: 60_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.locator('.state-loading').count(), { timeout: 60_000 }).toBe(0);
      const result = (await page.evaluate(TABLE_CARDS_SCRIPT)) as { tables: number; problems: string[] };
      expect(result.tables).toBeGreaterThan(0);
      found.push(...result.problems.map((problem) => `${path}: ${problem}`));
      await ui.screenshot(`phone-cards-${path.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '') || 'page'}`);
    }
    expect([...new Set(found)]).toEqual([]);
  });
});

let renameAttempts = 0;

describe('a change’s late answer never puts an older state back (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('the dial’s PATCH answered after a newer rename of the space arrived live: the sidebar keeps the new name', async () => {
    const { page } = ui;
    // Names of their own on each attempt: a retry must not find the first attempt's space in the sidebar.
    const attempt = (renameAttempts += 1);
    const before = `Before the rename ${attempt}`;
    const after = `After the rename ${attempt}`;
    const space = (await api('POST', '/spaces', { name: before })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Answer order' })).body;
    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    await page.getByTestId('composer-input').waitFor();
    const sidebar = page.locator('.sidebar');
    await sidebar.getByText(before, { exact: true }).waitFor({ timeout: 60_000 });

    // The server applies the dial's PATCH at once; its answer is held on its way back to the page.
    const spaceUrl = `${server.url}/api/workspaces/${ws}/spaces/${space.id}`;
    let applied!: () => void;
    const patchApplied = new Promise<void>((resolve) => (applied = resolve));
    let release!: () => void;
    const answerReleased = new Promise<void>((resolve) => (release = resolve));
    await page.route(spaceUrl, async (route) => {
      if (route.request().method() !== 'PATCH') return route.fallback();
      const response = await route.fetch();
      applied();
      await answerReleased;
      await route.fulfill({ response });
    });
    const dial = page.getByTestId('space-autonomy');
    await expect.poll(() => dial.isEnabled(), { timeout: 60_000 }).toBe(true);
    await dial.selectOption('actFreely');
    await patchApplied;
    // A newer change (another tab, the CLI) reaches the page first, as its live event.
    await api('PATCH', `/spaces/${space.id}`, { name: after });
    await sidebar.getByText(after, { exact: true }).waitFor({ timeout: 60_000 });
    release();
    // The dial is locked while its change is pending: unlocked, the answer has been written.
    await expect.poll(() => dial.isEnabled(), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => dial.inputValue(), { timeout: 60_000 }).toBe('actFreely');
    await expect.poll(() => sidebar.getByText(after, { exact: true }).count(), { timeout: 60_000 }).toBe(1);
    expect(await sidebar.getByText(before, { exact: true }).count()).toBe(0);
    await page.unroute(spaceUrl);
  });
});
