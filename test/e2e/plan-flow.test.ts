/**
 * Browser tests of the flows that need a turn to block on the operator: Inbox approvals resuming a
 * run (POL-7), ask_user question cards (PLAN-4), and the plan flow (PLAN-2/3/7/8) from submit_plan
 * to Plan Studio to execution. Written against docs/api.md; the model is the scripted model server.
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

/** A space (through the API) and a conversation in it opened in the browser. */
async function openConversation(page: Page, spaceName: string, picker: string): Promise<{ spaceId: string; conversationId: string }> {
  const space = (await server.api('POST', `/api/workspaces/${ws}/spaces`, { name: spaceName })).body;
  await server.api('PATCH', `/api/workspaces/${ws}/spaces/${space.id}`, { picker });
  const conversation = (await server.api('POST', `/api/workspaces/${ws}/spaces/${space.id}/conversations`, { title: spaceName })).body;
  await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
  await page.getByTestId('composer-input').waitFor();
  await expect.poll(() => page.getByTestId('live-status').textContent()).toBe('Live');
  return { spaceId: space.id, conversationId: conversation.id };
}

/** Types and sends with Enter; resolves once the server accepted the message (202). */
async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  const accepted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/messages'));
  await input.press('Enter');
  expect((await accepted).status()).toBe(202);
}

/** Every tool result text the model was shown, across all requests so far. */
function toolResultsSeen(): string {
  return JSON.stringify(model.requests.map((request) => request.toolResults));
}

let suite: LiveAppSuite | undefined;
beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

