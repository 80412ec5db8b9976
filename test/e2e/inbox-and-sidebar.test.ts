/**
 * Browser test of the Inbox and the sidebar at desktop size (1440×900): a plan awaiting approval and
 * an orchestration proposal both wait in the Inbox and are counted by its badge (before, a waiting
 * orchestration left it at "Nothing waiting"); the sidebar marks where something waits and where a
 * run is running, filters by name, archives and renames; a new chat's space is named after its
 * first message with the model directive left out. Every check waits for the state the user sees.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { validProposal } from '../support/orchestration-fixtures.js';
import { plan, step } from '../support/plan-fixtures.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

let suite: LiveAppSuite | undefined;
let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;

/** Generous: CI's loaded machine can take seconds where an idle one takes milliseconds. */
const WAIT = { timeout: 60_000 };

beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
  await ui.page.setViewportSize({ width: 1440, height: 900 });
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

async function createSpace(name: string): Promise<string> {
  return (await server.api('POST', `/api/workspaces/${ws}/spaces`, { name })).body.id;
}

async function createConversation(spaceId: string, title: string): Promise<string> {
  return (await server.api('POST', `/api/workspaces/${ws}/spaces/${spaceId}/conversations`, { title })).body.id;
}

/** Posts a message through the API; the started run's id. */
async function post(conversationId: string, text: string): Promise<string> {
  const response = await server.api('POST', `/api/workspaces/${ws}/conversations/${conversationId}/messages`, { text });
  expect(response.status).toBe(202);
  return response.body.run.id;
}

async function runEnded(runId: string): Promise<boolean> {
  const detail = await server.api('GET', `/api/workspaces/${ws}/runs/${runId}`);
  return ['completed', 'failed', 'cancelled'].includes(detail.body?.run?.state);
}

const badge = (page: Page) => page.locator('.mainnav').getByRole('link', { name: /^Inbox/ }).locator('.count');
const spaceRow = (page: Page, name: string) => page.locator(`li.space-item[data-space-name="${name}"]`);

