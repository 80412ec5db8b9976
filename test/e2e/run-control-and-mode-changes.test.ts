/**
 * Browser test (real chromium, real server, scripted model; desktop) for what changes without telling
 * and for run control: a mode or dial change is said in the conversation and in a toast, and the
 * header shows (and changes) both (MODE-4, POL-5); a plan is drawn once, after the turn that
 * submitted it (PLAN-3); Stop keeps the running tool call, marked stopped; a paused turn reads
 * "paused" only; Take over opens a box to write in; a message sent while a turn waits for approval
 * goes to that turn, and so does one sent while a turn merely runs, attached to it with a note
 * (HAR-5). Every check waits for the state the person ends up seeing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

let suite: LiveAppSuite | undefined;
let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;

beforeAll(async () => {
  suite = await startLiveAppSuite('Run Control Co');
  ({ server, model, ui, workspaceId: ws } = suite);
  await ui.page.setViewportSize({ width: 1440, height: 900 });
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const WAIT = { timeout: 60_000 };
const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);

async function openNewConversation(page: Page, spaceName: string): Promise<{ spaceId: string; conversationId: string }> {
  const space = (await api('POST', '/spaces', { name: spaceName })).body;
  const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: spaceName })).body;
  await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
  await page.getByTestId('composer-input').waitFor(WAIT);
  await expect.poll(() => page.getByTestId('live-status').textContent(), WAIT).toBe('Live');
  return { spaceId: space.id, conversationId: conversation.id };
}

async function send(page: Page, text: string): Promise<{ run: { id: string } | null; steeredTurn?: boolean }> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  const accepted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/messages'));
  await input.press('Enter');
  const response = await accepted;
  expect(response.status()).toBe(202);
  return (await response.json()) as { run: { id: string } | null; steeredTurn?: boolean };
}

/** Positions of elements in the timeline, top to bottom: order is what the person reads. */
const orderOf = (page: Page, selectors: string[]) =>
  page.getByTestId('timeline').evaluate((timeline, wanted) => {
    const all = [...timeline.querySelectorAll('*')];
    return wanted.map((selector) => all.indexOf(timeline.querySelector(selector)!));
  }, selectors);

describe('changes are said where they happen (MODE-4, POL-5)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('picking Ask says the dial moved, in the timeline and a toast; the header shows mode and dial and changes them', async () => {
    const { page } = ui;
    await openNewConversation(page, 'Dial');
    const bar = page.getByTestId('space-mode-bar');
    await expect.poll(() => bar.getByTestId('space-autonomy').inputValue(), WAIT).toBe('actWithApproval');

    const toast = page.getByTestId('toast').filter({ hasText: 'Autonomy set to Ask first' }).waitFor(WAIT);
    await page.getByTestId('mode-picker').selectOption('Ask');
    await toast;
    const note = page.getByTestId('mode-change-note').filter({ hasText: 'Autonomy set to Ask first (was Act with approval) because Ask was picked.' });
    await note.waitFor(WAIT);
    await expect.poll(() => note.textContent(), WAIT).toContain('by you');
    await expect.poll(() => bar.getByTestId('space-autonomy').inputValue(), WAIT).toBe('askFirst');
    await ui.screenshot('mode-change-note-desktop');

    // Changed from the header: the composer follows and the conversation says why.
    await bar.getByTestId('space-autonomy').selectOption('actWithApproval');
    await page.getByTestId('mode-change-note').filter({ hasText: "Autonomy set to Act with approval (was Ask first) because the space's settings were changed." }).waitFor(WAIT);
    await expect.poll(() => page.getByTestId('mode-picker').inputValue(), WAIT).toBe('Agent');
  });
});