describe('web app: approvals, questions and plans with a live turn (POL-7, PLAN-3..8)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('a gated tool call waits in the Inbox; Approve resumes the run', async () => {
    const { page } = ui;
    await openConversation(page, 'Cleanup', 'Agent');
    model.script(reply().tool('bash', { command: 'rm -f notes.txt' }), reply().text('Removed notes.txt.'));
    await send(page, 'Please delete notes.txt');

    // Shown inline in the conversation, and in the Inbox with a count in the navigation.
    const inline = page.getByTestId('approval');
    await inline.waitFor({ timeout: 60_000 });
    expect(await inline.textContent()).toContain('rm -f notes.txt');
    await ui.screenshot('approval-inline');
    await page.getByRole('link', { name: /^Inbox/ }).click();
    const card = page.getByTestId('inbox-approvals').getByTestId('approval');
    await card.waitFor();
    // The navigation's count is its own query: it can follow the card by a moment.
    await expect.poll(() => page.locator('.mainnav .count').textContent(), { timeout: 60_000 }).toBe('1');
    await ui.screenshot('inbox-pending');
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.getByTestId('approval').count()).toBe(0);
    await page.getByText('Nothing waiting for a decision').waitFor();
    expect((await server.api('GET', `/api/workspaces/${ws}/approvals?status=pending`)).body.approvals).toEqual([]);

    await page.goBack();
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'Removed notes.txt.' }).waitFor({ timeout: 60_000 });
    await ui.screenshot('approval-resumed');
  });

  it('Reject with a reason reaches the agent; decisions made elsewhere update the Inbox live', async () => {
    const { page } = ui;
    await openConversation(page, 'Cleanup 2', 'Agent');
    model.script(reply().tool('bash', { command: 'rm -f todo.txt' }), reply().text('Understood, I left todo.txt alone.'));
    await send(page, 'Delete todo.txt');
    const inline = page.getByTestId('approval');
    await inline.waitFor({ timeout: 60_000 });
    await inline.getByRole('button', { name: 'Reject…' }).click();
    await inline.getByLabel('Reason for rejecting').fill('keep it for now');
    await inline.getByRole('button', { name: 'Reject', exact: true }).click();
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'left todo.txt alone' }).waitFor({ timeout: 60_000 });
    expect(toolResultsSeen()).toContain('keep it for now');

    // An approval decided through the API disappears from an open Inbox without a reload.
    model.script(reply().tool('bash', { command: 'rm -f scratch.txt' }), reply().text('Done.'));
    await send(page, 'Delete scratch.txt');
    await page.getByTestId('approval').waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: /^Inbox/ }).click();
    await page.getByTestId('inbox-approvals').waitFor();
    const pending = (await server.api('GET', `/api/workspaces/${ws}/approvals?status=pending`)).body.approvals;
    expect(pending).toHaveLength(1);
    await server.api('POST', `/api/workspaces/${ws}/approvals/${pending[0].id}/decision`, { decision: 'approve' });
    await page.getByText('Nothing waiting for a decision').waitFor();
  });

  it('ask_user shows a question card; the answer goes back to the agent', async () => {
    const { page } = ui;
    await openConversation(page, 'Questions', 'Agent');
    model.script(
      reply().tool('ask_user', { questions: [{ question: 'Which colour should the button be?', options: ['red', 'blue'] }, { question: 'Any label text?' }] }),
      reply().text('Blue it is, labelled Go.'),
    );
    await send(page, 'Style the button');
    const card = page.getByTestId('question-card');
    await card.waitFor({ timeout: 60_000 });
    await ui.screenshot('question-card');
    await card.getByLabel('blue').check();
    await card.getByLabel('Answer to: Any label text?').fill('Go');
    await card.getByRole('button', { name: 'Send answers' }).click();
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'Blue it is' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('question-card').count()).toBe(0);
    expect(toolResultsSeen()).toContain('blue');
  });

  it('plan flow: submit_plan → plan row → Plan Studio opens by itself → approve → live execution and the goal row', async () => {
    const { page } = ui;
    const plansRoute = await server.api('GET', `/api/workspaces/${ws}/plans`);
    expect(plansRoute.status, `GET /api/workspaces/:ws/plans answers ${plansRoute.status}: the plan routes of docs/api.md are not served yet`).toBe(200);
    const { spaceId, conversationId } = await openConversation(page, 'Feature', 'Plan');
    const goal = 'Ship the export button';
    model.script(
      reply().tool('submit_plan', {
        goal,
        nodes: [
          { key: 'research', title: 'Read the current export code', description: 'Find where exports happen.', dependsOn: [] },
          { key: 'build', title: 'Add the button', description: 'Wire the button to the exporter.', dependsOn: ['research'] },
          { key: 'docs', title: 'Document it', description: 'One paragraph in the guide.', dependsOn: ['research'] },
          { key: 'verify', title: 'Verify', description: 'Click it and compare the file.', dependsOn: ['build', 'docs'] },
        ],
      }),
      reply().text('I submitted the plan.'),
      // Execution: one turn per step (the unscripted fallback answers any extra request).
      reply().text('Found the exporter in export.ts.').slow(20),
      reply().text('Button added.').slow(20),
      reply().text('Guide updated.').slow(20),
      reply().text('Verified: the file matches.').slow(20),
    );
    await send(page, 'Add an export button');

    // PLAN-3: the compact row in the conversation, and Plan Studio opening by itself.
    await expect.poll(() => new URL(page.url()).searchParams.get('plan') ?? '', { timeout: 60_000 }).toMatch(/^plan_/);
    const studio = page.getByTestId('plan-studio');
    await studio.waitFor();
    await expect.poll(() => studio.getByTestId('plan-node').count(), { timeout: 60_000 }).toBe(4);
    // Laid out left → right by dependency.
    const x = async (key: string) => (await studio.locator(`[data-node-key="${key}"]`).boundingBox())!.x;
    expect(await x('research')).toBeLessThan(await x('build'));
    expect(await x('build')).toBeLessThan(await x('verify'));
    expect(await x('docs')).toBeLessThan(await x('verify'));
    await studio.locator('[data-node-key="build"]').click();
    await studio.getByTestId('node-inspector').getByText('Wire the button to the exporter.').waitFor();
    await studio.getByTestId('cost-estimate').waitFor();
    await ui.screenshot('plan-studio');

    await page.getByRole('tab', { name: 'Conversation' }).click();
    const row = page.getByTestId('plan-row');
    await row.waitFor();
    expect(await row.textContent()).toContain(goal);
    expect(await row.textContent()).toContain('4 steps');
    await ui.screenshot('plan-row');
    await row.getByRole('button', { name: 'Open' }).click();
    await studio.waitFor();

    // PLAN-7: approve; the space returns to agent mode; PLAN-8: node states and progress live.
    await studio.getByRole('button', { name: 'Approve plan' }).click();
    await expect.poll(async () => (await server.api('GET', `/api/workspaces/${ws}/spaces/${spaceId}`)).body.mode, { timeout: 60_000 }).toBe('chat');
    await expect.poll(() => studio.locator('[data-node-key="verify"]').getAttribute('data-state'), { timeout: 60_000 }).toBe('done');
    for (const key of ['research', 'build', 'docs']) expect(await studio.locator(`[data-node-key="${key}"]`).getAttribute('data-state')).toBe('done');
    await expect.poll(() => studio.getByTestId('plan-progress').textContent()).toBe('Finished — 4 of 4 steps done');
    await ui.screenshot('plan-studio-done');

    await page.getByRole('tab', { name: 'Conversation' }).click();
    const goalRow = page.getByTestId('goal-row');
    await goalRow.waitFor();
    expect(await goalRow.textContent()).toContain(goal);
    await expect.poll(() => page.getByTestId('goal-progress').textContent()).toBe('Finished — 4 of 4 steps done');
    expect((await server.api('GET', `/api/workspaces/${ws}/conversations/${conversationId}`)).body.goal).toBe(goal);
    await expect.poll(() => page.getByTestId('mode-picker').inputValue()).toBe('Agent');
    await ui.screenshot('plan-executed-goal-row');
  });
});
