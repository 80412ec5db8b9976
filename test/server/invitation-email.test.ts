/**
 * TEAM-1: an invitation made with an email goes out by the owner's SMTP account (the notifications'
 * transport), against a real local SMTP server; the answer says whether it was sent, and without SMTP
 * (or when the send fails) that the link must be passed on by hand. The emailed link works once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSmtpServer } from '../support/notification-receivers.js';
import { acceptInvitation } from '../support/people-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let smtp: LocalSmtpServer;
let workspaceId: string;

const SMTP_LOGIN = { user: 'cc-mailer', password: 'smtp-password-value' };

beforeAll(async () => {
  server = await startTestServer();
  smtp = await LocalSmtpServer.start(SMTP_LOGIN);
  workspaceId = (await createSeededWorkspace(server, 'Harbour')).id;
}, 60_000);

afterAll(async () => {
  await smtp?.close();
  await server?.dispose();
});

const invite = (body: unknown) => server.api('POST', `/api/workspaces/${workspaceId}/invitations`, body);
const configureSmtp = (password: string) =>
  server.api('PATCH', '/api/notifications/settings', { smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_LOGIN.user, password, from: 'Control Center <cc@example.test>' } });

/** The message body as written, with quoted-printable soft breaks and escapes undone. */
function decodedBody(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('invitation emails (TEAM-1)', () => {
  it('without SMTP the answer says the link must be passed on by hand, and nothing is mailed', async () => {
    const created = await invite({ role: 'member', email: 'noor@example.com' });
    expect(created.status).toBe(201);
    expect(created.body.url).toContain('/auth/join?code=');
    expect(created.body.delivery).toEqual({ emailed: false, note: expect.stringContaining('No SMTP server is configured') });
    expect(created.body.delivery.note).toContain('by hand');
    expect(smtp.messages).toHaveLength(0);
  });

  it('with SMTP the link is emailed to the invitee, says who invites and where, and works once', async () => {
    expect((await configureSmtp(SMTP_LOGIN.password)).status).toBe(200);
    const created = await invite({ role: 'viewer', email: 'dana@example.com' });
    expect(created.status).toBe(201);
    expect(created.body.delivery).toEqual({ emailed: true, note: 'The link was emailed to dana@example.com.' });
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0]!;
    expect(mail.to).toEqual(['dana@example.com']);
    expect(mail.user).toBe(SMTP_LOGIN.user);
    const body = decodedBody(mail.raw);
    expect(body).toContain(created.body.url);
    expect(body).toContain('Harbour');
    expect(body).toContain('as viewer');
    expect(mail.raw).not.toContain(SMTP_LOGIN.password);

    // The emailed link is the invitation: it makes Dana's account once, and is refused the second time.
    const emailedUrl = /https?:\/\/\S+\/auth\/join\?code=[A-Za-z0-9_-]+/.exec(body)![0];
    expect((await acceptInvitation(server, emailedUrl, { name: 'Dana' })).status).toBe(303);
    expect((await acceptInvitation(server, emailedUrl, { name: 'Dana again' })).status).toBe(400);
    const people = (await server.api('GET', `/api/workspaces/${workspaceId}/people`)).body.people as Array<{ name: string; role: string }>;
    expect(people.find((person) => person.name === 'Dana')?.role).toBe('viewer');
  });

  it('an invitation without an email is never mailed, even with SMTP configured', async () => {
    const before = smtp.messages.length;
    const created = await invite({ role: 'member' });
    expect(created.status).toBe(201);
    expect(created.body.delivery).toEqual({ emailed: false, note: expect.stringContaining('pass the link on by hand') });
    expect(smtp.messages).toHaveLength(before);
  });

  it('a send the SMTP server refuses is reported, and the invitation still stands', async () => {
    expect((await configureSmtp('a-wrong-password')).status).toBe(200);
    const created = await invite({ role: 'member', email: 'sam@example.com' });
    expect(created.status).toBe(201);
    expect(created.body.delivery.emailed).toBe(false);
    expect(created.body.delivery.note).toMatch(/^The email to sam@example\.com could not be sent \(.+\): pass the link on by hand\.$/);
    const listed = (await server.api('GET', `/api/workspaces/${workspaceId}/invitations`)).body.invitations as Array<{ id: string; email: string | null }>;
    expect(listed.map((invitation) => invitation.id)).toContain(created.body.id);
  });

  it('a malformed email is refused, naming the field, and neither invites nor mails', async () => {
    expect((await configureSmtp(SMTP_LOGIN.password)).status).toBe(200);
    const before = (await server.api('GET', `/api/workspaces/${workspaceId}/invitations`)).body.invitations.length;
    const mailed = smtp.messages.length;
    const refused = await invite({ role: 'member', email: 'not an email' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('email');
    expect((await server.api('GET', `/api/workspaces/${workspaceId}/invitations`)).body.invitations).toHaveLength(before);
    expect(smtp.messages).toHaveLength(mailed);
  });
});
