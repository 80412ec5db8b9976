/**
 * Browser tests (real chromium, real server) for TRUTH-1 in the web app: the agent editor shows only
 * the fields the agent's transport honours and says why the rest are absent; a value stored before
 * the server refused it is shown marked as ignored; the composer does not offer picker values that
 * promise to ask on a transport whose tools run unasked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAgent, updateAgent } from '../../src/store/repositories/agent-repository.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { BROWSER_TEST_TIMEOUT_MS } from '../support/e2e/browser.js';

let suite: LiveAppSuite | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite('Truth Co');
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

describe('agent settings in the web app (TRUTH-1)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('the editor shows what the transport honours, names what it hides, and marks a stored value it ignores', async () => {
    const { server, ui, workspaceId: ws } = suite!;
    const painter = (await server.api('POST', `/api/workspaces/${ws}/agents`, { name: 'painter', adapterId: 'openai-image' })).body;
    const page = ui.page;
    await page.goto(`${server.url}/w/${ws}/settings/agents/${painter.id}`);
    await page.getByTestId('absent-agent-fields').waitFor();
    expect(await page.getByTestId('absent-agent-fields').textContent()).toMatch(/Not shown for OpenAI Image: persona, agent instructions, skills, effort, context size/);
    expect(await page.locator('[data-field="persona"]').count()).toBe(0);
    expect(await page.locator('[data-field="effort"]').count()).toBe(0);
    expect(await page.locator('[data-field="modelId"]').textContent()).toMatch(/OpenAI Image: the images API model/);
    await ui.screenshot('agent-editor-openai-image-fields');

    // Switching the adapter in the form to Codex shows its fields at once, effort among them.
    await page.getByLabel('Adapter').selectOption('codex');
    await page.locator('[data-field="effort"]').waitFor();
    expect(await page.locator('[data-field="effort"]').textContent()).toMatch(/model_reasoning_effort/);
    expect(await page.getByTestId('absent-agent-fields').textContent()).toMatch(/Not shown for OpenAI Codex: context size/);

    // A persona an older server stored on an OpenAI Image agent is shown, marked as ignored.
    const legacy = (await server.api('POST', `/api/workspaces/${ws}/agents`, { name: 'old-painter', adapterId: 'openai-image' })).body;
    const handle = await server.running.app.workspaces.handle(ws);
    await updateAgent(handle.database.db, { ...(await findAgent(handle.database.db, legacy.id))!, persona: 'You paint in oils.' });
    await page.goto(`${server.url}/w/${ws}/settings/agents/${legacy.id}`);
    // Until the transports' declarations arrive every field is shown plainly; the mark follows them.
    await expect.poll(async () => page.locator('[data-field="persona"]').textContent(), { timeout: 30_000 }).toMatch(/Ignored by OpenAI Image/);
  }, 120_000);

  it('the composer does not offer Ask or Agent where the answering agent’s tools run unasked; Autopilot is offered', async () => {
    const { server, ui, workspaceId: ws } = suite!;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
    const grok = (await api('POST', '/agents', { name: 'grokker', adapterId: 'grok' })).body;
    const space = (await api('POST', '/spaces', { name: 'Grok room', defaultAgentId: grok.id, autonomy: 'actFreely' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Chat' })).body;
    const page = ui.page;
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    const picker = page.getByTestId('mode-picker');
    await picker.waitFor();
    await expect.poll(async () => picker.locator('option[value="Ask"]').isDisabled()).toBe(true);
    expect(await picker.locator('option[value="Ask"]').textContent()).toMatch(/not on Grok CLI: its tools run unasked/);
    expect(await picker.locator('option[value="Agent"]').isDisabled()).toBe(true);
    expect(await picker.locator('option[value="Autopilot"]').isDisabled()).toBe(false);
    expect(await picker.inputValue()).toBe('Autopilot');
    await ui.screenshot('composer-grok-autonomy');
  }, 60_000);
});
