/**
 * TEAM-1/TEAM-3 in a real browser: the owner invites Dana; Dana opens the one-time link in her own
 * browser, gives her name and lands in the app; she approves the agent's command in her Inbox; the
 * owner, in another browser, sees "Approved by Dana" on the finished turn, Dana among the people in
 * the conversation, and Dana as a member in Settings → People.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-reply.js';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';

let suite: LiveAppSuite;
let dana: TestBrowser;

beforeAll(async () => {
  suite = await startLiveAppSuite('Team');
  dana = await launchBrowser();
}, BROWSER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await dana?.close();
  await suite?.close();
});

describe('two people, two browsers (TEAM-1, TEAM-3)', () => {
  it('Dana joins through her invitation and approves; the owner sees who did', async () => {
    const { server, workspaceId, model, ui } = suite;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const invitation = await api('POST', '/invitations', { role: 'member', email: 'dana@example.com' });
    expect(invitation.status).toBe(201);

    // Dana's browser: the link shows a form; her name makes the account and signs her in.
    await dana.page.goto(invitation.body.url);
    await dana.page.getByLabel('Your name').fill('Dana');
    await dana.page.getByRole('button', { name: 'Join' }).click();
    await dana.page.locator('.topbar').waitFor();

    // Dana keeps her Inbox open: her browser's event stream is what lets the turn ask rather than fail closed (POL-4).
    await dana.page.goto(`${server.url}/w/${workspaceId}/inbox`);
    await dana.page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await expect.poll(() => server.running.app.events.subscriberCount(workspaceId), { timeout: 30_000 }).toBeGreaterThan(0);
    const space = (await api('POST', '/spaces', { name: 'Work' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Tidy' })).body;
    model.script(reply().tool('bash', { command: 'rm -f draft.txt' }), reply().text('Tidied.'));
    const posted = await api('POST', `/conversations/${conversation.id}/messages`, { text: 'tidy up' });
    expect(posted.status).toBe(202);
    await expect.poll(async () => (await api('GET', '/approvals?status=pending')).body.approvals.length, { timeout: 60_000 }).toBe(1);

    const card = dana.page.getByTestId('inbox-approvals').locator('article').filter({ hasText: 'rm -f draft.txt' });
    await card.getByRole('button', { name: 'Approve' }).click({ timeout: 60_000 });
    const danaId = ((await api('GET', '/people')).body.people as Array<{ id: string; name: string }>).find((person) => person.name === 'Dana')!.id;
    await expect.poll(async () => (await api('GET', '/approvals')).body.approvals[0], { timeout: 60_000 }).toMatchObject({ status: 'approved', decidedBy: danaId });

    // The owner's browser: the finished turn says who approved; Dana, opening the same conversation, is named beside the agents.
    await ui.page.goto(`${server.url}/w/${workspaceId}/c/${conversation.id}`);
    await ui.page.getByTestId('tool-decision').filter({ hasText: 'Approved by Dana' }).waitFor({ timeout: 60_000 });
    await dana.page.goto(`${server.url}/w/${workspaceId}/c/${conversation.id}`);
    await ui.page.getByTestId('person-here').filter({ hasText: 'Dana' }).waitFor({ timeout: 60_000 });
    await ui.screenshot('people-approved-by');

    await ui.page.goto(`${server.url}/w/${workspaceId}/settings/people`);
    const row = ui.page.getByTestId('people-table').locator('tr', { hasText: 'Dana' });
    await row.waitFor({ timeout: 60_000 });
    await expect.poll(async () => row.getByLabel('Role of Dana').inputValue(), { timeout: 30_000 }).toBe('member');
    await ui.screenshot('people-settings');
  }, BROWSER_TEST_TIMEOUT_MS * 2);
});
