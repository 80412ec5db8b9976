/**
 * Browser tests (real chromium, real server) for the relay features around providers (issue 15):
 * RLY-3's picker hidden for a provider without modes, the ACP agent's command in the agent editor
 * (RLY-7), and per-provider settings in Settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';

let suite: LiveAppSuite | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite('Relay Co');
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

describe('relay providers in the web app', () => {
  it('RLY-3: a space answered by an OpenAI Image agent shows no mode picker; one answered by Claude Code does', async () => {
    const { server, ui, workspaceId: ws } = suite!;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
    const painter = (await api('POST', '/agents', { name: 'painter', adapterId: 'openai-image' })).body;
    const coder = (await api('POST', '/agents', { name: 'coder', adapterId: 'claude-code' })).body;
    const imageSpace = (await api('POST', '/spaces', { name: 'Images', defaultAgentId: painter.id })).body;
    const imageConversation = (await api('POST', `/spaces/${imageSpace.id}/conversations`, { title: 'Posters' })).body;
    const codeSpace = (await api('POST', '/spaces', { name: 'Code', defaultAgentId: coder.id })).body;
    const codeConversation = (await api('POST', `/spaces/${codeSpace.id}/conversations`, { title: 'Fixes' })).body;

    const page = ui.page;
    await page.goto(`${server.url}/w/${ws}/c/${imageConversation.id}`);
    await page.getByTestId('mode-none').waitFor();
    expect(await page.getByTestId('mode-none').textContent()).toMatch(/OpenAI Image: modes have no effect/);
    expect(await page.getByTestId('mode-picker').count()).toBe(0);
    // Shift+Tab while typing does not change a mode that has no effect.
    await page.getByTestId('composer-input').fill('a red poster');
    await page.getByTestId('composer-input').press('Shift+Tab');
    expect((await api('GET', `/spaces/${imageSpace.id}`)).body.picker).toBe(imageSpace.picker);
    await ui.screenshot('composer-without-modes');

    await page.goto(`${server.url}/w/${ws}/c/${codeConversation.id}`);
    await page.getByTestId('mode-picker').waitFor();
    expect(await page.getByTestId('mode-none').count()).toBe(0);
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
});
