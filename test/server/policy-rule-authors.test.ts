/**
 * TEAM-3: a policy rule records the person who added it — by hand through the API, or by
 * "remember this choice" on an approval (the person who decided it). Older rules say null.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPendingApproval, workspaceApi } from '../support/harness-approvals.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { asPerson, invitePerson, type InvitedPerson } from '../support/people-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
let admin: InvitedPerson;
let member: InvitedPerson;

beforeAll(async () => {
  fixture = await startHarnessFixture();
  admin = await invitePerson(fixture.server, fixture.workspaceId, 'admin', 'Ada');
  member = await invitePerson(fixture.server, fixture.workspaceId, 'member', 'Dana');
}, 120_000);

afterAll(async () => {
  await fixture?.dispose();
});

describe('who added a policy rule (TEAM-3)', () => {
  it('a rule added through the API names its author', async () => {
    const created = await asPerson(fixture.server, admin.token, 'POST', `/api/workspaces/${fixture.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny', note: 'no pushes' });
    expect(created.status).toBe(201);
    expect(created.body.createdBy).toBe(admin.personId);
    const listed = (await workspaceApi(fixture, 'GET', '/policy/rules')).body.rules as Array<{ id: string; createdBy: string | null }>;
    expect(listed.find((rule) => rule.id === created.body.id)?.createdBy).toBe(admin.personId);
  });

  it('a remembered choice names the person who decided the approval', async () => {
    fixture.model.script(reply().tool('bash', { command: 'rm -f old.txt' }), reply().text('done'));
    const runId = await fixture.send('clean up');
    const approval = await nextPendingApproval(fixture, new Set());
    const decided = await asPerson(fixture.server, member.token, 'POST', `/api/workspaces/${fixture.workspaceId}/approvals/${approval.id}/decision`, { decision: 'approve', remember: true });
    expect(decided.status).toBe(200);
    await fixture.waitForRun(runId);
    const rules = (await workspaceApi(fixture, 'GET', '/policy/rules')).body.rules as Array<{ match: { kind: string }; createdBy: string | null }>;
    const remembered = rules.filter((rule) => rule.match.kind === 'fingerprint');
    expect(remembered).toHaveLength(1);
    expect(remembered[0]!.createdBy).toBe(member.personId);
  }, 60_000);
});
