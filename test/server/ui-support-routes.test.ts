/**
 * The routes the web app's issue-17 screens need (UI, HAR-5, AG-4): what a run allows now and why
 * not, renaming and auto-titling conversations, and people's presence — on a real server with the
 * scripted model, every bad input refused with the field named and nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
beforeAll(async () => {
  fixture = await startHarnessFixture();
}, 120_000);
afterAll(async () => {
  await fixture?.dispose();
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

describe('run controls (HAR-5, ADP-1)', () => {
  it('says what a running turn allows, follows pause and resume, and says every control is gone once it ends', async () => {
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    fixture.model.script(reply().tool('bash', { command: 'touch x' }), reply().text('done'));
    const runId = await fixture.send('go');
    const approval = (await fixture.operator!.waitFor((event) => event.event === 'approval.requested')).data.data;

    const running = await api('GET', `/runs/${runId}/controls`);
    expect(running.status).toBe(200);
    expect(running.body).toMatchObject({ runId, inProgress: true, paused: false, transport: 'Built-in harness' });
    for (const name of ['pause', 'steer', 'cancel', 'takeOver']) expect(running.body.controls[name]).toEqual({ available: true, reason: null });
    expect(running.body.controls.resume).toEqual({ available: false, reason: 'The turn is not paused.' });

    expect((await api('POST', `/runs/${runId}/pause`)).status).toBe(200);
    const paused = (await api('GET', `/runs/${runId}/controls`)).body;
    expect(paused.paused).toBe(true);
    expect(paused.controls.pause).toEqual({ available: false, reason: 'The turn is already paused.' });
    expect(paused.controls.resume.available).toBe(true);
    expect(paused.controls.takeOver.available).toBe(false);

    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    expect((await api('POST', `/runs/${runId}/resume`)).status).toBe(200);
    await fixture.waitForRun(runId);
    const ended = (await api('GET', `/runs/${runId}/controls`)).body;
    expect(ended.inProgress).toBe(false);
    for (const entry of Object.values(ended.controls)) expect(entry).toEqual({ available: false, reason: 'This turn has ended.' });
    await api('DELETE', `/policy/rules/${rule.body.id}`);
  });

  it('an unknown run is a 404 naming runId', async () => {
    const missing = await api('GET', '/runs/run_nope/controls');
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe('runId');
  });
});

describe('conversation titles (UI)', () => {
  it('an untitled conversation is named after its first message, once; a rename wins and is kept', async () => {
    const created = await api('POST', `/spaces/${fixture.spaceId}/conversations`, {});
    expect(created.body.title).toBe('New conversation');
    const path = `/conversations/${created.body.id}`;
    fixture.model.script(reply().text('ok'), reply().text('ok again'));
    const first = await api('POST', `${path}/messages`, { text: 'Fix the login bug on Safari\nIt fails after the redirect.' });
    expect(first.status).toBe(202);
    expect((await api('GET', path)).body.title).toBe('Fix the login bug on Safari');
    await fixture.waitForRun(first.body.run.id);
    const second = await api('POST', `${path}/messages`, { text: 'Something else entirely' });
    await fixture.waitForRun(second.body.run.id);
    expect((await api('GET', path)).body.title).toBe('Fix the login bug on Safari');

    const renamed = await api('PATCH', path, { title: 'Safari login' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe('Safari login');
  });

  it('a conversation created with a title keeps it when its first message arrives', async () => {
    fixture.model.script(reply().text('ok'));
    const runId = await fixture.send('Rename me please');
    await fixture.waitForRun(runId);
    expect((await api('GET', `/conversations/${fixture.conversationId}`)).body.title).toBe('Main');
  });

  it('refuses an empty or hostile title naming the field, and an unknown conversation with 404; nothing changes', async () => {
    const path = `/conversations/${fixture.conversationId}`;
    for (const title of ['', '   ', 'evil\u202etxt', 'x'.repeat(201)]) {
      const refused = await api('PATCH', path, { title });
      expect(refused.status).toBe(400);
      expect(refused.body.error.field).toBe('title');
    }
    const extra = await api('PATCH', path, { title: 'ok', goal: 'sneaky' });
    expect(extra.status).toBe(400);
    expect((await api('GET', path)).body.title).toBe('Main');
    const missing = await api('PATCH', '/conversations/cv_nope', { title: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe('conversationId');
  });
});

describe('people presence (AG-4)', () => {
  it('records where a window is, announces the list live, and forgets a window that leaves', async () => {
    const clientId = 'win_test_0001';
    const here = await api('POST', '/presence/here', { clientId, conversationId: fixture.conversationId });
    expect(here.status).toBe(200);
    expect(here.body.operators).toEqual([expect.objectContaining({ clientId, conversationId: fixture.conversationId, spaceId: fixture.spaceId })]);
    const event = await fixture.operator!.waitFor((candidate) => candidate.event === 'presence.operators' && candidate.data.data.operators.some((entry: any) => entry.clientId === clientId));
    expect(event.data.data.operators[0].operatorId).toBe(here.body.operators[0].operatorId);
    expect((await api('GET', '/presence/operators')).body.operators).toHaveLength(1);

    expect((await api('POST', '/presence/leave', { clientId })).status).toBe(204);
    expect((await api('GET', '/presence/operators')).body.operators).toEqual([]);
  });

  it('refuses a malformed window id or an unknown place, naming the field; nothing is recorded', async () => {
    for (const clientId of ['short', 'has space in it', '../../etc', 'x'.repeat(65)]) {
      const refused = await api('POST', '/presence/here', { clientId });
      expect(refused.status).toBe(400);
      expect(refused.body.error.field).toBe('clientId');
    }
    const noConversation = await api('POST', '/presence/here', { clientId: 'win_test_0002', conversationId: 'cv_nope' });
    expect(noConversation.status).toBe(404);
    expect(noConversation.body.error.field).toBe('conversationId');
    const noSpace = await api('POST', '/presence/here', { clientId: 'win_test_0002', spaceId: 'sp_nope' });
    expect(noSpace.status).toBe(404);
    expect(noSpace.body.error.field).toBe('spaceId');
    expect((await api('GET', '/presence/operators')).body.operators).toEqual([]);
  });
});
