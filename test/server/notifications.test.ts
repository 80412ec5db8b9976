/**
 * NTF-1: people hear about what waits for them on the channels they chose. A real server, a real
 * approval from a real harness run, a local webhook receiver (signature checked with the secret, a
 * 500 retried), a real local SMTP server and a local push endpoint; a viewer is not told about
 * approvals, a kind turned off sends nothing, bad input is refused naming the field.
 */
import { createECDH, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPendingApproval, workspaceApi } from '../support/harness-approvals.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { LocalHttpReceiver, LocalSmtpServer } from '../support/notification-receivers.js';
import { asPerson, invitePerson, type InvitedPerson } from '../support/people-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { pollUntil } from '../support/wait-for.js';

let fixture: HarnessFixture;
let hooks: LocalHttpReceiver;
let smtp: LocalSmtpServer;
let dana: InvitedPerson;
let vic: InvitedPerson;
const CHANNELS = '/api/people/me/notification-channels';

beforeAll(async () => {
  fixture = await startHarnessFixture();
  hooks = await LocalHttpReceiver.start();
  smtp = await LocalSmtpServer.start({ user: 'cc-mailer', password: 'smtp-password-value' });
  dana = await invitePerson(fixture.server, fixture.workspaceId, 'member', 'Dana Kim');
  vic = await invitePerson(fixture.server, fixture.workspaceId, 'viewer', 'Vic');
}, 120_000);

afterAll(async () => {
  await fixture?.dispose();
  await hooks?.close();
  await smtp?.close();
});

async function deliveriesOf(person: InvitedPerson): Promise<any[]> {
  return (await asPerson(fixture.server, person.token, 'GET', '/api/people/me/notification-deliveries')).body.deliveries;
}

describe('webhook targets are checked (NTF-1)', () => {
  it('refuses loopback, private and link-local addresses, credentials in the URL and unknown kinds — 400 naming the field, nothing made', async () => {
    for (const url of [`${hooks.url}/dana`, 'http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://[::1]:8080/x']) {
      const refused = await asPerson(fixture.server, dana.token, 'POST', CHANNELS, { kind: 'webhook', name: 'Slack', url, events: ['approval'] });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ field: 'url' });
    }
    const withCredentials = await asPerson(fixture.server, dana.token, 'POST', CHANNELS, { kind: 'webhook', name: 'Slack', url: 'https://user:pass@hooks.example.com/x', events: ['approval'] });
    expect(withCredentials.status).toBe(400);
    expect(withCredentials.body.error.field).toBe('url');
    const unknownKind = await asPerson(fixture.server, dana.token, 'POST', CHANNELS, { kind: 'webhook', name: 'Slack', url: 'https://hooks.example.com/x', events: ['everything'] });
    expect(unknownKind.status).toBe(400);
    expect(JSON.stringify(unknownKind.body)).toContain('events');
    expect((await asPerson(fixture.server, dana.token, 'GET', CHANNELS)).body.channels).toEqual([]);
    // Only the owner may allow private targets.
    const byMember = await asPerson(fixture.server, dana.token, 'PATCH', '/api/notifications/settings', { allowPrivateTargets: true });
    expect(byMember.status).toBe(403);
    expect((await fixture.server.api('GET', '/api/notifications/settings')).body.allowPrivateTargets).toBe(false);
  });
});

