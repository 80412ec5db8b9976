/**
 * Browser tests (real chromium, real server) for the relay features around providers:
 * RLY-3's modes marked "no effect" for a provider without modes, the ACP agent's command in the
 * agent editor (RLY-7), and per-provider settings in Settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { BROWSER_TEST_TIMEOUT_MS } from '../support/e2e/browser.js';

let suite: LiveAppSuite | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite('Relay Co');
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

describe('relay providers in the web app', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('RLY-3: a space answered by an OpenAI Image agent shows every mode, each marked "no effect on OpenAI Image"; one answered by Claude Code shows them unmarked', async () => {
    const { server, ui, workspaceId: ws } = suite!;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
    const painter = (await api('POST', '/agents', { name: 'painter', adapterId: 'openai-image' })).body;
    const coder = (await api('POST', '/agents', { name: 'coder', adapterId: 'claude-code' })).body;
    const imageSpace = (await api('POST', '/spaces', { name: 'Images', defaultAgentId: painter.id })).body;
    const imageConversation = (await api('POST', `/spaces/${imageSpace.id}/conversations`, { title: 'Posters' })).body;
    const codeSpace = (await api('POST', '/spaces', { name: 'Code', defaultAgentId: coder.id })).body;
    const codeConversation = (await api('POST', `/spaces/${codeSpace.id}/conversations`, { title: 'Fixes' })).body;
    const pickable = async () => {
      const options = ui.page.getByTestId('mode-picker').locator('option:not([value=""])');
      return options.evaluateAll((elements) => elements.map((option) => ({ value: option.getAttribute('value') ?? '', text: option.textContent, disabled: option.hasAttribute('disabled') })));
    };

    const page = ui.page;
    await page.goto(`${server.url}/w/${ws}/c/${imageConversation.id}`);
    await page.getByTestId('mode-picker').waitFor();
    // The marks come with the transports' declarations, which load after the picker.
    const allMarked = async () => {
      const options = await pickable();
      return options.length > 0 && options.every((option) => option.text?.endsWith('(no effect on OpenAI Image)'));
    };
    await expect.poll(allMarked).toBe(true);
    const imageOptions = await pickable();
    expect(imageOptions.map((option) => option.value)).toEqual(expect.arrayContaining(['Agent', 'Ask', 'Plan', 'Autopilot']));
    expect(imageOptions.map((option) => option.text)).toContain('Plan (no effect on OpenAI Image)');
    expect(imageOptions.filter((option) => option.disabled)).toEqual([]);
    expect(await page.getByTestId('mode-hint').textContent()).toMatch(/^Modes have no effect on OpenAI Image/);
    // Picking one is kept for the space (RLY-2) — it just changes nothing for this agent.
    await page.getByTestId('mode-picker').selectOption('Plan');
    await expect.poll(async () => (await api('GET', `/spaces/${imageSpace.id}`)).body.picker).toBe('Plan');
    await ui.screenshot('composer-modes-without-effect');

    await page.goto(`${server.url}/w/${ws}/c/${codeConversation.id}`);
    await page.getByTestId('mode-picker').waitFor();
    await page.getByTestId('mode-hint').waitFor();
    const codeOptions = await pickable();
    expect(codeOptions.map((option) => option.text)).toEqual(codeOptions.map((option) => option.value));
    expect(await page.getByTestId('mode-hint').textContent()).not.toMatch(/no effect/);
  }, 120_000);

  it("RLY-7: the agent editor sets an ACP agent's program and arguments; a shell is refused under the field", async () => {
    const { server, ui, workspaceId: ws } = suite!;
    const agent = (await server.api('POST', `/api/workspaces/${ws}/agents`, { name: 'zed', adapterId: 'acp' })).body;
    const page = ui.page;
    await page.goto(`${server.url}/w/${ws}/settings/agents/${agent.id}`);
    const program = page.getByLabel('ACP agent program');
    await program.waitFor();
    await program.fill('/bin/bash');
    await page.getByLabel('Arguments (one per line)').fill('--acp\n--model=fast');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('[data-field="acpCommand"].has-error').waitFor();
    expect(await page.locator('[data-field="acpCommand"]').textContent()).toMatch(/not a shell or launcher/);
    expect((await server.api('GET', `/api/workspaces/${ws}/agents/${agent.id}`)).body.acpCommand).toBeNull();

    await program.fill('copilot');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await server.api('GET', `/api/workspaces/${ws}/agents/${agent.id}`)).body.acpCommand).toEqual({ command: 'copilot', args: ['--acp', '--model=fast'] });
    await ui.screenshot('agent-editor-acp-command');
  }, 60_000);

  it('Settings → providers: one table; a write-only key, an http(s) base URL checked by the server; a default model per provider', async () => {
    const { server, ui, workspaceId: ws } = suite!;
    const secret = 'key_cursor_E2E_SECRET_0001';
    const page = ui.page;
    await page.goto(`${server.url}/w/${ws}/settings/general`);
    // One table of providers: no second, near-identical runner table.
    await page.getByRole('heading', { name: 'Providers' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Runner providers' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Model providers' }).count()).toBe(0);
    const key = page.getByLabel('Cursor API key', { exact: true });
    await key.fill(secret);
    // DeepSeek agents' URL is DeepSeek's Anthropic-compatible endpoint, and the field says so (seen and read out).
    const deepseekUrl = page.getByLabel('DeepSeek, Anthropic API (DeepSeek agents) base URL', { exact: true });
    expect(await deepseekUrl.getAttribute('placeholder')).toMatch(/^Anthropic-compatible/);
    const described = await deepseekUrl.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).textContent()).toMatch(/^Anthropic-compatible endpoint .*https:\/\/api\.deepseek\.com\/anthropic$/);
    await page.getByLabel('xAI (built-in harness, Grok) base URL').fill('file:///etc/passwd');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByTestId('provider-xai').getByText(/http:\/\/ or https:\/\//).waitFor();
    // Refused as a whole: nothing was stored, the key included.
    const untouched = (await server.api('GET', `/api/workspaces/${ws}/settings`)).body;
    expect(untouched.runnerKeys).toEqual({});
    expect(untouched.baseUrls.xai).toBeUndefined();

    await page.getByLabel('xAI (built-in harness, Grok) base URL').fill('http://127.0.0.1:9/v1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: /^Saved$/ }).waitFor();
    const stored = (await server.api('GET', `/api/workspaces/${ws}/settings`)).body;
    expect(stored.runnerKeys).toEqual({ cursor: 'set' });
    expect(stored.baseUrls.xai).toBe('http://127.0.0.1:9/v1');
    // "Saved" is the form's own state; the stored settings reach the field through the query cache a moment later.
    await expect.poll(() => key.inputValue(), { timeout: 60_000 }).toBe('');
    await expect.poll(() => key.getAttribute('placeholder'), { timeout: 60_000 }).toMatch(/set/);

    await page.locator('#default-model-codex').fill('gpt-5.4');
    await page.getByRole('button', { name: 'Save default models' }).click();
    await page.getByRole('status').filter({ hasText: 'Default models saved' }).waitFor();
    expect((await server.api('GET', `/api/workspaces/${ws}/settings`)).body.defaultModels).toEqual({ codex: 'gpt-5.4' });

    // After a reload the page knows only that a key is set; the key itself is nowhere in it.
    await page.reload();
    await page.getByLabel('Cursor API key', { exact: true }).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('#default-model-codex').inputValue()).toBe('gpt-5.4');
    await ui.screenshot('settings-providers');

    // Remove drops it on the server.
    await page.getByRole('button', { name: 'Remove the Cursor API key' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => (await server.api('GET', `/api/workspaces/${ws}/settings`)).body.runnerKeys).toEqual({});
  }, 60_000);
});