describe('one plan, one drawing, in order (PLAN-3)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('draws the plan once, after the turn that submitted it; approving it says the space went back to Agent', async () => {
    const { page } = ui;
    const { conversationId } = await openNewConversation(page, 'Planned');
    const plan = { goal: 'Ship the banner', nodes: [{ key: 'one', title: 'Write the banner', description: 'write it', dependsOn: [] }] };
    model.script(reply().tool('submit_plan', plan), reply().text('The plan is ready for you.'));
    await send(page, '/plan ship the banner');
    await expect.poll(async () => (await api('GET', `/plans?conversationId=${conversationId}`)).body.plans[0]?.status, WAIT).toBe('proposed');
    // Plan Studio opens by itself when the plan arrives; the drawing in question is the conversation's.
    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    const reply_ = page.locator('[data-testid="message"].message-assistant', { hasText: 'The plan is ready for you.' });
    await reply_.waitFor(WAIT);
    await page.getByTestId('plan-row').waitFor(WAIT);
    const [asked, answered, planRow] = await orderOf(page, ['[data-testid="message"].message-user', '[data-testid="message"].message-assistant', '[data-testid="plan-row"]']);
    expect(asked).toBeLessThan(answered!);
    expect(answered).toBeLessThan(planRow!);

    model.script(reply().text('Banner written.'));
    const toast = page.getByTestId('toast').filter({ hasText: 'because the plan “Ship the banner” was approved' }).waitFor(WAIT);
    await page.getByTestId('plan-row').getByRole('button', { name: 'Approve and run' }).click();
    await toast;
    await page.getByTestId('mode-change-note').filter({ hasText: 'Mode set to Agent (was Plan) because the plan “Ship the banner” was approved.' }).waitFor(WAIT);
    await expect.poll(() => page.getByTestId('space-mode-bar').getByTestId('space-mode').inputValue(), WAIT).toBe('chat');
    await expect.poll(async () => (await api('GET', `/plans?conversationId=${conversationId}`)).body.plans[0]?.status, WAIT).toBe('completed');
    // The approved plan is recorded as an orchestration too; it is still drawn once, as its plan row.
    await expect.poll(async () => (await api('GET', `/orchestrations?conversationId=${conversationId}`)).body.orchestrations?.length ?? 0, WAIT).toBeGreaterThan(0);
    // Counted once the page has read the conversation's orchestrations, so an absent card means "not drawn", not "not loaded yet".
    const orchestrationsRead = page.waitForResponse((response) => response.url().includes(`/orchestrations?conversationId=${conversationId}`) && response.ok(), WAIT);
    await page.reload();
    await orchestrationsRead;
    await page.getByTestId('plan-row').waitFor(WAIT);
    await page.getByTestId('mode-change-note').last().waitFor(WAIT);
    expect(await page.getByTestId('plan-row').count()).toBe(1);
    expect(await page.getByTestId('orchestration-card').count()).toBe(0);
    await ui.screenshot('plan-drawn-once-desktop');
  });
});

