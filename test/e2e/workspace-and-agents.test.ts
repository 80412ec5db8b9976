import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { startAppServer } from '../support/e2e/app-server.js';
import { createSeededWorkspace, type TestServer } from '../support/test-server.js';


let server: TestServer;
let ui: TestBrowser;
let acme: { id: string };
let beta: { id: string };

beforeAll(async () => {
  server = await startAppServer();
  acme = await createSeededWorkspace(server, 'Acme');
  beta = await createSeededWorkspace(server, 'Beta');
  ui = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
});

describe('web app: sign-in, workspaces, agents, org chart (§13, AG-1, AG-3)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('a wrong token shows the 401 message; the right one signs in and is kept', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/`);
    await page.getByLabel('Operator token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('signin-error').textContent()).toContain('invalid bearer token');
    await ui.screenshot('sign-in-wrong-token');

    await page.getByLabel('Operator token').fill(server.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.topbar').waitFor();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/w\/ws_/);
    expect(await page.evaluate('localStorage.getItem("cc.operatorToken")')).toBe(server.token);
    // A reload keeps the session (the token lives in localStorage).
    await page.reload();
    await page.locator('.topbar').waitFor();
    await ui.screenshot('signed-in');
  });

  it('the workspace switcher switches and creates workspaces', async () => {
    const { page } = ui;
    const switcher = page.getByLabel('Workspace', { exact: true });
    await switcher.selectOption({ label: 'Beta' });
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${beta.id}`);
    await switcher.selectOption({ label: 'Acme' });
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${acme.id}`);

    await switcher.selectOption({ label: '+ New workspace…' });
    await page.getByLabel('New workspace name').fill('Gamma');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(async () => (await server.api('GET', '/api/workspaces')).body.workspaces.map((workspace: any) => workspace.name)).toContain('Gamma');
    const gamma = (await server.api('GET', '/api/workspaces')).body.workspaces.find((workspace: any) => workspace.name === 'Gamma');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${gamma.id}`);
    await expect.poll(() => page.getByLabel('Workspace', { exact: true }).inputValue()).toBe(gamma.id);
    await ui.screenshot('workspace-created');
    await server.running.app.seeding.settle();
  });

  it('lists agents with their derived state, creates a blank agent and edits it with inline validation errors', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${acme.id}/settings/agents`);
    const list = page.getByTestId('agent-list');
    await expect.poll(() => list.locator('li').count()).toBe(5);
    for (const name of ['ceo', 'qa', 'architect', 'engineer', 'librarian']) {
      await expect.poll(() => list.locator(`li[data-agent-name="${name}"] [data-testid="agent-state"]`).textContent()).toBe('never run');
    }
    await ui.screenshot('agents-list');

    // "New agent" asks for a name before anything is saved: no junk agent on one click.
    await page.getByRole('button', { name: 'New agent' }).click();
    expect((await server.api('GET', `/api/workspaces/${acme.id}/agents`)).body.agents).toHaveLength(5);
    await page.getByLabel('New agent name').fill('draft');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`^/w/${acme.id}/settings/agents/ag_`));
    const agentId = new URL(page.url()).pathname.split('/').pop()!;
    await expect.poll(() => list.locator('li').count()).toBe(6);

    await page.getByLabel('Name', { exact: true }).fill('scribe');
    await page.getByLabel('Title', { exact: true }).fill('Scribe');
    await page.getByLabel('Persona').fill('Writes things down.');
    await page.getByLabel('Agent instructions').fill('Prefer short sentences.');
    await page.getByLabel('Skills').fill('docs');
    await page.getByLabel('Skills').press('Enter');
    await page.getByLabel('Skills').fill('writing');
    await page.getByLabel('Skills').press('Enter');
    await page.getByLabel('Adapter').selectOption('claude-code');
    await page.getByLabel('Silence timeout (minutes)').fill('500');
    const ceo = (await server.api('GET', `/api/workspaces/${acme.id}/agents`)).body.agents.find((agent: any) => agent.name === 'ceo');
    await page.getByLabel('Reports to').selectOption(ceo.id);
    await page.getByRole('button', { name: 'Save' }).click();

    // The server rejects 500 (1–240) and names the field; the message sits next to that field.
    const silenceField = page.locator('[data-field="silenceTimeoutMinutes"]');
    await expect.poll(() => silenceField.locator('.field-error').textContent()).toMatch(/240/);
    expect(await page.getByLabel('Silence timeout (minutes)').getAttribute('aria-invalid')).toBe('true');
    // The failed save puts the cursor in the field at fault.
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('agent-silenceTimeoutMinutes');
    expect(await page.locator('[data-field="title"] .field-error').count()).toBe(0);
    await ui.screenshot('agent-editor-validation-error');
    // Nothing was saved.
    expect((await server.api('GET', `/api/workspaces/${acme.id}/agents/${agentId}`)).body.title).toBe('');

    await page.getByLabel('Silence timeout (minutes)').fill('30');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const saved = (await server.api('GET', `/api/workspaces/${acme.id}/agents/${agentId}`)).body;
    expect(saved).toMatchObject({
      name: 'scribe',
      title: 'Scribe',
      persona: 'Writes things down.',
      systemPrompt: 'Prefer short sentences.',
      skills: ['docs', 'writing'],
      adapterId: 'claude-code',
      silenceTimeoutMinutes: 30,
      reportsTo: ceo.id,
    });
    expect(await silenceField.locator('.field-error').count()).toBe(0);
    await ui.screenshot('agent-editor-saved');

    // A duplicate name is a conflict on `name`, shown beside it.
    await page.getByLabel('Name', { exact: true }).fill('qa');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('[data-field="name"] .field-error').textContent()).toBeTruthy();
    await page.getByRole('button', { name: 'Revert' }).click();

    // Changes made elsewhere (the API, the CLI) arrive live over SSE.
    await server.api('PATCH', `/api/workspaces/${acme.id}/agents/${agentId}`, { title: 'Chief Scribe' });
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Chief Scribe');

    // Delete with confirmation.
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete agent' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${acme.id}/settings/agents`);
    await expect.poll(() => list.locator('li').count()).toBe(5);
    expect((await server.api('GET', `/api/workspaces/${acme.id}/agents/${agentId}`)).status).toBe(404);
  });

  it('the org chart shows the ceo above the four specialists', async () => {
    const { page } = ui;
    await page.getByRole('link', { name: 'Org chart' }).click();
    const chart = page.getByTestId('org-chart');
    await chart.waitFor();
    await expect.poll(() => chart.getByTestId('org-node').count()).toBe(5);
    const box = async (name: string) => (await chart.locator(`[data-agent-name="${name}"]`).boundingBox())!;
    const ceo = await box('ceo');
    const specialists = await Promise.all(['qa', 'architect', 'engineer', 'librarian'].map(box));
    for (const specialist of specialists) {
      expect(specialist.y).toBeGreaterThan(ceo.y + ceo.height - 1);
      expect(Math.abs(specialist.y - specialists[0]!.y)).toBeLessThan(2);
    }
    const left = Math.min(...specialists.map((entry) => entry.x));
    const right = Math.max(...specialists.map((entry) => entry.x + entry.width));
    expect(ceo.x + ceo.width / 2).toBeGreaterThan(left);
    expect(ceo.x + ceo.width / 2).toBeLessThan(right);
    await ui.screenshot('org-chart');
  });

  it('general settings show keys write-only and save timeouts', async () => {
    // The providers table names each row by the provider and what runs on it.
    const ANTHROPIC_KEY_FIELD = 'Anthropic (built-in harness, Claude Code, Claude Agent SDK) API key';
    const { page } = ui;
    await page.goto(`${server.url}/w/${acme.id}/settings/general`);
    const settingsRoute = await server.api('GET', `/api/workspaces/${acme.id}/settings`);
    expect(settingsRoute.status).toBe(200);
    await page.getByLabel(ANTHROPIC_KEY_FIELD, { exact: true }).fill('sk-test-123');
    await page.getByLabel('Approval timeout (seconds)').fill('120');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const after = (await server.api('GET', `/api/workspaces/${acme.id}/settings`)).body;
    expect(after.apiKeys.anthropic).toBe('set');
    expect(after.approvalTimeoutSeconds).toBe(120);
    // "Saved" is the form's own state; the stored settings reach the field through the query cache a moment later.
    await expect.poll(() => page.getByLabel(ANTHROPIC_KEY_FIELD, { exact: true }).inputValue(), { timeout: 60_000 }).toBe('');
    await expect.poll(() => page.getByLabel(ANTHROPIC_KEY_FIELD, { exact: true }).getAttribute('placeholder'), { timeout: 60_000 }).toContain('set');
    await page.getByLabel('Approval timeout (seconds)').fill('1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('.field-error').count()).toBeGreaterThan(0);
    await ui.screenshot('settings-general');
  });

  it('the honesty matrix page renders every row the server serves (ADP-1)', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${acme.id}/honesty`);
    const route = await server.api('GET', '/api/honesty-matrix');
    expect(route.status).toBe(200);
    await page.getByTestId('honesty-matrix').waitFor();
    const rows = route.body.adapters.reduce((sum: number, adapter: any) => sum + adapter.rows.length, 0);
    expect(rows).toBeGreaterThan(10);
    expect(await page.locator('[data-testid="honesty-matrix"] tbody tr').count()).toBe(rows);
    await expect(page.getByText('Claude Code CLI').first().isVisible()).resolves.toBe(true);
    // TRUTH-2: a cell that does not apply reads "n/a", never "Not enforced" (OpenAI Image runs no tool, process or mode).
    const image = route.body.adapters.find((adapter: any) => adapter.id === 'openai-image');
    const shown = await page.locator('section[aria-labelledby="adapter-openai-image"] tbody .level').allTextContents();
    expect(shown).toEqual(image.rows.map(() => 'n/a'));
    await ui.screenshot('honesty-matrix');
  });

  it('a 401 later (token revoked or rotated) returns to the sign-in screen with the message', async () => {
    const { page } = ui;
    await page.evaluate('localStorage.setItem("cc.operatorToken", "rotated-away")');
    await page.goto(`${server.url}/w/${acme.id}/org`);
    await page.getByLabel('Operator token').waitFor();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('invalid bearer token');
    await ui.screenshot('signed-out-401');
  });
});
