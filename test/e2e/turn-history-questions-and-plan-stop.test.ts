/**
 * Browser tests of the web app's turn history, questions and plan control (UI, PLAN-3, PLAN-8, POL-7,
 * HAR-6): the Tasks panel following the newest plan, finished turns keeping their history with who
 * approved what, no request for an empty conversation id, questions badging the Inbox, the agent
 * editor's unsaved edits, Plan Stop asking first and saying "Stopped", Resume, and plan steps folded
 * under the plan row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer, type ScriptedRequest } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;
let suite: LiveAppSuite | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);

async function openConversation(page: Page, name: string, picker: string): Promise<{ spaceId: string; conversationId: string }> {
  const space = (await api('POST', '/spaces', { name })).body;
  await api('PATCH', `/spaces/${space.id}`, { picker });
  const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: name })).body;
  await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
  await page.getByTestId('composer-input').waitFor();
  await expect.poll(() => page.getByTestId('live-status').textContent()).toBe('Live');
  return { spaceId: space.id, conversationId: conversation.id };
}

async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  const accepted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/messages'));
  await input.press('Enter');
  expect((await accepted).status()).toBe(202);
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const step = (key: string) => (request: ScriptedRequest) => request.lastUserText?.includes(`— ${key}:`) === true;
const plansOf = async (conversationId: string) => (await api('GET', `/plans?conversationId=${conversationId}`)).body.plans as any[];

describe('web app: turn history, questions in the Inbox, unsaved edits, plan Stop and Resume (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('no request asks for a conversation with an empty id', async () => {
    const { page } = ui;
    const bad: string[] = [];
    const listener = (request: { url(): string }) => {
      if (/\/conversations\/(\?|$)/.test(request.url())) bad.push(request.url());
    };
    page.on('request', listener);
    const space = (await api('POST', '/spaces', { name: 'Quiet' })).body;
    await page.goto(`${server.url}/w/${ws}`);
    await page.getByText('Pick a conversation').waitFor();
    await page.goto(`${server.url}/w/${ws}/s/${space.id}`);
    await page.getByRole('button', { name: 'New conversation', exact: true }).waitFor();
    page.off('request', listener);
    expect(bad).toEqual([]);
  });

  it('a finished turn keeps its text and tool calls inline, in order, with who approved the call and when', async () => {
    const { page } = ui;
    await openConversation(page, 'History', 'Agent');
    model.script(reply().text('First I look at the file.').tool('bash', { command: 'rm -f old-notes.txt' }), reply().text('Removed old-notes.txt; all done.'));
    await send(page, 'Remove old-notes.txt');
    const approval = page.getByTestId('approval');
    await approval.waitFor({ timeout: 60_000 });
    await approval.getByRole('button', { name: 'Approve' }).click();
    const turn = page.locator('[data-testid="message"].message-assistant', { hasText: 'Removed old-notes.txt' });
    await turn.waitFor({ timeout: 60_000 });
    const finished = turn.getByTestId('finished-turn');
    await finished.getByTestId('tool-call').waitFor();
    // Who approved comes from the workspace's people, a query of its own: "someone" shows until it loads.
    await finished.getByTestId('tool-decision').filter({ hasText: 'Approved by owner at' }).waitFor();
    // In order: the earlier text, the tool call with its approval, then the final reply.
    const text = (await finished.textContent()) ?? '';
    const first = text.indexOf('First I look at the file.');
    const tool = text.indexOf('rm -f old-notes.txt');
    const decided = text.indexOf('Approved by owner at');
    const last = text.indexOf('Removed old-notes.txt; all done.');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(tool);
    expect(tool).toBeLessThan(decided);
    expect(decided).toBeLessThan(last);
    expect(text.split('Removed old-notes.txt; all done.')).toHaveLength(2);
    // A reload shows the same history (it comes from the run log, not from the live stream).
    await page.reload();
    await page.locator('[data-testid="message"].message-assistant [data-testid="tool-decision"]').waitFor({ timeout: 60_000 });
    await ui.screenshot('finished-turn-history');
  });

  it('a pending question badges the Inbox; its card names the agent and links to the conversation', async () => {
    const { page } = ui;
    const { conversationId } = await openConversation(page, 'Asking', 'Agent');
    model.script(reply().tool('ask_user', { questions: [{ question: 'Which port should it listen on?' }] }), reply().text('Port noted.'));
    await send(page, 'Set up the server');
    await page.getByTestId('question-card').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('.mainnav .count').textContent()).toBe('1');
    await page.getByRole('link', { name: /^Inbox/ }).click();
    const card = page.getByTestId('inbox-questions').getByTestId('question-card');
    await card.waitFor();
    // The asking agent's name comes with the agents list, which can arrive after the card.
    await expect.poll(() => card.textContent(), { timeout: 60_000 }).toContain('ceo is asking');
    await ui.screenshot('inbox-question');
    await card.getByRole('link', { name: 'Open conversation' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${ws}/c/${conversationId}`);
    const inline = page.getByTestId('question-card');
    await inline.getByLabel('Answer to: Which port should it listen on?').fill('8080');
    await inline.getByRole('button', { name: 'Send answer' }).click();
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'Port noted.' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('.mainnav .count').count()).toBe(0);
  });

  it('leaving the agent editor with unsaved edits asks; staying keeps them', async () => {
    const { page } = ui;
    const agents = (await api('GET', '/agents')).body.agents as any[];
    const qa = agents.find((agent) => agent.name === 'qa');
    await page.goto(`${server.url}/w/${ws}/settings/agents/${qa.id}`);
    await page.getByLabel('Title', { exact: true }).fill('Quality lead');
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Org chart' }).click();
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toContain('unsaved changes to qa');
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/settings/agents/${qa.id}`);
    expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe('Quality lead');
    await ui.screenshot('agent-editor-unsaved');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: 'Org chart' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/w/${ws}/org`);
    expect((await api('GET', `/agents/${qa.id}`)).body.title).not.toBe('Quality lead');
  });

  it('Tasks follows the newest plan; Stop asks, says "Stopped", and Resume runs the rest; steps fold under the plan row', async () => {
    const { page } = ui;
    const { conversationId } = await openConversation(page, 'Two plans', 'Plan');
    const first = { goal: 'First goal: tidy the docs', nodes: [{ key: 'tidy', title: 'Tidy', description: 'tidy', dependsOn: [] }] };
    model.script(reply().tool('submit_plan', first), reply().text('Plan one submitted.'));
    model.scriptFor(step('tidy'), reply().text('Docs tidied.'));
    await send(page, 'Plan the docs tidy-up');
    const planOne = (await poll(() => plansOf(conversationId), (plans) => plans.length === 1 && plans[0].status === 'proposed'))[0];
    await api('POST', `/plans/${planOne.id}/approve`);
    await poll(() => plansOf(conversationId), (plans) => plans[0].status === 'completed');

    // The second plan: its second step hangs so it can be stopped.
    await api('PATCH', `/spaces/${(await api('GET', `/conversations/${conversationId}`)).body.spaceId}`, { picker: 'Plan' });
    const second = {
      goal: 'Second goal: ship the exporter',
      nodes: [
        { key: 'read', title: 'Read the exporter', description: 'read', dependsOn: [] },
        { key: 'build', title: 'Build the button', description: 'build', dependsOn: ['read'] },
      ],
    };
    model.script(reply().tool('submit_plan', second), reply().text('Plan two submitted.'));
    model.scriptFor(step('read'), reply().text('Read it: export.ts does the work.'));
    const build = model.scriptFor(step('build'), reply().text('building').hang());
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    await send(page, 'Plan the exporter');
    const planTwo = (await poll(() => plansOf(conversationId), (plans) => plans.some((plan) => plan.goal === second.goal && plan.status === 'proposed'))).find((plan) => plan.goal === second.goal);
    await api('POST', `/plans/${planTwo.id}/approve`);
    await poll(async () => build.requests.length, (count) => count === 1);

    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    const goalRow = page.getByTestId('goal-row');
    await expect.poll(() => goalRow.getAttribute('data-plan-id'), { timeout: 60_000 }).toBe(planTwo.id);
    expect(await goalRow.locator('.goal-text').textContent()).toBe(second.goal);
    await expect.poll(() => page.getByTestId('goal-progress').textContent()).toBe('Running — 1 of 2 steps done, 1 in progress');

    // Step prompts do not flood the conversation: they sit under their plan's row.
    const timeline = page.getByTestId('timeline');
    expect(await timeline.locator('[data-testid="message"]', { hasText: 'Now do step' }).count()).toBe(0);
    const rowTwo = page.getByTestId('plan-row-wrap').filter({ has: page.locator(`[data-plan-id="${planTwo.id}"]`) });
    const steps = rowTwo.getByTestId('plan-steps');
    await steps.locator('summary').first().click();
    await expect.poll(() => steps.getByTestId('plan-step').count()).toBe(2);
    expect(await steps.locator('[data-node-key="read"]').getAttribute('data-state')).toBe('done');
    await steps.locator('[data-node-key="read"]').getByText('Read it: export.ts does the work.').waitFor();
    await steps.locator('[data-node-key="read"] .plan-step-prompt summary').click();
    expect(await steps.locator('[data-node-key="read"] .plan-step-prompt pre').textContent()).toContain('Now do step 1 of 2 — read: Read the exporter');
    await ui.screenshot('plan-steps-folded');

    // Stop asks first; cancelling the confirmation changes nothing.
    const panel = page.getByRole('complementary', { name: 'Tasks and runs' });
    await panel.getByRole('button', { name: 'Stop…' }).click();
    const confirm = panel.getByRole('alertdialog', { name: 'Stop the plan?' });
    await confirm.getByRole('button', { name: 'Keep running' }).click();
    expect((await api('GET', `/plans/${planTwo.id}`)).body.status).toBe('executing');
    await panel.getByRole('button', { name: 'Stop…' }).click();
    await confirm.getByRole('button', { name: 'Stop plan' }).click();
    await expect.poll(() => page.getByTestId('goal-progress').textContent(), { timeout: 60_000 }).toBe('Stopped — 1 of 2 steps done');
    await ui.screenshot('plan-stopped');

    // Resume runs the stopped step again; the finished one is kept.
    build.script(reply().text('Button built.'));
    await panel.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.getByTestId('goal-progress').textContent(), { timeout: 30_000 }).toBe('Finished — 2 of 2 steps done');
    await ui.screenshot('plan-resumed');

    // "Open plan" opens the newest plan, not the first one.
    await panel.getByRole('button', { name: 'Open plan' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('plan')).toBe(planTwo.id);
  });
});
