/**
 * Browser test (real chromium, real server) for TOOL-1's operator surfaces: a domain rule written on
 * the policy page, shown in words and checked with a URL in the probe; the Brave Search key in
 * Settings → General, write-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { ensureWebBuild } from '../support/e2e/ensure-web-build.js';
import { signIn } from '../support/e2e/app-server.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

const SEARCH_KEY = 'BSA-e2e-SECRET-0042';
let server: TestServer | undefined;
let ui: TestBrowser | undefined;

beforeAll(async () => {
  await ensureWebBuild();
  server = await startTestServer({ env: { PATH: process.env.PATH } });
  ui = await launchBrowser();
  await signIn(ui.page, server);
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
});

describe('web egress in the web app (TOOL-1)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('a domain rule is written in words, and the probe answers a URL with the rule that decides it', async () => {
    const ws = (await createSeededWorkspace(server!, 'Web Co')).id;
    const page = ui!.page;
    await page.goto(`${server!.url}/w/${ws}/settings/policy`);
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('When').selectOption('domain');
    await form.getByLabel('Web host').fill('https://docs.example.com/');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.getByRole('alert').filter({ hasText: 'not a URL' }).waitFor();
    await form.getByLabel('Web host').fill('Docs.Example.com');
    await form.getByLabel('Then').selectOption('allow');
    await form.getByRole('button', { name: 'Add rule' }).click();
    const rules = page.getByRole('table', { name: 'Rules' });
    await rules.getByRole('row', { name: /Web pages on “docs\.example\.com”/ }).waitFor();

    await page.getByLabel('Command', { exact: true }).fill('https://docs.example.com/guide');
    await page.getByRole('button', { name: 'Check' }).click();
    const answer = page.getByTestId('probe-answer');
    await answer.getByText('would run without asking').waitFor();
    expect(await answer.textContent()).toContain('A rule names this host');
    expect(await answer.textContent()).toContain('Web pages on “docs.example.com”');
    await ui!.screenshot('policy-domain-rule-probe');
  }, 60_000);

  it('the Brave Search key is write-only: saved, then shown only as set', async () => {
    const ws = (await createSeededWorkspace(server!, 'Search Co')).id;
    const page = ui!.page;
    await page.goto(`${server!.url}/w/${ws}/settings/general`);
    const form = page.getByRole('form', { name: 'Web search' });
    expect(await form.getByLabel('Brave Search API key').getAttribute('placeholder')).toBe('not set');
    await form.getByLabel('Brave Search API key').fill(SEARCH_KEY);
    await form.getByRole('button', { name: 'Save web search' }).click();
    await form.getByText('Web search saved').waitFor();
    await page.reload();
    const reloaded = page.getByRole('form', { name: 'Web search' });
    await reloaded.getByRole('button', { name: 'Remove the Brave Search key' }).waitFor();
    expect(await reloaded.getByLabel('Brave Search API key').getAttribute('placeholder')).toBe('set — type to replace');
    expect(await page.content()).not.toContain(SEARCH_KEY);
    const stored = await server!.api('GET', `/api/workspaces/${ws}/settings`);
    expect(stored.body.webSearchKeys).toEqual({ brave: 'set' });
  }, 60_000);
});
