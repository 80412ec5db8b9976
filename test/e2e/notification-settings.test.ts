/**
 * NTF-1 in a real browser: the owner subscribes a webhook in Settings → Notifications (the made
 * signing secret shows once), an agent's command waits for approval, the webhook's first attempt
 * gets a 500 and the retry lands — both attempts show in the delivery log — and the link it carried,
 * opened on a phone-sized window, shows that approval card and its buttons first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-reply.js';
import { BROWSER_TEST_TIMEOUT_MS } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { LocalHttpReceiver } from '../support/notification-receivers.js';

let suite: LiveAppSuite;
let hooks: LocalHttpReceiver;

beforeAll(async () => {
  suite = await startLiveAppSuite('Alerts');
  hooks = await LocalHttpReceiver.start();
}, BROWSER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await suite?.close();
  await hooks?.close();
});

describe('Settings → Notifications (NTF-1)', () => {
  it('subscribes a webhook, shows its delivery log with the retried attempt, and the link opens the card first', async () => {
    const { server, workspaceId, model, ui } = suite;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    // The receiver lives on 127.0.0.1: only the owner's setting lets a webhook target it.
    expect((await server.api('PATCH', '/api/notifications/settings', { allowPrivateTargets: true })).status).toBe(200);
    hooks.failNext('/owner', 500);

    await ui.page.goto(`${server.url}/w/${workspaceId}/settings/notifications`);
    await ui.page.getByRole('heading', { name: 'Notifications' }).waitFor();
    const form = ui.page.locator('form', { has: ui.page.getByRole('button', { name: 'Add webhook' }) });
    await form.getByLabel('Name').fill('Team chat');
    await form.getByLabel('URL').fill(`${hooks.url}/owner`);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(async () => (await ui.page.getByTestId('signing-secret').textContent({ timeout: 30_000 })) ?? '', { timeout: 30_000 }).toMatch(/whsec_/);
    await ui.page.getByTestId('notification-channels').locator('tr', { hasText: 'Team chat' }).waitFor({ timeout: 30_000 });

    // The open page keeps the workspace's event stream: the command asks rather than fail closed (POL-4).
    await expect.poll(() => server.running.app.events.subscriberCount(workspaceId), { timeout: 30_000 }).toBeGreaterThan(0);
    const space = (await api('POST', '/spaces', { name: 'Work' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Tidy' })).body;
    model.script(reply().tool('bash', { command: 'rm -f draft.txt' }), reply().text('Tidied.'));
    expect((await api('POST', `/conversations/${conversation.id}/messages`, { text: 'tidy up' })).status).toBe(202);

    // The delivery log refreshes itself: the row ends delivered, after a failed first attempt.
    const row = ui.page.getByTestId('delivery-log').locator('tr[data-status="delivered"]', { hasText: 'Approval waiting' });
    await row.waitFor({ timeout: 60_000 });
    await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 30_000 }).toMatch(/#1 failed \(HTTP 500\); #2 ok \(HTTP 201\)/);
    await ui.screenshot('notification-settings-delivery-log');
    expect(hooks.to('/owner')).toHaveLength(2);
    const link = JSON.parse(hooks.to('/owner')[1]!.body.toString('utf8')).url as string;
    expect(link).toMatch(new RegExp(`/w/${workspaceId}/inbox\\?card=`));

    // The link on a phone: the card and its buttons come first, within the first screen.
    await ui.page.setViewportSize({ width: 390, height: 844 });
    await ui.page.goto(link);
    const approve = ui.page.getByTestId('inbox-focused').getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 60_000 });
    await expect.poll(async () => {
      const box = await approve.boundingBox();
      return box !== null && box.y + box.height <= 844;
    }, { timeout: 30_000 }).toBe(true);
    await ui.screenshot('notification-link-on-phone');
    await approve.click();
    await expect.poll(async () => (await api('GET', '/approvals')).body.approvals[0]?.status, { timeout: 60_000 }).toBe('approved');
  }, BROWSER_TEST_TIMEOUT_MS * 2);
});