describe('web app: the Inbox counts every waiting decision; the sidebar tells what waits and runs (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS * 2 }, () => {
  it('a plan and an orchestration wait in the Inbox and its badge; the sidebar marks them and a running run; filter, archive and rename', async () => {
    const { page } = ui;
    const app = server.running.app;
    const lead = (await server.api('GET', `/api/workspaces/${ws}/agents`)).body.agents[0];

    // A plan awaiting approval in "Billing" (submitted by the agent of a finished turn).
    const billing = await createSpace('Billing');
    const exportId = await createConversation(billing, 'Export');
    await createConversation(billing, 'Old notes');
    model.scriptFor('Plan the export', reply().text('Here is the plan.'));
    const planRun = await post(exportId, 'Plan the export');
    await expect.poll(() => runEnded(planRun), WAIT).toBe(true);
    const submitted = await app.plans.submit({ workspaceId: ws, conversationId: exportId, spaceId: billing, agentId: lead.id, runId: planRun, submission: plan(step('schema'), step('api', ['schema'])) });
    expect(submitted.ok).toBe(true);

    // An orchestration proposal in "Team".
    const team = await createSpace('Team');
    const staffing = await createConversation(team, 'Staffing');
    const proposed = await app.orchestrations.propose({ workspaceId: ws, conversationId: staffing, spaceId: team, agentId: lead.id, runId: null, proposal: validProposal(lead.id) });
    if (!proposed.ok) throw new Error('the proposal was refused');

    // A run that keeps running in "Busy" (its model reply never ends until the suite closes).
    const busy = await createSpace('Busy');
    const busyConversation = await createConversation(busy, 'Long job');
    model.scriptFor('Keep working on the migration', reply().text('Working on it').hang());
    await post(busyConversation, 'Keep working on the migration');

    // The Inbox lists both and its badge counts both.
    await page.goto(`${server.url}/w/${ws}/inbox`);
    await expect.poll(() => badge(page).textContent(), WAIT).toBe('2');
    await page.getByTestId('inbox-plans').getByTestId('plan-row').waitFor();
    await page.getByTestId('inbox-orchestrations').getByTestId('inbox-orchestration').waitFor();
    await expect.poll(() => page.getByTestId('inbox-summary').textContent(), WAIT).toBe('2 waiting for a decision, oldest first.');
    await ui.screenshot('inbox-plan-and-orchestration');

    // The sidebar: "waiting for you" on the spaces and conversations where they wait, "running" where the run runs.
    await page.goto(`${server.url}/w/${ws}`);
    await expect.poll(() => spaceRow(page, 'Billing').locator('.space-row').getByTestId('mark-waiting').locator('[aria-hidden="true"]').textContent(), WAIT).toBe('1');
    await expect.poll(() => spaceRow(page, 'Team').locator('.space-row').getByTestId('mark-waiting').locator('[aria-hidden="true"]').textContent(), WAIT).toBe('1');
    await expect.poll(() => page.locator(`li[data-conversation-id="${exportId}"]`).getByTestId('mark-waiting').count(), WAIT).toBe(1);
    await expect.poll(() => spaceRow(page, 'Busy').locator('.space-row').getByTestId('mark-running').count(), WAIT).toBe(1);
    await expect.poll(() => page.locator(`li[data-conversation-id="${busyConversation}"]`).getByTestId('mark-running').count(), WAIT).toBe(1);
    expect(await spaceRow(page, 'Busy').locator('.space-row').getByTestId('mark-waiting').count()).toBe(0);
    await ui.screenshot('sidebar-marks');

    // Deciding one (here through the API, as another operator would) brings the badge down live.
    expect((await server.api('POST', `/api/workspaces/${ws}/orchestrations/${proposed.orchestration.id}/reject`, { reason: 'Not this quarter' })).status).toBe(200);
    await expect.poll(() => badge(page).textContent(), WAIT).toBe('1');
    await expect.poll(() => spaceRow(page, 'Team').locator('.space-row').getByTestId('mark-waiting').count(), WAIT).toBe(0);

    // Filter: a conversation's title finds its space; other spaces leave the list.
    const filter = page.getByLabel('Filter spaces and conversations');
    await filter.fill('long j');
    await expect.poll(() => page.locator('li.space-item').evaluateAll((items) => items.map((item) => item.getAttribute('data-space-name'))), WAIT).toEqual(['Busy']);
    await filter.fill('');
    await expect.poll(() => spaceRow(page, 'Billing').count(), WAIT).toBe(1);

    // Archive a conversation: it leaves the sidebar, is still there behind "Show archived", and is not deleted.
    const oldNotes = page.locator('li[data-conversation-id]').filter({ hasText: 'Old notes' });
    await oldNotes.getByLabel('Actions for Old notes').click();
    await oldNotes.getByRole('button', { name: 'Archive' }).click();
    await expect.poll(() => oldNotes.count(), WAIT).toBe(0);
    await page.getByLabel(/Show archived/).check();
    await expect.poll(() => oldNotes.locator('.sidebar-archived-label').textContent(), WAIT).toBe('archived');
    const stored = (await server.api('GET', `/api/workspaces/${ws}/spaces/${billing}/conversations`)).body.conversations;
    expect(stored.find((conversation: { title: string }) => conversation.title === 'Old notes').archivedAt).toEqual(expect.any(String));
    await page.getByLabel(/Show archived/).uncheck();

    // Rename a space inline.
    await spaceRow(page, 'Team').getByLabel('Actions for Team').click();
    await spaceRow(page, 'Team').getByRole('button', { name: 'Rename' }).click();
    const nameField = page.getByRole('textbox', { name: 'Space name' });
    await nameField.fill('Platform team');
    await nameField.press('Enter');
    await expect.poll(() => spaceRow(page, 'Platform team').locator('.space-name').textContent(), WAIT).toBe('Platform team');
    await expect.poll(async () => (await server.api('GET', `/api/workspaces/${ws}/spaces/${team}`)).body.name, WAIT).toBe('Platform team');
    await ui.screenshot('sidebar-archive-rename');
  });

  it("a new chat's space takes its first message's title, the model directive left out", async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}`);
    await page.getByRole('button', { name: 'New chat' }).click();
    const input = page.getByTestId('composer-input');
    await input.waitFor();
    await expect.poll(() => page.getByTestId('live-status').textContent(), WAIT).toBe('Live');
    model.scriptFor('Write the release notes for version two', reply().text('Drafting them.'));
    await input.fill('TOOL bash {"command":"ls"}\nWrite the release notes for version two');
    await input.press('Enter');
    await expect.poll(() => spaceRow(page, 'Write the release notes for version two').count(), WAIT).toBe(1);
    await expect.poll(() => page.locator('li.space-item[data-space-name="New chat"]').count(), WAIT).toBe(0);
  });
});