describe('an approval reaches the people who may decide it, on the channels they chose (NTF-1)', () => {
  it('signed webhook retried after a 500, email over SMTP, web push with VAPID; not the viewer, not a channel with the kind off', async () => {
    // The owner allows the local receivers (they live on 127.0.0.1) and sets the SMTP account.
    const settings = await fixture.server.api('PATCH', '/api/notifications/settings', {
      allowPrivateTargets: true,
      publicUrl: 'https://cc.example.test',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'cc-mailer', password: 'smtp-password-value', from: 'Control Center <cc@example.test>' },
    });
    expect(settings.status).toBe(200);
    expect(settings.body.smtp.password).toBe('set');
    expect(JSON.stringify((await fixture.server.api('GET', '/api/notifications/settings')).body)).not.toContain('smtp-password-value');

    const webhook = await asPerson(fixture.server, dana.token, 'POST', CHANNELS, { kind: 'webhook', name: 'Team Slack', url: `${hooks.url}/dana`, events: ['approval', 'mention'] });
    expect(webhook.status).toBe(201);
    const secret = webhook.body.signingSecret as string;
    expect(secret).toMatch(/^whsec_/);
    const questionsOnly = await asPerson(fixture.server, dana.token, 'POST', CHANNELS, { kind: 'webhook', name: 'Questions', url: `${hooks.url}/dana-questions`, events: ['question'] });
    expect(questionsOnly.status).toBe(201);
    expect((await asPerson(fixture.server, dana.token, 'POST', CHANNELS, { kind: 'email', name: 'Mail', address: 'dana@example.test', events: ['approval'] })).status).toBe(201);
    const receiver = createECDH('prime256v1');
    receiver.generateKeys();
    const subscription = { endpoint: `${hooks.url}/push/dana-phone`, keys: { p256dh: receiver.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') } };
    expect((await asPerson(fixture.server, dana.token, 'POST', CHANNELS, { kind: 'push', name: 'Phone', subscription, events: ['approval'] })).status).toBe(201);
    expect((await asPerson(fixture.server, vic.token, 'POST', CHANNELS, { kind: 'webhook', name: 'Vic', url: `${hooks.url}/vic`, events: ['approval', 'question', 'plan'] })).status).toBe(201);
    // Secrets are write-only: the list says "set", never the value.
    const listed = (await asPerson(fixture.server, dana.token, 'GET', CHANNELS)).body.channels as any[];
    expect(listed.find((channel) => channel.id === webhook.body.id)).toMatchObject({ secret: 'set', target: `${hooks.url}/dana` });
    expect(JSON.stringify(listed)).not.toContain(secret);

    hooks.failNext('/dana', 500);
    fixture.model.script(reply().tool('bash', { command: 'rm -f draft.txt' }), reply().text('done'));
    const runId = await fixture.send('tidy up');
    const approval = await nextPendingApproval(fixture, new Set());
    const link = `https://cc.example.test/w/${fixture.workspaceId}/inbox?card=${approval.id}`;

    // The webhook: a 500 first, then delivered; both attempts in Dana's delivery log.
    const delivered = await pollUntil(
      () => deliveriesOf(dana),
      (list) => list.filter((entry) => entry.kind === 'approval' && entry.status !== 'pending').length === 3,
      30_000,
      100,
    );
    const hookDelivery = delivered.find((entry) => entry.channelId === webhook.body.id);
    expect(hookDelivery).toMatchObject({ status: 'delivered', link, title: expect.stringContaining('Approval waiting') });
    expect(hookDelivery.attempts.map((attempt: any) => [attempt.ok, attempt.httpStatus])).toEqual([
      [false, 500],
      [true, 201],
    ]);
    const received = hooks.to('/dana');
    expect(received).toHaveLength(2);
    const last = received[1]!;
    const [, timestamp, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(last.headers['x-control-center-signature']))!;
    expect(signature).toBe(createHmac('sha256', secret).update(`${timestamp}.${last.body.toString('utf8')}`).digest('hex'));
    const body = JSON.parse(last.body.toString('utf8'));
    expect(body).toMatchObject({ kind: 'approval', url: link, workspaceId: fixture.workspaceId, text: expect.stringContaining(link) });
    expect(body.blocks[0].text.text).toContain(link);
    // No secret in the body: not the signing secret, not anyone's token.
    for (const value of [secret, dana.token, fixture.server.token, 'smtp-password-value']) expect(last.body.toString('utf8')).not.toContain(value);

    // Email: over SMTP with the configured login, subject and link.
    expect(delivered.every((entry) => entry.status === 'delivered')).toBe(true);
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0]!;
    expect(mail).toMatchObject({ to: ['dana@example.test'], from: 'cc@example.test', user: 'cc-mailer' });
    expect(mail.raw).toMatch(/^Subject: \[Control Center\] Approval waiting/m);
    expect(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')).toContain(link);

    // Web push: the VAPID Authorization names the server's public key; the payload arrives encrypted.
    const pushed = hooks.to('/push/dana-phone');
    expect(pushed).toHaveLength(1);
    const publicKey = (await asPerson(fixture.server, dana.token, 'GET', '/api/notifications/push-key')).body.publicKey as string;
    expect(String(pushed[0]!.headers.authorization)).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${publicKey}$`));
    expect(pushed[0]!.headers['content-encoding']).toBe('aes128gcm');
    expect(pushed[0]!.body.length).toBeGreaterThan(0);
    expect(pushed[0]!.body.toString('utf8')).not.toContain('Approval waiting');

    // The viewer decides nothing, so is not told; Dana's questions-only channel got nothing.
    expect(await deliveriesOf(vic)).toEqual([]);
    expect(hooks.to('/vic')).toEqual([]);
    expect(hooks.to('/dana-questions')).toEqual([]);

    await asPerson(fixture.server, dana.token, 'POST', `/api/workspaces/${fixture.workspaceId}/approvals/${approval.id}/decision`, { decision: 'approve' });
    await fixture.waitForRun(runId);
  }, 60_000);

  it('an @mention of a person tells that person (and only them)', async () => {
    const before = hooks.to('/dana').length;
    fixture.model.script(reply().text('noted'));
    await fixture.waitForRun(await fixture.send('@dana can you check the draft? (not @nobody)'));
    const mentions = await pollUntil(
      () => deliveriesOf(dana),
      (list) => list.some((entry) => entry.kind === 'mention' && entry.status === 'delivered'),
      20_000,
      100,
    );
    expect(mentions.find((entry) => entry.kind === 'mention').link).toBe(`https://cc.example.test/w/${fixture.workspaceId}/c/${fixture.conversationId}`);
    expect(hooks.to('/dana')).toHaveLength(before + 1);
    expect((await deliveriesOf(vic)).filter((entry) => entry.kind === 'mention')).toEqual([]);
  }, 30_000);
});

describe('channels belong to their person (NTF-1)', () => {
  it("another person's channel is unknown (404); a read-only token changes nothing (403); a run token reaches nothing (401); a secret on an email channel is refused", async () => {
    const mine = (await asPerson(fixture.server, dana.token, 'GET', CHANNELS)).body.channels as any[];
    const email = mine.find((channel) => channel.kind === 'email');
    const byVic = await asPerson(fixture.server, vic.token, 'DELETE', `${CHANNELS}/${email.id}`);
    expect(byVic.status).toBe(404);
    const readOnly = await invitePerson(fixture.server, fixture.workspaceId, 'member', 'Rory', { readOnlyToken: true });
    const refused = await asPerson(fixture.server, readOnly.token, 'POST', CHANNELS, { kind: 'email', name: 'Mail', address: 'rory@example.test', events: ['approval'] });
    expect(refused.status).toBe(403);
    const secretOnEmail = await asPerson(fixture.server, dana.token, 'PATCH', `${CHANNELS}/${email.id}`, { secret: 'a-secret-long-enough-1234' });
    expect(secretOnEmail.status).toBe(400);
    expect(secretOnEmail.body.error.field).toBe('secret');
    // An agent's run token is no person: it neither reads nor configures anything here.
    const runToken = fixture.server.running.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId: 'run_probe', agentId: Object.values(fixture.agents)[0]!.id });
    for (const [method, path, body] of [
      ['GET', CHANNELS, undefined],
      ['POST', CHANNELS, { kind: 'webhook', name: 'Agent', url: 'https://hooks.example.com/x', events: ['approval'] }],
      ['PATCH', '/api/notifications/settings', { allowPrivateTargets: false }],
      ['GET', '/api/notifications/settings', undefined],
    ] as const) {
      const answer = await asPerson(fixture.server, runToken, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(401);
    }
    expect((await asPerson(fixture.server, dana.token, 'GET', CHANNELS)).body.channels).toEqual(mine);
    expect((await fixture.server.api('GET', '/api/notifications/settings')).body.allowPrivateTargets).toBe(true);
    expect((await workspaceApi(fixture, 'GET', '/approvals?status=pending')).status).toBe(200);
  });
});
