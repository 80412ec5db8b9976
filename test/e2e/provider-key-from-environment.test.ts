/**
 * Browser test (real chromium, real server) for TRUTH-4: a server that runs on `ANTHROPIC_API_KEY`
 * from its environment shows that key in Settings → General as "from environment", naming the
 * variable and never the value; a provider with no key anywhere says "not set" and how to set it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { ensureWebBuild } from '../support/e2e/ensure-web-build.js';
import { signIn } from '../support/e2e/app-server.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

const ENV_SECRET = 'sk-ant-env-E2E-SECRET-0001';
let server: TestServer | undefined;
let ui: TestBrowser | undefined;

beforeAll(async () => {
  await ensureWebBuild();
  server = await startTestServer({ env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: ENV_SECRET } });
  ui = await launchBrowser();
  await signIn(ui.page, server);
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
});

describe('Settings → General shows where each key comes from (TRUTH-4)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('the Anthropic key from the server’s environment is "from environment", never "not set", and never shown', async () => {
    const ws = (await createSeededWorkspace(server!, 'Env Co')).id;
    const page = ui!.page;
    await page.goto(`${server!.url}/w/${ws}/settings/general`);
    const anthropic = page.getByTestId('provider-anthropic');
    await anthropic.getByText('from environment (ANTHROPIC_API_KEY)').waitFor();
    expect(await page.getByLabel('Anthropic (built-in harness, Claude Code, Claude Agent SDK) API key', { exact: true }).getAttribute('placeholder')).toBe('from environment');
    await page.getByTestId('provider-openai').getByText('not set: set it here or OPENAI_API_KEY').waitFor();
    expect(await page.getByTestId('provider-ollama').getByLabel(/API key/).getAttribute('placeholder')).toBe('not needed');
    expect(await page.content()).not.toContain(ENV_SECRET);
    await ui!.screenshot('settings-key-from-environment');
  }, 60_000);
});
