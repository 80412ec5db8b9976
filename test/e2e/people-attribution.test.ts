/**
 * TEAM-1/TEAM-3 in a real browser: the owner invites Dana; Dana opens the one-time link in her own
 * browser, gives her name and lands in the app; she approves the agent's command in her Inbox; the
 * owner, in another browser, sees "Approved by Dana" on the finished turn, Dana among the people in
 * the conversation, and Dana as a member in Settings → People. Then (TEAM-2, TEAM-3): Dana opens a
 * waiting card from its link and the owner's Inbox card says she is looking; as a member she is
 * offered no "New agent"; and a viewer, signed in in the same browser, is offered no Approve. Last
 * (TEAM-1), a colleague signs in through the organisation's OpenID Connect provider from the sign-in page.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-reply.js';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { invitePerson } from '../support/people-fixture.js';
import { startLocalOidcProvider } from '../support/local-oidc-provider.js';

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

    // Settings → People lists her browser sessions: this one is named, with when it was last used ("just now",
    // the exact time in its title) and Revoke. Waited for, since the list arrives after the page.
    await dana.page.goto(`${server.url}/w/${workspaceId}/settings/people`);
    const thisBrowser = dana.page.getByTestId('my-sessions').locator('tbody tr', { hasText: 'This browser' });
    const lastSeen = thisBrowser.getByTestId('session-last-seen').locator('time');
    await expect
      .poll(async () => ({ shown: (await lastSeen.textContent({ timeout: 60_000 }))?.trim(), exact: Boolean(await lastSeen.getAttribute('title')), revoke: await thisBrowser.getByRole('button', { name: 'Revoke' }).count() }), { timeout: 60_000 })
      .toEqual({ shown: expect.stringMatching(/^(just now|\d+ minutes? ago)$/), exact: true, revoke: 1 });

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

    // TEAM-3: Settings → Audit log names Dana beside her approval; filtered to her, only her acts; the export carries it.
    await ui.page.getByRole('navigation', { name: 'Workspace settings' }).getByRole('link', { name: 'Audit log' }).click();
    const auditTable = ui.page.getByTestId('audit-table');
    await auditTable.locator('tr[data-kind="approval.approved"]', { hasText: 'Dana' }).waitFor({ timeout: 60_000 });
    await auditTable.locator('tr[data-kind="invitation.created"]').first().waitFor({ timeout: 30_000 });
    // The kind is words on the screen; its code stays on the cell's title (what the Kind filter takes).
    const approvedKind = auditTable.locator('tr[data-kind="approval.approved"]', { hasText: 'Dana' }).locator('td[data-label="Kind"]');
    await expect.poll(() => approvedKind.textContent(), { timeout: 30_000 }).toBe('Tool call approved');
    expect(await approvedKind.getAttribute('title')).toBe('approval.approved');
    expect(await auditTable.locator('td[data-label="Kind"]').allTextContents()).not.toContainEqual(expect.stringMatching(/[._]/));
    await ui.page.getByLabel('Person').selectOption({ label: 'Dana' });
    // One condition on the final table (never the empty one shown while the filtered page loads): rows, all Dana's, her approval among them.
    const shownActs = async () => ({ names: await auditTable.locator('tbody tr td:nth-child(2)').allTextContents(), kinds: await auditTable.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind'))) });
    await expect
      .poll(async () => {
        const shown = await shownActs();
        return shown.names.length > 0 && shown.names.every((name) => name === 'Dana') && shown.kinds.includes('approval.approved');
      }, { timeout: 60_000 })
      .toBe(true);
    await ui.screenshot('audit-log');
    const [download] = await Promise.all([ui.page.waitForEvent('download', { timeout: 60_000 }), ui.page.getByRole('button', { name: 'Export JSON Lines' }).click()]);
    const lines = (await readFile((await download.path())!, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { kind: string; actor: { id: string } });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((entry) => entry.actor.id === danaId)).toBe(true);
    expect(lines.map((entry) => entry.kind)).toContain('approval.approved');
  }, BROWSER_TEST_TIMEOUT_MS * 2);

  it('the owner sees who else is looking at a card; a member and a viewer are offered only what they may do', async () => {
    const { server, workspaceId, model, ui } = suite;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    // The owner keeps the Inbox open (an open stream is what lets the turn ask, POL-4).
    await ui.page.goto(`${server.url}/w/${workspaceId}/inbox`);
    await ui.page.getByRole('heading', { name: 'Inbox' }).waitFor();
    const space = (await api('POST', '/spaces', { name: 'Sweep' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Sweep' })).body;
    model.script(reply().tool('bash', { command: 'rm -f notes.txt' }), reply().text('Swept.'));
    expect((await api('POST', `/conversations/${conversation.id}/messages`, { text: 'sweep up' })).status).toBe(202);
    const waiting = async () => ((await api('GET', '/approvals?status=pending')).body.approvals as Array<{ id: string; conversationId: string | null }>).find((entry) => entry.conversationId === conversation.id);
    await expect.poll(waiting, { timeout: 60_000 }).toBeTruthy();
    const approval = (await waiting())!;

    // Dana opens the card from its notification link: the owner's card names her, live.
    await dana.page.goto(`${server.url}/w/${workspaceId}/inbox?card=${approval.id}`);
    await dana.page.getByTestId('inbox-focused').getByRole('button', { name: 'Approve' }).waitFor({ timeout: 60_000 });
    const ownerCard = ui.page.locator(`[data-approval-id="${approval.id}"]`);
    await ownerCard.getByTestId('others-looking').filter({ hasText: 'Dana is looking at this too' }).waitFor({ timeout: 60_000 });
    await ui.screenshot('people-others-looking');

    // A member manages no agents: no "New agent", and a line saying why. Leaving the card takes her name off it.
    await dana.page.goto(`${server.url}/w/${workspaceId}/settings/agents`);
    await dana.page.getByTestId('read-only-note').filter({ hasText: 'You are a member here; adding or changing agents needs the admin role.' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => dana.page.getByRole('button', { name: 'New agent' }).count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => ownerCard.getByTestId('others-looking').count(), { timeout: 60_000 }).toBe(0);

    // A viewer, signed in in the same browser, reads the card but is offered no decision.
    const vic = await invitePerson(server, workspaceId, 'viewer', 'Vic');
    await dana.page.getByRole('button', { name: 'Sign out' }).click();
    await dana.page.getByLabel('Operator token').fill(vic.token);
    await dana.page.getByRole('button', { name: 'Sign in' }).click();
    await dana.page.locator('.topbar').waitFor();
    await dana.page.goto(`${server.url}/w/${workspaceId}/inbox`);
    const vicCard = dana.page.locator(`[data-approval-id="${approval.id}"]`);
    await vicCard.getByTestId('read-only-note').filter({ hasText: 'You can read this workspace; deciding needs the member role.' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => vicCard.getByRole('button', { name: /Approve|Reject/ }).count(), { timeout: 30_000 }).toBe(0);
    await dana.screenshot('people-viewer-inbox');

    // AG-4: the owner gives a ticket to Dana on the board; the viewer's board names her, live, and "Mine" leaves it out.
    const ticket = (await api('POST', '/tickets', { title: 'Write the notes' })).body;
    const danaId = ((await api('GET', '/people')).body.people as Array<{ id: string; name: string }>).find((person) => person.name === 'Dana')!.id;
    await dana.page.goto(`${server.url}/w/${workspaceId}/tickets`);
    const vicTicket = dana.page.locator(`[data-ticket-id="${ticket.id}"]`);
    await vicTicket.waitFor({ timeout: 60_000 });
    await ui.page.goto(`${server.url}/w/${workspaceId}/tickets`);
    await ui.page.getByLabel('Owner of Write the notes').selectOption({ label: 'Dana' }, { timeout: 60_000 });
    await expect.poll(async () => (await api('GET', `/tickets/${ticket.id}`)).body.ticket.assigneePersonId, { timeout: 30_000 }).toBe(danaId);
    await vicTicket.getByTestId('ticket-owner').filter({ hasText: 'Dana' }).waitFor({ timeout: 60_000 });
    await dana.page.getByLabel('Mine').check();
    await expect.poll(() => vicTicket.count(), { timeout: 30_000 }).toBe(0);
    await ui.page.goto(`${server.url}/w/${workspaceId}/inbox`);

    // The owner decides, so the turn ends.
    await ownerCard.getByRole('button', { name: 'Approve' }).click({ timeout: 60_000 });
    await expect.poll(async () => ((await api('GET', '/approvals')).body.approvals as Array<{ id: string; status: string }>).find((entry) => entry.id === approval.id)?.status, { timeout: 60_000 }).toBe('approved');
  }, BROWSER_TEST_TIMEOUT_MS * 2);

  it('a viewer and a member find no enabled control on any admin page, each told why; the member still decides an approval (TEAM-2)', async () => {
    const { server, workspaceId, model } = suite;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    // Something on every admin page to offer controls for: an MCP server, a spend limit, a policy rule, an agent.
    // Names of its own: a retry of this test runs against the same server.
    const run = randomUUID().slice(0, 8);
    expect((await api('POST', '/mcp-servers', { name: `files-${run}`, transport: 'stdio', command: '/bin/true' })).status).toBe(201);
    expect((await api('PUT', '/budgets/limits', { period: 'month', limitUsd: 5 })).status).toBe(200);
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'curl' }, decision: 'ask' })).status).toBe(201);
    const agent = ((await api('GET', '/agents')).body.agents as Array<{ id: string; name: string }>)[0]!;
    // Each admin page, with what shows its content has loaded (so an empty page never passes for a page without controls).
    const loaded = (selector: string) => () => dana.page.locator(selector).first();
    const adminPages: Array<[string, () => ReturnType<typeof dana.page.locator>]> = [
      ['settings/agents', loaded('[data-testid="agent-list"] li')],
      [`settings/agents/${agent.id}`, loaded(`form[aria-label="Edit agent ${agent.name}"] input`)],
      ['settings/general', loaded('main button[type="submit"]')],
      ['settings/policy', loaded('main :text("curl")')],
      ['settings/mcp-servers', loaded(`[data-testid="mcp-server-files-${run}"] input[type="checkbox"]`)],
      ['settings/budgets', loaded('[data-testid="spend-limits"] tbody tr')],
      ['settings/people', loaded('[data-testid="people-table"] tbody tr')],
      ['settings/audit', loaded('[data-testid="read-only-note"]')],
      ['skills', loaded('[data-testid="built-in-skills"] [data-skill-name]')],
    ];
    // What a person could press or fill on the page, as a name; the policy probe only asks what the policy would do (a viewer's right),
    // and ending one's own browser sessions is every person's right, whatever their role.
    const enabledControls = () =>
      dana.page.locator('main').evaluateAll((mains) =>
        mains.flatMap((main) =>
          [...main.querySelectorAll('button, input, select, textarea')]
            .filter((control) => control.matches(':enabled') && !control.closest('section[aria-labelledby="probe-title"], section[aria-labelledby="my-sessions"]'))
            .map((control) => control.getAttribute('aria-label') || control.textContent?.trim() || control.getAttribute('name') || control.tagName),
        ),
      );
    // Signed out by dropping what the app keeps (its token, the session cookie), whoever this browser was before: the app then asks for a token.
    const signInAs = async (token: string) => {
      await dana.page.goto(`${server.url}/`);
      await dana.page.evaluate('localStorage.clear()');
      await dana.context.clearCookies();
      await dana.page.goto(`${server.url}/`);
      await dana.page.getByLabel('Operator token').fill(token, { timeout: 60_000 });
      await dana.page.getByRole('button', { name: 'Sign in' }).click();
      await dana.page.locator('.topbar').waitFor({ timeout: 60_000 });
    };
    const walkAdminPages = async (role: 'viewer' | 'member') => {
      for (const [page, content] of adminPages) {
        await dana.page.goto(`${server.url}/w/${workspaceId}/${page}`);
        // The line that says why is the sign the role is known; with the page's content in, no control is left to use.
        await dana.page.getByTestId('read-only-note').filter({ hasText: `needs the admin role` }).first().waitFor({ timeout: 60_000 });
        await content().waitFor({ timeout: 60_000 });
        await expect.poll(enabledControls, { timeout: 30_000, message: `${role} on ${page}` }).toEqual([]);
      }
    };

    const viewer = await invitePerson(server, workspaceId, 'viewer', 'Val');
    await signInAs(viewer.token);
    await walkAdminPages('viewer');
    await dana.screenshot('people-viewer-mcp-servers');

    // Inside a conversation the viewer reads: no composer (the line says why), and nothing in the
    // sidebar that creates, renames or archives a space or a conversation (the server would refuse it).
    const readSpace = (await api('POST', '/spaces', { name: `Read ${run}` })).body;
    const readConversation = (await api('POST', `/spaces/${readSpace.id}/conversations`, { title: `Read only ${run}` })).body;
    // One finished exchange, so each message would carry its Branch / Rewind controls.
    model.script(reply().text('Noted for the readers.'));
    expect((await api('POST', `/conversations/${readConversation.id}/messages`, { text: 'note this' })).status).toBe(202);
    await expect.poll(async () => (await api('GET', `/conversations/${readConversation.id}/messages`)).body.messages.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
    const conversationControls = () =>
      dana.page.locator('main').evaluate((main) => ({
        buttons: [...main.querySelectorAll('button')]
          .filter((control) => !control.matches(':disabled'))
          .map((control) => control.textContent?.trim() ?? '')
          .filter((name) => /^(branch|rewind|share)/i.test(name)),
        enabledSelects: [...main.querySelectorAll('[data-testid="space-mode-bar"] select')].filter((select) => !select.matches(':disabled')).length,
      }));
    await dana.page.goto(`${server.url}/w/${workspaceId}/c/${readConversation.id}`);
    await dana.page.getByTestId('read-only-note').filter({ hasText: 'You can read this conversation; sending needs the member role.' }).waitFor({ timeout: 60_000 });
    await dana.page.getByRole('complementary', { name: 'Spaces and conversations' }).locator(`[data-conversation-id="${readConversation.id}"]`).waitFor({ timeout: 60_000 });
    const sidebarControls = () =>
      dana.page.getByRole('complementary', { name: 'Spaces and conversations' }).evaluate((sidebar) =>
        [...sidebar.querySelectorAll('button, summary')]
          .filter((control) => !control.matches(':disabled'))
          .map((control) => control.getAttribute('aria-label') || control.textContent?.trim() || control.tagName)
          .filter((name) => /new|rename|archive|actions for/i.test(name)),
      );
    await expect.poll(sidebarControls, { timeout: 30_000, message: 'viewer in the sidebar' }).toEqual([]);
    await expect.poll(() => dana.page.getByRole('textbox', { name: 'Message' }).count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => dana.page.getByRole('button', { name: 'Rename conversation' }).count(), { timeout: 30_000 }).toBe(0);
    // No Branch / Rewind / Share and no mode or dial to pick (the space's change is an admin's): both read as words.
    await dana.page.getByTestId('message').filter({ hasText: 'Noted for the readers.' }).waitFor({ timeout: 60_000 });
    await expect.poll(conversationControls, { timeout: 30_000, message: 'viewer in the conversation' }).toEqual({ buttons: [], enabledSelects: 0 });
    await dana.page.getByTestId('space-mode-text').filter({ hasText: 'Mode:' }).waitFor({ timeout: 60_000 });
    await dana.page.getByTestId('space-autonomy-text').filter({ hasText: 'Autonomy:' }).waitFor({ timeout: 60_000 });

    const member = await invitePerson(server, workspaceId, 'member', 'Mo');
    await signInAs(member.token);
    await walkAdminPages('member');
    // A member keeps the composer in the same conversation.
    await dana.page.goto(`${server.url}/w/${workspaceId}/c/${readConversation.id}`);
    await dana.page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 60_000 });
    // ...and branches, rewinds and shares it (a member's), but still reads the space's mode and dial (an admin's).
    await expect
      .poll(async () => (await conversationControls()).buttons.sort(), { timeout: 60_000, message: 'member in the conversation' })
      .toEqual(['Branch from here', 'Branch from here', 'Branch…', 'Rewind to before this', 'Share…']);
    await expect.poll(async () => (await conversationControls()).enabledSelects, { timeout: 30_000 }).toBe(0);

    // The member's Inbox still offers the decision, and it counts as theirs.
    await dana.page.goto(`${server.url}/w/${workspaceId}/inbox`);
    await dana.page.getByRole('heading', { name: 'Inbox' }).waitFor({ timeout: 60_000 });
    const space = (await api('POST', '/spaces', { name: `Members ${run}` })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Prune' })).body;
    model.script(reply().tool('bash', { command: 'rm -f stale.txt' }), reply().text('Pruned.'));
    expect((await api('POST', `/conversations/${conversation.id}/messages`, { text: 'prune' })).status).toBe(202);
    const waiting = async () => ((await api('GET', '/approvals?status=pending')).body.approvals as Array<{ id: string; conversationId: string | null }>).find((entry) => entry.conversationId === conversation.id);
    await expect.poll(waiting, { timeout: 60_000 }).toBeTruthy();
    const approval = (await waiting())!;
    await dana.page.locator(`[data-approval-id="${approval.id}"]`).getByRole('button', { name: 'Approve' }).click({ timeout: 60_000 });
    await expect
      .poll(async () => ((await api('GET', '/approvals')).body.approvals as Array<{ id: string; status: string; decidedBy: string | null }>).find((entry) => entry.id === approval.id), { timeout: 60_000 })
      .toMatchObject({ status: 'approved', decidedBy: member.personId });
  }, BROWSER_TEST_TIMEOUT_MS * 3);

  it('a colleague signs in with the organisation\'s provider from the sign-in page and lands where they were going (TEAM-1)', async () => {
    const { server, workspaceId } = suite;
    const olivia = await launchBrowser();
    const provider = await startLocalOidcProvider(`${server.url}/auth/oidc/callback`, { olivia: { name: 'Olivia', groups: ['eng'] } });
    try {
      const configured = await server.api('PATCH', '/api/oidc', { enabled: true, providerName: 'Acme SSO', issuerUrl: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, roleMappings: [{ group: 'eng', workspaceId, role: 'member' }] });
      expect(configured.status).toBe(200);
      // A browser of her own, signed out: the sign-in page offers the provider; its own login and consent pages follow.
      await olivia.page.goto(`${server.url}/w/${workspaceId}/inbox`);
      await olivia.page.getByRole('link', { name: 'Sign in with Acme SSO' }).click({ timeout: 60_000 });
      await olivia.page.locator('input[name="login"]').fill('olivia', { timeout: 60_000 });
      await olivia.page.locator('input[name="password"]').fill('any');
      await olivia.page.locator('button[type="submit"]').click();
      await olivia.page.getByRole('button', { name: 'Continue' }).click({ timeout: 60_000 });
      await olivia.page.getByRole('heading', { name: 'Inbox' }).waitFor({ timeout: 60_000 });
      await expect.poll(() => new URL(olivia.page.url()).pathname, { timeout: 30_000 }).toBe(`/w/${workspaceId}/inbox`);
      const people = (await server.api('GET', `/api/workspaces/${workspaceId}/people`)).body.people as Array<{ name: string; role: string | null }>;
      expect(people.find((person) => person.name === 'Olivia')?.role).toBe('member');
    } finally {
      await provider.close();
      await olivia.close();
    }
  }, BROWSER_TEST_TIMEOUT_MS);

  it('the owner sets up OpenID Connect in Settings → People; the client secret never comes back to the page; a bad issuer is refused at its field (TEAM-1)', async () => {
    const { server, workspaceId, ui } = suite;
    const secret = 'oidc-secret-never-echoed-7f3a';
    const issuer = 'http://127.0.0.1:9/realms/acme';
    await ui.page.goto(`${server.url}/w/${workspaceId}/settings/people`);
    const form = ui.page.getByRole('form', { name: 'OpenID Connect' });
    const field = (label: string) => form.getByLabel(label, { exact: true });
    const { redirectUri } = (await server.api('GET', '/api/oidc')).body as { redirectUri: string };
    await form.getByTestId('oidc-redirect-uri').filter({ hasText: redirectUri }).waitFor({ timeout: 60_000 });

    await field('Provider name').fill('Acme SSO');
    await field('Issuer URL').fill(issuer);
    await field('Client id').fill('control-center');
    await field('Client secret').fill(secret);
    await field('Scopes').fill('openid profile email roles');
    await field('Groups claim').fill('roles');
    const rows = form.getByTestId('oidc-role-mappings').locator('tbody tr');
    const before = await rows.count();
    await form.getByRole('button', { name: 'Add a mapping' }).click();
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(before + 1);
    const row = before + 1;
    await field(`Group of mapping ${row}`).fill('leads');
    await field(`Workspace of mapping ${row}`).selectOption(workspaceId);
    await field(`Role of mapping ${row}`).selectOption('admin');
    await form.getByRole('button', { name: 'Save OpenID Connect settings' }).click();
    await expect
      .poll(async () => (await server.api('GET', '/api/oidc')).body, { timeout: 60_000 })
      .toMatchObject({ providerName: 'Acme SSO', issuerUrl: issuer, clientId: 'control-center', clientSecret: 'set', scopes: ['openid', 'profile', 'email', 'roles'], groupsClaim: 'roles', roleMappings: expect.arrayContaining([{ group: 'leads', workspaceId, role: 'admin' }]) });

    // Reloaded, the form shows what is stored; the secret only as "set", its input empty, its value nowhere in the page.
    await ui.page.reload();
    await expect
      .poll(
        async () => ({
          providerName: await field('Provider name').inputValue(),
          issuer: await field('Issuer URL').inputValue(),
          clientId: await field('Client id').inputValue(),
          scopes: await field('Scopes').inputValue(),
          groupsClaim: await field('Groups claim').inputValue(),
          group: await field(`Group of mapping ${row}`).inputValue(),
          role: await field(`Role of mapping ${row}`).inputValue(),
          secretState: await form.getByTestId('oidc-secret-state').textContent(),
          secretInput: await field('Client secret').inputValue(),
        }),
        { timeout: 60_000 },
      )
      .toEqual({ providerName: 'Acme SSO', issuer, clientId: 'control-center', scopes: 'openid profile email roles', groupsClaim: 'roles', group: 'leads', role: 'admin', secretState: 'set', secretInput: '' });
    expect(await ui.page.content()).not.toContain(secret);
    await ui.screenshot('people-oidc-settings');

    // Plain http to another machine: the API's refusal is shown at the issuer field, and nothing is stored.
    await field('Issuer URL').fill('http://id.example.com/realms/acme');
    await form.getByRole('button', { name: 'Save OpenID Connect settings' }).click();
    await form.locator('#oidc-issuerUrl-error').filter({ hasText: 'https' }).waitFor({ timeout: 60_000 });
    expect((await server.api('GET', '/api/oidc')).body.issuerUrl).toBe(issuer);
  }, BROWSER_TEST_TIMEOUT_MS);
});
