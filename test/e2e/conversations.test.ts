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

const spacesPath = () => `/api/workspaces/${ws}/spaces`;
const pathname = (page: Page) => new URL(page.url()).pathname;
const picker = (page: Page) => page.getByTestId('mode-picker');

async function spaceNamed(name: string): Promise<any> {
  const spaces = (await server.api('GET', spacesPath())).body.spaces;
  return spaces.find((space: any) => space.name === name);
}

/** Creates a space through the sidebar form, then a conversation from the space page. */
async function createSpaceAndConversation(page: Page, name: string, kind: 'Room' | 'Pull request (review)' = 'Room'): Promise<string> {
  await page.getByRole('button', { name: 'New space' }).click();
  await page.getByLabel('Space name').fill(name);
  await page.getByLabel('Space kind').selectOption({ label: kind });
  await page.getByRole('button', { name: 'Create space' }).click();
  await expect.poll(() => pathname(page)).toMatch(new RegExp(`^/w/${ws}/s/sp_`));
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await expect.poll(() => pathname(page)).toMatch(new RegExp(`^/w/${ws}/c/cv_`));
  await page.getByTestId('composer-input').waitFor();
  return pathname(page).split('/').pop()!;
}

let suite: LiveAppSuite | undefined;
beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

describe('web app: spaces, conversations, the composer mode picker (MODE-3/4/6, RLY-1/2)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('creates a space and a conversation; a fresh browser starts in Agent, picker at the left of the toolbar', async () => {
    const { page } = ui;
    await page.getByRole('link', { name: 'Conversations' }).click();
    await createSpaceAndConversation(page, 'General');
    await expect.poll(() => picker(page).inputValue()).toBe('Agent');
    const options = await picker(page).locator('option').allTextContents();
    expect(options).toEqual(['Agent', 'Ask', 'Autopilot', 'Plan', 'Orchestrate']);
    // Left end of the composer's toolbar.
    const toolbar = (await page.getByRole('toolbar', { name: 'Composer' }).boundingBox())!;
    const pickerBox = (await picker(page).boundingBox())!;
    expect(pickerBox.x - toolbar.x).toBeLessThan(4);
    await page.getByText('No messages yet').waitFor();
    await ui.screenshot('conversation-new');
  });

  it('the picker persists on the conversation (reload shows the same mode)', async () => {
    const { page } = ui;
    const patched = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/spaces/'));
    await picker(page).selectOption('Plan');
    expect((await patched).status()).toBe(200);
    expect((await spaceNamed('General'))).toMatchObject({ mode: 'plan', picker: 'Plan' });
    await page.reload();
    await picker(page).waitFor();
    await expect.poll(() => picker(page).inputValue()).toBe('Plan');
    await ui.screenshot('picker-after-reload');
  });

  it('a new space starts with the mode last chosen in this browser', async () => {
    const { page } = ui;
    await createSpaceAndConversation(page, 'Second');
    await expect.poll(() => picker(page).inputValue()).toBe('Plan');
    await expect.poll(async () => (await spaceNamed('Second')).picker).toBe('Plan');
  });

  it('Shift+Tab while typing cycles the picker and persists each step; in an empty composer it leaves for the picker', async () => {
    const { page } = ui;
    // Opening a conversation puts the cursor in the composer.
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('composer-input');
    await page.getByTestId('composer-input').fill('draft');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => picker(page).inputValue()).toBe('Orchestrate');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => picker(page).inputValue()).toBe('Agent');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => picker(page).inputValue()).toBe('Ask');
    await expect.poll(async () => (await spaceNamed('Second'))).toMatchObject({ mode: 'chat', autonomy: 'askFirst', picker: 'Ask' });
    // Focus stayed in the composer (Shift+Tab did not move it) while there was text.
    expect(await page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('composer-input');
    expect(await page.evaluate('localStorage.getItem("cc.lastPicker")')).toBe('Ask');
    await ui.screenshot('picker-shift-tab');
    // Empty composer: Shift+Tab is ordinary focus navigation (no keyboard trap), landing on the picker.
    await page.getByTestId('composer-input').fill('');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('mode-picker');
    expect(await picker(page).inputValue()).toBe('Ask');
  });

  it('“New conversation” in an existing space never changes its mode; “New chat” is a new space in the last chosen mode (RLY-2)', async () => {
    const { page } = ui;
    // The browser's last choice is Ask (Shift+Tab above); General is in Plan.
    const general = await spaceNamed('General');
    expect(general).toMatchObject({ mode: 'plan', picker: 'Plan' });
    await page.goto(`${server.url}/w/${ws}/s/${general.id}`);
    await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    await expect.poll(() => pathname(page)).toMatch(new RegExp(`^/w/${ws}/c/cv_`));
    await expect.poll(() => picker(page).inputValue()).toBe('Plan');
    expect(await spaceNamed('General')).toMatchObject({ mode: 'plan', picker: 'Plan' });
    expect((await server.api('GET', `${spacesPath()}/${general.id}/conversations`)).body.conversations).toHaveLength(2);

    const before = new Set((await server.api('GET', spacesPath())).body.spaces.map((space: any) => space.id));
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    const created = await expect
      .poll(async () => (await server.api('GET', spacesPath())).body.spaces.filter((space: any) => !before.has(space.id)))
      .toHaveLength(1)
      .then(async () => (await server.api('GET', spacesPath())).body.spaces.find((space: any) => !before.has(space.id)));
    expect(created).toMatchObject({ mode: 'chat', autonomy: 'askFirst', picker: 'Ask', kind: 'room' });
    // The web app creates the space, then its conversation in a second request: wait for both.
    const listConversations = async () => (await server.api('GET', `${spacesPath()}/${created.id}/conversations`)).body.conversations;
    await expect.poll(listConversations).toHaveLength(1);
    const conversations = await listConversations();
    await expect.poll(() => pathname(page)).toBe(`/w/${ws}/c/${conversations[0].id}`);
    await expect.poll(() => picker(page).inputValue()).toBe('Ask');
    // General kept its mode through all of it.
    expect(await spaceNamed('General')).toMatchObject({ mode: 'plan', picker: 'Plan' });
  });

  it('a review space shows its mode read-only and offers no picker', async () => {
    const { page } = ui;
    await createSpaceAndConversation(page, 'PR #7', 'Pull request (review)');
    await page.getByTestId('mode-readonly').waitFor();
    expect(await page.getByTestId('mode-readonly').textContent()).toContain('Review');
    expect(await picker(page).count()).toBe(0);
    await page.getByTestId('composer-input').focus();
    await page.keyboard.press('Shift+Tab');
    expect(await spaceNamed('PR #7')).toMatchObject({ mode: 'review', picker: null });
    await ui.screenshot('review-space-read-only');
  });

  it('branches a conversation; the branch is nested under its parent in the sidebar', async () => {
    const { page } = ui;
    const general = await spaceNamed('General');
    const conversations = (await server.api('GET', `${spacesPath()}/${general.id}/conversations`)).body.conversations;
    await page.goto(`${server.url}/w/${ws}/c/${conversations[0].id}`);
    // Branch asks for a name first; nothing is created on the first click.
    const before = (await server.api('GET', `${spacesPath()}/${general.id}/conversations`)).body.conversations.length;
    await page.getByRole('button', { name: 'Branch…', exact: true }).click();
    expect((await server.api('GET', `${spacesPath()}/${general.id}/conversations`)).body.conversations.length).toBe(before);
    await page.getByLabel('Branch name').fill('Try another way');
    await page.getByRole('button', { name: 'Create branch' }).click();
    await expect.poll(() => pathname(page)).not.toBe(`/w/${ws}/c/${conversations[0].id}`);
    const branchId = pathname(page).split('/').pop()!;
    const branch = (await server.api('GET', `/api/workspaces/${ws}/conversations/${branchId}`)).body;
    expect(branch).toMatchObject({ parentConversationId: conversations[0].id, spaceId: general.id, title: 'Try another way' });
    await page.locator('.conversation-list.nested .conversation-link.active').waitFor();
    await ui.screenshot('conversation-branch');
  });

  it('sends with Enter; the message records its mode; the reply streams live and lands as a message', async () => {
    const { page } = ui;
    await createSpaceAndConversation(page, 'Chat');
    await picker(page).selectOption('Autopilot');
    await expect.poll(async () => (await spaceNamed('Chat')).picker).toBe('Autopilot');
    const answer = 'Hello from the scripted model. This reply arrives in small pieces so the stream can be watched.';
    // Slow enough (24 chunks, 100 ms apart) that a loaded machine still shows the reply part-way.
    model.script(reply().text(answer).chunkSize(4).slow(100));
    const input = page.getByTestId('composer-input');
    await input.fill('first line');
    await input.press('Shift+Enter');
    await input.pressSequentially('second line');
    expect(await input.inputValue()).toBe('first line\nsecond line');
    await input.press('Enter');
    const userMessage = page.locator('[data-testid="message"].message-user');
    await userMessage.waitFor();
    expect(await userMessage.locator('.message-body').textContent()).toBe('first line\nsecond line');
    expect(await userMessage.getByTestId('message-mode').textContent()).toBe('Autopilot');
    await expect.poll(() => input.inputValue()).toBe('');

    // Streaming: part of the text is on screen before the whole reply is.
    const live = page.getByTestId('live-turn');
    await live.waitFor();
    // Read without waiting (the turn text is absent until the first chunk) and wait for a part-way state,
    // rather than reading once after the first chunk: by then a slow reader may see the whole reply.
    const partWay = async () => {
      const shown = (await live.getByTestId('turn-text').allTextContents()).join('');
      return shown.length > 0 && shown.length < answer.length;
    };
    await expect.poll(partWay, { timeout: 60_000 }).toBe(true);
    await page.getByTestId('next-turn-note').waitFor();
    await ui.screenshot('turn-streaming');

    const agentMessage = page.locator('[data-testid="message"].message-assistant');
    await agentMessage.waitFor({ timeout: 60_000 });
    expect(await agentMessage.locator('.message-body').textContent()).toBe(answer);
    await expect.poll(() => live.count()).toBe(0);
    await expect.poll(() => page.getByTestId('next-turn-note').count()).toBe(0);
    await ui.screenshot('turn-finished');
  });

  it('bare /plan arms Plan mode and posts nothing', async () => {
    const { page } = ui;
    const before = await page.locator('[data-testid="message"]').count();
    const input = page.getByTestId('composer-input');
    await input.fill('/plan');
    await input.press('Enter');
    await expect.poll(() => picker(page).inputValue()).toBe('Plan');
    expect((await spaceNamed('Chat')).picker).toBe('Plan');
    await page.getByRole('status').filter({ hasText: 'Plan mode armed' }).waitFor();
    expect(await page.locator('[data-testid="message"]').count()).toBe(before);
    expect(await input.inputValue()).toBe('');
  });

  it('a plan turn on the Claude Agent SDK ends with the Plan ready board; “Implement in autopilot” sets Autopilot and sends the implementing message (RLY-5)', async () => {
    const { page } = ui;
    const agent = await server.api('POST', `/api/workspaces/${ws}/agents`, { name: 'relay', title: 'Relay', adapterId: 'claude-agent-sdk' });
    expect(agent.status).toBe(201);
    expect((await spaceNamed('Chat')).picker).toBe('Plan');
    const conversationId = pathname(page).split('/').pop()!;
    model.script(reply().tool('ExitPlanMode', { plan: '1. Add the parser\n2. Test it' }), reply().text('The plan is ready for your review.'));
    const posted = await server.api('POST', `/api/workspaces/${ws}/conversations/${conversationId}/messages`, { text: 'plan the parser', agentId: agent.body.id });
    expect(posted.status).toBe(202);
    const board = page.getByTestId('plan-ready-board');
    await board.waitFor({ timeout: 120_000 });
    expect(await board.locator('.plan-ready-text').textContent()).toBe('1. Add the parser\n2. Test it');
    await ui.screenshot('plan-ready-board');
    model.script(reply().text('Implementing now.'));
    await board.getByRole('button', { name: 'Implement in autopilot' }).click();
    await expect.poll(async () => (await spaceNamed('Chat')).picker).toBe('Autopilot');
    await page.locator('[data-testid="message"].message-user').filter({ hasText: 'Implement the plan above.' }).waitFor();
    await expect.poll(() => board.count()).toBe(0);
  });
});