describe('run control (HAR-5)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('Take over opens a box while the turn reads "paused" only; after Stop the running tool call stays, marked stopped', async () => {
    const { page } = ui;
    const { conversationId } = await openNewConversation(page, 'Stopping');
    // One reply only: the turn is stopped inside its tool call, so no second model call is made (a
    // scripted one left over would answer the next test's turn).
    model.script(reply().tool('bash', { command: 'sleep 45' }));
    const posted = await send(page, 'wait a while');
    const runId = posted.run!.id;
    const live = page.getByTestId('live-turn');
    await live.getByTestId('tool-call').filter({ hasText: 'sleep 45' }).filter({ hasText: 'running' }).waitFor(WAIT);

    const takeOver = live.getByRole('button', { name: 'Take over' });
    await expect.poll(() => takeOver.isEnabled(), WAIT).toBe(true);
    await takeOver.click();
    const box = live.getByLabel('The turn is paused. Your instructions:');
    await box.waitFor(WAIT);
    await expect.poll(() => live.getByTestId('turn-state').textContent(), WAIT).toBe('paused');
    await expect.poll(() => live.getByTestId('tool-call').first().locator('.tool-status').textContent(), WAIT).toBe('paused');
    expect(await live.getByText('running', { exact: true }).count()).toBe(0);
    expect(await live.getByRole('button', { name: 'Send and resume' }).isVisible()).toBe(true);
    await ui.screenshot('take-over-box-desktop');
    await box.fill('Stop after this one.');
    await live.getByRole('button', { name: 'Send and resume' }).click();
    await expect.poll(async () => (await api('GET', `/runs/${runId}/controls`)).body.paused, WAIT).toBe(false);
    await expect.poll(() => live.getByTestId('turn-state').textContent(), WAIT).toBe('running');

    await live.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(async () => (await api('GET', `/runs/${runId}`)).body.run.state, WAIT).toBe('cancelled');
    const stopped = page.getByTestId('stopped-turn');
    await stopped.getByTestId('tool-call').filter({ hasText: 'sleep 45' }).waitFor(WAIT);
    await expect.poll(() => stopped.getByTestId('tool-call').first().locator('.tool-status').textContent(), WAIT).toBe('stopped');
    await expect.poll(() => stopped.textContent(), WAIT).toContain('turn was stopped');
    expect(await page.getByTestId('live-turn').count()).toBe(0);
    expect((await api('GET', `/runs?conversationId=${conversationId}`)).body.runs).toHaveLength(1);
  });

  it('a second message while a turn waits for approval is said to go to that turn, goes there, and its answer comes after it', async () => {
    const { page } = ui;
    const { conversationId } = await openNewConversation(page, 'Waiting');
    const rule = (await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' })).body;
    model.script(reply().tool('bash', { command: 'touch notes.txt' }), reply().text('Made notes.txt and noted the README.'));
    const first = await send(page, 'make notes.txt');
    const approval = page.getByTestId('approval');
    await approval.waitFor(WAIT);
    await expect.poll(() => page.getByTestId('waiting-turn-note').textContent(), WAIT).toContain('what you send now goes to it as instructions');

    const second = await send(page, 'also mention the README');
    expect(second).toMatchObject({ steeredTurn: true, run: { id: first.run!.id } });
    const steering = page.locator('[data-testid="message"]', { hasText: 'also mention the README' });
    await steering.getByTestId('steering-chip').waitFor(WAIT);
    expect(await page.getByTestId('live-turn').count()).toBe(1);
    await ui.screenshot('message-to-waiting-turn-desktop');

    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    const answer = page.locator('[data-testid="message"].message-assistant', { hasText: 'Made notes.txt and noted the README.' });
    await answer.waitFor(WAIT);
    const [steered, answered] = await orderOf(page, ['[data-testid="steering-chip"]', '[data-testid="message"].message-assistant']);
    expect(steered).toBeLessThan(answered!);
    expect((await api('GET', `/runs?conversationId=${conversationId}`)).body.runs).toHaveLength(1);
    await api('DELETE', `/policy/rules/${rule.id}`);
  });

  it('a message sent while a turn runs (no approval) is said to go to it, is attached to it with a note, and is read before its next step', async () => {
    const { page } = ui;
    const { conversationId } = await openNewConversation(page, 'Running');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    model.script(
      reply(async () => {
        await held;
        return reply().tool('bash', { command: 'echo step' });
      }),
      reply().text('Stepped, and the changelog is noted.'),
    );
    const first = await send(page, 'take one step');
    await page.getByTestId('live-turn').waitFor(WAIT);
    await expect.poll(() => page.getByTestId('running-turn-note').textContent(), WAIT).toContain('what you send now goes to it, read before its next step');

    const second = await send(page, 'also note the changelog');
    expect(second).toMatchObject({ steeredTurn: true, run: { id: first.run!.id } });
    const steering = page.locator('[data-testid="message"]', { hasText: 'also note the changelog' });
    await expect.poll(() => steering.getByTestId('steering-note').textContent(), WAIT).toBe('Sent to the running turn — it reads this before its next step');
    await expect.poll(() => page.getByTestId('live-turn').count(), WAIT).toBe(1);
    await ui.screenshot('message-to-running-turn-desktop');

    release();
    const answer = page.locator('[data-testid="message"].message-assistant', { hasText: 'Stepped, and the changelog is noted.' });
    await answer.waitFor(WAIT);
    await expect.poll(() => page.getByTestId('live-turn').count(), WAIT).toBe(0);
    const [steered, answered] = await orderOf(page, ['[data-testid="steering-note"]', '[data-testid="message"].message-assistant']);
    expect(steered).toBeLessThan(answered!);
    expect(JSON.stringify(model.requests.at(-1)!.body)).toContain('also note the changelog');
    expect((await api('GET', `/runs?conversationId=${conversationId}`)).body.runs).toHaveLength(1);
  });
});
